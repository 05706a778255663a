/**
 * Parsed pool -> pool form view (spec section 3 "Pool (form view)"), the starting point for
 * editing a pool. The inverse of the payload scaling: basis points / 100 -> percent, seconds ->
 * days, base units -> whole-unit decimal strings.
 */
import { formatUnits } from "./amounts.ts";
import { EMPTY_WHITELIST_ADDRESS, RATE_SCALE, SECONDS_PER_DAY } from "./constants.ts";
import { getCurrencyByMint } from "./currencies.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";
import type { ParsedPool } from "./parse-pool.ts";
import type { PoolForm, PoolFormCollateral } from "./pool-payload.ts";

/** Pool form view with the display-only fields filled. */
export interface PoolFormView extends PoolForm {
  pubkey: string;
  poolName: string;
  poolAmount: string;
  borrowedAmount: string;
  poolImage: string;
  apy: number;
  loanDuration: number;
  /** Borrowed / total liquidity, percent (0 when the pool is empty). */
  utilisationRate: number;
  collections: PoolFormCollateral[];
  tokens: PoolFormCollateral[];
}

/** Utilisation in percent: borrowed * 100 / total (0 for an empty pool). */
export function computeUtilisationPercent(borrowed: bigint, total: bigint): number {
  if (total <= 0n) return 0;
  // two decimals of percent, rounded down: borrowed * 10000 / total, then / 100
  return Number((borrowed * 10_000n) / total) / 100;
}

/**
 * Form view of a parsed pool. `decimals` defaults to the currency table's entry for the pool's
 * currency (CisternError UNKNOWN_CURRENCY otherwise).
 */
export function getPoolFormFromPool(pool: ParsedPool, options: { decimals?: number } = {}): PoolFormView {
  const decimals = options.decimals ?? getCurrencyByMint(pool.currency)?.decimals;
  if (decimals === undefined) throw new CisternError(ERROR_CODES.UNKNOWN_CURRENCY, { mint: pool.currency });
  const collateral = pool.collections.map((c) => ({
    id: c.collection,
    ltv: c.collectionLtv / RATE_SCALE,
    exposure: c.exposure / RATE_SCALE,
  }));
  const whitelist = pool.conditions.whitelist;
  const isPrivate = whitelist !== "" && whitelist !== EMPTY_WHITELIST_ADDRESS;
  return {
    owner: pool.owner,
    pubkey: pool.pubkey,
    type: pool.type,
    bank: pool.bank,
    poolName: pool.metadata.name,
    poolCurrency: pool.currency,
    poolAmount: formatUnits(pool.totalLiquidity, decimals),
    borrowedAmount: formatUnits(pool.borrowedLiquidity, decimals),
    poolImage: pool.metadata.thumbnail,
    apy: pool.loanCurve.apr / RATE_SCALE,
    loanDuration: pool.limits.maxDuration / SECONDS_PER_DAY,
    utilisationRate: computeUtilisationPercent(pool.borrowedLiquidity, pool.totalLiquidity),
    ...(pool.type === "nft-pool"
      ? { isMortgageEnabled: pool.isMortgageEnabled, mortgageApy: pool.mortgageCurve.apr / RATE_SCALE }
      : {}),
    isAutoSellEnabled: pool.isAutoSellEnabled,
    isCompoundInterestEnabled: pool.isCompoundingEnabled,
    maxAmountUsd: pool.limits.maxAmountUsd,
    minAmountUsd: pool.limits.minAmountUsd,
    withConditions: pool.conditions.isEnabled,
    minAge: pool.conditions.minAge / SECONDS_PER_DAY,
    minLoan: pool.conditions.minLoan,
    minVolume: pool.conditions.minVolume,
    liquidationThreshold: pool.conditions.liquidationThreshold / RATE_SCALE,
    isPrivateLoanEnabled: isPrivate,
    lookupTable: isPrivate ? whitelist : EMPTY_WHITELIST_ADDRESS,
    lookupTableAddresses: [],
    collections: pool.type === "nft-pool" ? collateral : [],
    tokens: pool.type === "defi-pool" ? collateral : [],
  };
}
