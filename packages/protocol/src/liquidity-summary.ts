/**
 * Liquidity summary per currency (spec section 3 "Liquidity summary per currency").
 */
import { formatUnits } from "./amounts.ts";
import type { Bank } from "./parse-bank.ts";
import type { ParsedPool } from "./parse-pool.ts";

/** Summary of one lending currency across pools. */
export interface LiquiditySummary {
  /** Currency mint. */
  currency: string;
  totalPools: number;
  /** Mean loan APR of the pools, basis points (exact, may be fractional; 0 without pools). */
  averageApr: number;
  /** Median loan APR, basis points (mean of the two middle values for an even count). */
  medianApr: number;
  /** Lendable liquidity of the distinct banks behind the pools, base units. */
  availableLiquidity: bigint;
  /** availableLiquidity in USD at `priceUsd` (display figure). */
  availableLiquidityUsd: number;
  /** Lent out by those banks, base units. */
  totalBorrowed: bigint;
  /** totalBorrowed / (totalBorrowed + availableLiquidity), 0..1 (0 when both are 0). */
  utilizationRatio: number;
  /** Distinct collateral ids (collections or token mints) accepted, in first-seen order. */
  mints: string[];
  /** Number of distinct collateral ids (currency/collateral pairs). */
  pairsSupported: number;
  /** Pools of the largest banks (by total liquidity, largest first). */
  largestPools: ParsedPool[];
}

/** Options of {@link computeLiquiditySummary}. */
export interface LiquiditySummaryOptions {
  currency: string;
  decimals: number;
  /** USD price of one whole unit of the currency. */
  priceUsd: number;
  /** How many of the largest banks to take pools from (default 3). */
  largestBankCount?: number;
}

/** Median of numbers (0 for an empty list). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Summarise the pools lending `currency`. Liquidity comes from the banks behind those pools, each
 * bank counted once (several pools can share a bank); a pool whose bank is not in `banks` uses its
 * own liquidity figures.
 */
export function computeLiquiditySummary(
  pools: readonly ParsedPool[],
  banks: readonly Bank[],
  options: LiquiditySummaryOptions,
): LiquiditySummary {
  const currencyPools = pools.filter((p) => p.currency === options.currency);
  const bankByKey = new Map(banks.map((b) => [b.pubkey, b]));
  const liquidityByBank = new Map<string, { total: bigint; available: bigint; borrowed: bigint }>();
  for (const pool of currencyPools) {
    if (liquidityByBank.has(pool.bank)) continue;
    const bank = bankByKey.get(pool.bank);
    liquidityByBank.set(
      pool.bank,
      bank
        ? { total: bank.totalLiquidity, available: bank.availableLiquidity, borrowed: bank.borrowedLiquidity }
        : {
            total: pool.totalLiquidity,
            available: pool.availableLiquidity,
            borrowed: pool.borrowedLiquidity,
          },
    );
  }
  let availableLiquidity = 0n;
  let totalBorrowed = 0n;
  for (const l of liquidityByBank.values()) {
    availableLiquidity += l.available;
    totalBorrowed += l.borrowed;
  }
  const aprs = currencyPools.map((p) => p.loanCurve.apr);
  const mints: string[] = [];
  for (const pool of currencyPools) {
    for (const c of pool.collections) if (!mints.includes(c.collection)) mints.push(c.collection);
  }
  const denominator = totalBorrowed + availableLiquidity;
  const largestBanks = [...liquidityByBank.entries()]
    .sort(([, a], [, b]) => (a.total === b.total ? 0 : a.total > b.total ? -1 : 1))
    .slice(0, options.largestBankCount ?? 3)
    .map(([key]) => key);
  return {
    currency: options.currency,
    totalPools: currencyPools.length,
    averageApr: aprs.length === 0 ? 0 : aprs.reduce((s, a) => s + a, 0) / aprs.length,
    medianApr: median(aprs),
    availableLiquidity,
    availableLiquidityUsd: Number(formatUnits(availableLiquidity, options.decimals)) * options.priceUsd,
    totalBorrowed,
    // ratio of two bigints with 6 significant decimals, rounded down
    utilizationRatio: denominator === 0n ? 0 : Number((totalBorrowed * 1_000_000n) / denominator) / 1_000_000,
    mints,
    pairsSupported: mints.length,
    largestPools: largestBanks.flatMap((bank) => currencyPools.filter((p) => p.bank === bank)),
  };
}
