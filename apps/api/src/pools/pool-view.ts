import { ACCOUNT_VERSION } from "@cistern/sdk";
import { Type } from "@sinclair/typebox";
import { readBigInt, readNumber } from "../db/database.ts";
import { BaseUnitsString, EpochSeconds, Pubkey, StringEnum } from "../http/schemas.ts";

/** Pool columns plus its bank's liquidity (LEFT JOIN banks b). */
export const POOL_COLUMNS = `p.pubkey, p.owner, p.seed, p.bump, p.bank, p.currency, p.pool_type, p.status, p.name,
  p.thumbnail, p.apr_bps, p.mortgage_apr_bps, p.min_duration, p.max_duration, p.min_amount_usd, p.max_amount_usd,
  p.is_auto_sell_enabled, p.is_mortgage_enabled, p.is_compounding_enabled, p.conditions, p.collections,
  p.total_loans, p.total_liquidations, p.total_mortgages, p.total_interest, p.current_loans, p.borrowed_amount,
  p.created_at, p.updated_at, p.last_loan_at, p.collections_updated_at, p.last_mortgage_at, p.layout_version,
  b.total_liquidity, b.available_liquidity, b.delegated_liquidity`;

export const POOL_FROM = "pools p LEFT JOIN banks b ON b.pubkey = p.bank";

export interface PoolRow {
  pubkey: string;
  owner: string;
  seed: string;
  bump: unknown;
  bank: string;
  currency: string;
  pool_type: string;
  status: string;
  name: string;
  thumbnail: string;
  apr_bps: unknown;
  mortgage_apr_bps: unknown;
  min_duration: unknown;
  max_duration: unknown;
  min_amount_usd: unknown;
  max_amount_usd: unknown;
  is_auto_sell_enabled: boolean;
  is_mortgage_enabled: boolean;
  is_compounding_enabled: boolean;
  conditions: unknown;
  collections: unknown;
  total_loans: unknown;
  total_liquidations: unknown;
  total_mortgages: unknown;
  total_interest: unknown;
  current_loans: unknown;
  borrowed_amount: unknown;
  created_at: unknown;
  updated_at: unknown;
  last_loan_at: unknown;
  collections_updated_at: unknown;
  last_mortgage_at: unknown;
  layout_version: unknown;
  total_liquidity: unknown;
  available_liquidity: unknown;
  delegated_liquidity: unknown;
}

interface StoredConditions {
  isEnabled: boolean;
  isWhitelistEnabled: boolean;
  minAge: string;
  minLoan: string;
  minVolume: string;
  whitelist: string;
}

interface StoredCollection {
  collection: string;
  ltvBps: number;
  exposureBps: number;
  borrowedAmount: string;
  ongoingLoans: string;
}

function parseJson<T>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

const MICRO_USD = 1_000_000;

/**
 * A pool: the spec's server view (owner, pubkey, type, bank, metadata, currency, totalLiquidity,
 * borrowedLiquidity, loanCurve, limits, liquidation, flags, conditions, collections) plus the parsed
 * view's counters and the bank's liquidity. APRs are basis points; USD limits are whole USD (display).
 */
export const PoolSchema = Type.Object(
  {
    pubkey: Pubkey,
    owner: Pubkey,
    seed: Type.String({ description: "u64 seed of the pool PDA, decimal string" }),
    bump: Type.Integer(),
    type: StringEnum(["nft-pool", "defi-pool"] as const),
    status: Type.String({ description: "Open, Frozen or Closed" }),
    bank: Pubkey,
    currency: Pubkey,
    metadata: Type.Object({
      name: Type.String(),
      thumbnail: Type.String(),
      banks: Type.Array(Pubkey, { description: "the pool's bank first" }),
    }),
    totalLiquidity: BaseUnitsString,
    availableLiquidity: BaseUnitsString,
    delegatedLiquidity: BaseUnitsString,
    borrowedLiquidity: Type.String({ description: "outstanding principal of the pool's ongoing loans" }),
    loanCurve: Type.Object({ apr: Type.Integer({ description: "basis points" }) }),
    mortgageCurve: Type.Object({ apr: Type.Integer({ description: "basis points" }) }),
    limits: Type.Object({
      minDuration: Type.Integer({ description: "seconds" }),
      maxDuration: Type.Integer({ description: "seconds" }),
      minAmountUsd: Type.Number(),
      maxAmountUsd: Type.Number(),
    }),
    liquidation: Type.Object({ isAutoSellEnabled: Type.Boolean() }),
    isMortgageEnabled: Type.Boolean(),
    // No isCompoundingEnabled and no conditions.liquidationThreshold: the lending program has neither setting (a
    // pool's interest share always returns to its bank; no borrower is refused for past liquidations), so the
    // view does not show the bits the chain stores for them.
    conditions: Type.Object({
      isEnabled: Type.Boolean(),
      minAge: Type.Integer({ description: "seconds" }),
      minLoan: Type.Integer({ description: "past loans" }),
      minVolume: Type.Number({ description: "USD" }),
      whitelist: Type.String({ description: "lookup table address, all-ones address when disabled" }),
    }),
    collections: Type.Array(
      Type.Object({
        collection: Pubkey,
        collectionLtv: Type.Integer({ description: "basis points" }),
        exposure: Type.Integer({ description: "basis points" }),
        borrowedAmount: BaseUnitsString,
      }),
    ),
    totalLoans: Type.Integer(),
    totalLiquidations: Type.Integer(),
    totalMortgages: Type.Integer(),
    totalInterest: BaseUnitsString,
    currentLoan: Type.Integer({ description: "ongoing loans" }),
    nftLocked: Type.Integer({ description: "NFTs locked in ongoing loans (nft-pool; = currentLoan)" }),
    collectionsUpdatedAt: EpochSeconds,
    currenciesUpdatedAt: EpochSeconds,
    lastMortgageAt: EpochSeconds,
    createdAt: EpochSeconds,
    updatedAt: EpochSeconds,
    lastLoanAt: EpochSeconds,
    layoutVersion: Type.Integer({
      description: "account layout on chain: 2 current; 1 written before the program's 1.8 upgrade",
    }),
    needsMigration: Type.Boolean({
      description:
        "the pool is at an older layout: its owner brings it to the current one with POST /nft/migrate",
    }),
  },
  { $id: "Pool" },
);

const EMPTY_WHITELIST = "11111111111111111111111111111111";

/** Maps a pools row (joined with its bank) to the API shape. */
export function toPoolView(row: PoolRow) {
  // not read since migration 011 added the column: shown as current until the indexer reads the pool again
  const layoutVersion = row.layout_version === null ? ACCOUNT_VERSION.Pool : readNumber(row.layout_version);
  const conditions = parseJson<StoredConditions>(row.conditions);
  const collections = parseJson<StoredCollection[]>(row.collections);
  return {
    pubkey: row.pubkey,
    owner: row.owner,
    seed: row.seed,
    bump: readNumber(row.bump),
    type: row.pool_type as "nft-pool" | "defi-pool",
    status: row.status,
    bank: row.bank,
    currency: row.currency,
    metadata: { name: row.name, thumbnail: row.thumbnail, banks: [row.bank] },
    totalLiquidity: readBigInt(row.total_liquidity).toString(),
    availableLiquidity: readBigInt(row.available_liquidity).toString(),
    delegatedLiquidity: readBigInt(row.delegated_liquidity).toString(),
    borrowedLiquidity: readBigInt(row.borrowed_amount).toString(),
    loanCurve: { apr: readNumber(row.apr_bps) },
    mortgageCurve: { apr: readNumber(row.mortgage_apr_bps) },
    limits: {
      minDuration: readNumber(row.min_duration),
      maxDuration: readNumber(row.max_duration),
      minAmountUsd: readNumber(row.min_amount_usd) / MICRO_USD,
      maxAmountUsd: readNumber(row.max_amount_usd) / MICRO_USD,
    },
    liquidation: { isAutoSellEnabled: row.is_auto_sell_enabled },
    isMortgageEnabled: row.is_mortgage_enabled,
    conditions: {
      isEnabled: conditions.isEnabled,
      minAge: Number(conditions.minAge),
      minLoan: Number(conditions.minLoan),
      minVolume: Number(conditions.minVolume) / MICRO_USD,
      whitelist: conditions.isWhitelistEnabled ? conditions.whitelist : EMPTY_WHITELIST,
    },
    collections: collections.map((c) => ({
      collection: c.collection,
      collectionLtv: c.ltvBps,
      exposure: c.exposureBps,
      borrowedAmount: c.borrowedAmount,
    })),
    totalLoans: readNumber(row.total_loans),
    totalLiquidations: readNumber(row.total_liquidations),
    totalMortgages: readNumber(row.total_mortgages),
    totalInterest: readBigInt(row.total_interest).toString(),
    currentLoan: readNumber(row.current_loans),
    nftLocked: row.pool_type === "nft-pool" ? readNumber(row.current_loans) : 0,
    collectionsUpdatedAt: readNumber(row.collections_updated_at),
    currenciesUpdatedAt: readNumber(row.collections_updated_at),
    lastMortgageAt: readNumber(row.last_mortgage_at),
    createdAt: readNumber(row.created_at),
    updatedAt: readNumber(row.updated_at),
    lastLoanAt: readNumber(row.last_loan_at),
    layoutVersion,
    needsMigration: layoutVersion < ACCOUNT_VERSION.Pool,
  };
}
