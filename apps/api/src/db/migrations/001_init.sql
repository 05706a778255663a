-- Chain-derived tables, filled by the indexer. Amounts are base units in NUMERIC(20,0) (u64 fits),
-- times are epoch seconds in BIGINT, rates in basis points. `slot` is the slot the row was read at:
-- an upsert never replaces a row with data from an older slot.

CREATE TABLE banks (
  pubkey TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  mint TEXT NOT NULL,
  vault TEXT NOT NULL,
  authority TEXT NOT NULL,
  bank_type TEXT NOT NULL,
  total_liquidity NUMERIC(20,0) NOT NULL,
  available_liquidity NUMERIC(20,0) NOT NULL,
  delegated_liquidity NUMERIC(20,0) NOT NULL,
  cooldown_liquidity NUMERIC(20,0) NOT NULL,
  cooldown_period BIGINT NOT NULL,
  delegators TEXT[] NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  deposited_at BIGINT NOT NULL,
  withdrawn_at BIGINT NOT NULL,
  borrowed_at BIGINT NOT NULL,
  repaid_at BIGINT NOT NULL,
  frozen_until BIGINT NOT NULL,
  slot BIGINT NOT NULL
);
CREATE INDEX banks_owner_idx ON banks (owner);
CREATE INDEX banks_mint_idx ON banks (mint);

CREATE TABLE pools (
  pubkey TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  seed TEXT NOT NULL,
  bump INTEGER NOT NULL,
  bank TEXT NOT NULL,
  currency TEXT NOT NULL,
  pool_type TEXT NOT NULL,
  status TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  thumbnail TEXT NOT NULL DEFAULT '',
  apr_bps INTEGER NOT NULL,
  mortgage_apr_bps INTEGER NOT NULL,
  min_duration BIGINT NOT NULL,
  max_duration BIGINT NOT NULL,
  min_amount_usd BIGINT NOT NULL,
  max_amount_usd BIGINT NOT NULL,
  is_auto_sell_enabled BOOLEAN NOT NULL,
  is_mortgage_enabled BOOLEAN NOT NULL,
  is_compounding_enabled BOOLEAN NOT NULL,
  conditions JSONB NOT NULL,
  collections JSONB NOT NULL,
  total_loans BIGINT NOT NULL,
  total_liquidations BIGINT NOT NULL,
  total_mortgages BIGINT NOT NULL,
  total_interest NUMERIC(20,0) NOT NULL,
  current_loans BIGINT NOT NULL,
  borrowed_amount NUMERIC(20,0) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  last_loan_at BIGINT NOT NULL,
  collections_updated_at BIGINT NOT NULL DEFAULT 0,
  last_mortgage_at BIGINT NOT NULL DEFAULT 0,
  slot BIGINT NOT NULL
);
CREATE INDEX pools_created_idx ON pools (created_at DESC, pubkey);
CREATE INDEX pools_owner_idx ON pools (owner);
CREATE INDEX pools_bank_idx ON pools (bank);
-- /dirty/pools lists pools that are not closed, newest first, optionally by currency.
CREATE INDEX pools_live_currency_created_idx ON pools (currency, created_at DESC, pubkey) WHERE status <> 'Closed';
CREATE INDEX pools_live_created_idx ON pools (created_at DESC, pubkey) WHERE status <> 'Closed';
-- Narrow index so the list's totalCount is an index-only scan.
CREATE INDEX pools_live_currency_idx ON pools (currency) WHERE status <> 'Closed';

CREATE TABLE loans (
  pubkey TEXT PRIMARY KEY,
  pool TEXT NOT NULL,
  bank TEXT NOT NULL,
  borrower TEXT NOT NULL,
  lender TEXT NOT NULL,
  currency TEXT NOT NULL,
  collateral_mint TEXT NOT NULL,
  collateral_amount NUMERIC(20,0) NOT NULL,
  collection TEXT NOT NULL,
  is_defi BOOLEAN NOT NULL,
  principal NUMERIC(20,0) NOT NULL,
  interest NUMERIC(20,0) NOT NULL,
  apr_bps INTEGER NOT NULL,
  duration BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  expired_at BIGINT NOT NULL,
  repaid_at BIGINT NOT NULL,
  liquidated_at BIGINT NOT NULL,
  sold_at BIGINT NOT NULL,
  sold_amount NUMERIC(20,0) NOT NULL DEFAULT 0,
  repaid_amount NUMERIC(20,0) NOT NULL DEFAULT 0,
  protocol_fee_paid NUMERIC(20,0) NOT NULL DEFAULT 0,
  collateral_value NUMERIC(20,0) NOT NULL DEFAULT 0,
  extended_to TEXT,
  status TEXT NOT NULL,
  kind TEXT NOT NULL,
  loan_type TEXT NOT NULL,
  slot BIGINT NOT NULL
);
CREATE INDEX loans_borrower_created_idx ON loans (borrower, created_at DESC, pubkey);
CREATE INDEX loans_lender_created_idx ON loans (lender, created_at DESC, pubkey);
CREATE INDEX loans_pool_created_idx ON loans (pool, created_at DESC, pubkey);
CREATE INDEX loans_collection_created_idx ON loans (collection, created_at DESC);
CREATE INDEX loans_currency_created_idx ON loans (currency, created_at DESC);
CREATE INDEX loans_status_idx ON loans (status);

-- Loan events. One row per (loan, kind): the indexer derives events from account state
-- transitions, so replays and restarts cannot duplicate them.
CREATE TABLE loan_activity (
  id BIGSERIAL PRIMARY KEY,
  loan TEXT NOT NULL,
  kind TEXT NOT NULL,
  signature TEXT,
  at BIGINT NOT NULL,
  slot BIGINT NOT NULL,
  pool TEXT NOT NULL,
  borrower TEXT NOT NULL,
  lender TEXT NOT NULL,
  currency TEXT NOT NULL,
  collection TEXT NOT NULL,
  amount NUMERIC(20,0) NOT NULL,
  UNIQUE (loan, kind)
);
CREATE INDEX loan_activity_at_idx ON loan_activity (at DESC, id DESC);
CREATE INDEX loan_activity_borrower_idx ON loan_activity (borrower, at DESC);
CREATE INDEX loan_activity_lender_idx ON loan_activity (lender, at DESC);
CREATE INDEX loan_activity_currency_at_idx ON loan_activity (currency, at);

-- Where the indexer got to: the last slot it applied and the newest program signature it saw.
CREATE TABLE indexer_cursor (
  program_id TEXT PRIMARY KEY,
  slot BIGINT NOT NULL,
  signature TEXT,
  reconciled_at BIGINT NOT NULL
);

-- Daily APR snapshot per currency for /dirty/historical-apys (written by the indexer's reconcile).
CREATE TABLE apr_history (
  currency TEXT NOT NULL,
  day BIGINT NOT NULL,
  average_apr_bps INTEGER NOT NULL,
  median_apr_bps INTEGER NOT NULL,
  pools INTEGER NOT NULL,
  PRIMARY KEY (currency, day)
);

-- Off-chain catalogue: currencies and collections from the asset source, with first/last seen times.
CREATE TABLE currencies (
  mint TEXT PRIMARY KEY,
  symbol TEXT NOT NULL,
  name TEXT NOT NULL,
  decimals INTEGER NOT NULL,
  image TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE collections (
  collection_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  symbol TEXT NOT NULL,
  image TEXT NOT NULL,
  banner TEXT NOT NULL,
  url TEXT NOT NULL,
  floor_price NUMERIC(20,0) NOT NULL,
  floor_currency TEXT NOT NULL,
  supply BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
