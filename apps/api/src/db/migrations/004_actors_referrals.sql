-- Who signed and paid for the transaction of a loan event (for a liquidation: who liquidated), filled with
-- the event's signature by the indexer's backfill.
ALTER TABLE loan_activity ADD COLUMN actor TEXT;

-- Transactions the builder issued with a referrer: one row per transaction message (SHA-256 of its bytes).
-- The indexer links a row to the loan event whose transaction carries that message (signature, loan, kind);
-- rows never linked are forgotten a day after their blockhash expired.
CREATE TABLE referrals (
  message_hash TEXT PRIMARY KEY,
  referrer TEXT NOT NULL,
  wallet TEXT NOT NULL,
  action TEXT NOT NULL,
  built_at BIGINT NOT NULL,
  signature TEXT,
  loan TEXT,
  kind TEXT
);
CREATE INDEX referrals_referrer_idx ON referrals (referrer) WHERE signature IS NOT NULL;
CREATE INDEX referrals_pending_idx ON referrals (built_at) WHERE signature IS NULL;
