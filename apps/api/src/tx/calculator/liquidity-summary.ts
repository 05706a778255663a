import { ACCOUNT_VERSION, type PoolType } from "@cistern/sdk";
import { type Static, Type } from "@sinclair/typebox";
import type { AppContext } from "../../app-context.ts";
import { getValuation } from "../../catalog/token-info.ts";
import { Pubkey } from "../../http/schemas.ts";
import { POOL_COLUMNS, POOL_FROM, type PoolRow, toPoolView } from "../../pools/pool-view.ts";
import { getUsdValue } from "../../prices/usd-value.ts";

/** Pools of this many of the largest banks are listed in `largestPools`. */
export const LARGEST_BANK_COUNT = 3;

/** The utilisation ratio is given to this many decimal places (scaled by 10^6), rounded down. */
const RATIO_SCALE = 1_000_000n;

/** The spec's "Liquidity summary per currency", with the currency it is about. */
export const LiquiditySummarySchema = Type.Object({
  currency: Pubkey,
  totalPools: Type.Integer({
    description: "open pools lending the currency (at the current account layout)",
  }),
  averageApr: Type.Integer({ description: "mean loan APR of those pools, basis points, rounded up" }),
  medianApr: Type.Integer({
    description: "median loan APR, basis points (an even count takes the mean of the middle two, rounded up)",
  }),
  availableLiquidity: Type.String({
    description:
      "base units a new loan can draw from the distinct banks behind those pools: idle plus delegated liquidity " +
      "(TakeLoan pulls delegated liquidity back from the lending venue); each bank counted once",
  }),
  availableLiquidityUsd: Type.Number({
    description: "availableLiquidity in USD at the current price, rounded down to a micro-dollar (display)",
  }),
  totalBorrowed: Type.String({
    description: "base units those banks have lent out (total - available - delegated)",
  }),
  utilizationRatio: Type.Number({
    description: "totalBorrowed / (totalBorrowed + availableLiquidity), 0..1, six decimals rounded down",
  }),
  mints: Type.Array(Pubkey, {
    description: "distinct collateral the pools accept (token mints or NFT collections), first seen first",
  }),
  pairsSupported: Type.Integer({ description: "number of distinct currency/collateral pairs (= mints)" }),
  largestPools: Type.Array(Type.Ref("Pool"), {
    description: `the pools of the ${LARGEST_BANK_COUNT} largest banks by total liquidity, largest bank first`,
  }),
});

export type LiquiditySummaryView = Static<typeof LiquiditySummarySchema>;

/** Integer mean rounded up (an APR a borrower pays: rounding favours the pool). */
function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/** Mean of basis points, rounded up; 0 for no values. */
export function getAverageAprBps(aprs: readonly number[]): number {
  if (aprs.length === 0) return 0;
  const sum = aprs.reduce((s, a) => s + BigInt(a), 0n);
  return Number(ceilDiv(sum, BigInt(aprs.length)));
}

/** Median of basis points; an even count takes the mean of the middle two, rounded up; 0 for no values. */
export function getMedianAprBps(aprs: readonly number[]): number {
  if (aprs.length === 0) return 0;
  const sorted = [...aprs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid]!;
  return Number(ceilDiv(BigInt(sorted[mid - 1]!) + BigInt(sorted[mid]!), 2n));
}

/** borrowed / (borrowed + available), six decimals, rounded down; 0 when both are 0. */
export function getUtilizationRatio(borrowed: bigint, available: bigint): number {
  const denominator = borrowed + available;
  if (denominator === 0n) return 0;
  return Number((borrowed * RATIO_SCALE) / denominator) / Number(RATIO_SCALE);
}

interface BankLiquidity {
  total: bigint;
  lendable: bigint;
  borrowed: bigint;
}

/**
 * Summarises the indexed pools lending `currency` (Open, at the current account layout: a pool waiting for
 * Migrate lends nothing), of `poolType` when given. Liquidity is that of the distinct banks behind them, in base
 * units (bigint) end to end.
 */
export function summarizeLiquidity(
  currency: string,
  rows: readonly PoolRow[],
  usd: { decimals: number; priceUsd: string | undefined },
): LiquiditySummaryView {
  const banks = new Map<string, BankLiquidity>();
  const mints: string[] = [];
  const seenMints = new Set<string>();
  const views = rows.map(toPoolView);
  for (const view of views) {
    if (!banks.has(view.bank)) {
      const total = BigInt(view.totalLiquidity);
      const available = BigInt(view.availableLiquidity);
      const delegated = BigInt(view.delegatedLiquidity);
      const borrowed = total - available - delegated;
      banks.set(view.bank, {
        total,
        lendable: available + delegated,
        borrowed: borrowed > 0n ? borrowed : 0n,
      });
    }
    for (const c of view.collections) {
      if (seenMints.has(c.collection)) continue;
      seenMints.add(c.collection);
      mints.push(c.collection);
    }
  }
  let availableLiquidity = 0n;
  let totalBorrowed = 0n;
  for (const bank of banks.values()) {
    availableLiquidity += bank.lendable;
    totalBorrowed += bank.borrowed;
  }
  const largestBanks = [...banks.entries()]
    .sort(([ka, a], [kb, b]) => (a.total === b.total ? (ka < kb ? -1 : 1) : a.total > b.total ? -1 : 1))
    .slice(0, LARGEST_BANK_COUNT)
    .map(([key]) => key);
  const aprs = views.map((v) => v.loanCurve.apr);
  return {
    currency,
    totalPools: views.length,
    averageApr: getAverageAprBps(aprs),
    medianApr: getMedianAprBps(aprs),
    availableLiquidity: availableLiquidity.toString(),
    availableLiquidityUsd: getUsdValue(availableLiquidity, usd.decimals, usd.priceUsd),
    totalBorrowed: totalBorrowed.toString(),
    utilizationRatio: getUtilizationRatio(totalBorrowed, availableLiquidity),
    mints,
    pairsSupported: mints.length,
    largestPools: largestBanks.flatMap((bank) => views.filter((v) => v.bank === bank)),
  };
}

/**
 * The liquidity summary of each currency with lending pools (of `poolType` when given), or of `currency` alone
 * (zeros when no open pool lends it), from the indexed pools and banks at current prices.
 */
export async function fetchLiquiditySummaries(
  ctx: AppContext,
  filter: { currency?: string; poolType?: PoolType },
): Promise<LiquiditySummaryView[]> {
  const [rows, valuation] = await Promise.all([
    ctx.db.query<PoolRow>(
      `SELECT ${POOL_COLUMNS} FROM ${POOL_FROM}
       WHERE p.status = 'Open' AND (p.layout_version IS NULL OR p.layout_version >= $1)
         AND ($2::text IS NULL OR p.currency = $2) AND ($3::text IS NULL OR p.pool_type = $3)
       ORDER BY p.created_at, p.pubkey`,
      [ACCOUNT_VERSION.Pool, filter.currency ?? null, filter.poolType ?? null],
    ),
    getValuation(ctx),
  ]);
  const byCurrency = new Map<string, PoolRow[]>();
  if (filter.currency !== undefined) byCurrency.set(filter.currency, []);
  for (const row of rows) {
    const list = byCurrency.get(row.currency) ?? [];
    list.push(row);
    byCurrency.set(row.currency, list);
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, list]) =>
      summarizeLiquidity(currency, list, {
        decimals: valuation.decimals(currency),
        priceUsd: valuation.price(currency),
      }),
    );
}
