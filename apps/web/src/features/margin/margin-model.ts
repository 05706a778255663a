import type { ParsedPool } from "@cistern/protocol";

/** One pool's margin terms from `POST /defi/multi-quote` in mode margin (base units as bigint). */
export interface MarginOffer {
  pool: string;
  currency: string;
  aprBps: number;
  /** The largest leverage this pool lends for the down payment (after price impact and slippage). */
  leverage: number;
  /** What the pool's LTV allows at the spot price: 1 / (1 - LTV). */
  maxLeverage: number;
  downPayment: bigint;
  /** Principal at `leverage`, the most the pool lends for this down payment. */
  principal: bigint;
  expectedCollateral: bigint;
  minimumCollateral: bigint;
  priceImpactPct: number;
  slippageBps: number;
}

/** Parses the multi-quote's `margins`. */
export function parseMarginOffers(body: unknown): MarginOffer[] {
  const margins = ((body ?? {}) as { margins?: Record<string, unknown>[] }).margins ?? [];
  return margins.map((m) => ({
    pool: String(m.pool),
    currency: String(m.currency),
    aprBps: Number(m.apr),
    leverage: Number(m.leverage),
    maxLeverage: Number(m.maxLeverage),
    downPayment: BigInt(String(m.downPayment)),
    principal: BigInt(String(m.principal)),
    expectedCollateral: BigInt(String(m.expectedCollateral)),
    minimumCollateral: BigInt(String(m.minimumCollateral)),
    priceImpactPct: Number(m.priceImpactPct),
    slippageBps: Number(m.slippageBps),
  }));
}

/** Leverage steps of the slider, in hundredths (1.05x = 105). */
export const LEVERAGE_STEP = 5;
export const MIN_LEVERAGE = 100 + LEVERAGE_STEP;

/** The slider's top: the offer's leverage in hundredths, rounded down to a step (never above what it lends). */
export function getTopLeverage(offer: MarginOffer): number {
  const hundredths = Math.floor(offer.leverage * 100);
  return Math.max(MIN_LEVERAGE, hundredths - (hundredths % LEVERAGE_STEP));
}

/**
 * Principal borrowed at a leverage (hundredths): down payment × (leverage − 1), rounded down, and never more
 * than the offer lends; the slider's top lends exactly the offer's principal.
 */
export function getPrincipalAtLeverage(offer: MarginOffer, leverageHundredths: number): bigint {
  if (leverageHundredths >= getTopLeverage(offer)) return offer.principal;
  const principal = (offer.downPayment * BigInt(leverageHundredths - 100)) / 100n;
  return principal < offer.principal ? principal : offer.principal;
}

/** Tokens a margin position can buy: the collateral tokens of open defi-pools, with the currencies that lend on each. */
export function getMarginMarkets(pools: readonly ParsedPool[]): Map<string, Set<string>> {
  const markets = new Map<string, Set<string>>();
  for (const pool of pools) {
    if (pool.type !== "defi-pool" || pool.status.toLowerCase() !== "open") continue;
    for (const c of pool.collections) {
      if (c.collectionLtv <= 0) continue;
      const currencies = markets.get(c.collection) ?? new Set<string>();
      currencies.add(pool.currency);
      markets.set(c.collection, currencies);
    }
  }
  return markets;
}

/** Durations offered (days) within the longest the pools lend for (seconds). */
export function getMarginDurations(maxDurationSeconds: number): number[] {
  return [1, 3, 7, 14, 30].filter((d) => d * 86_400 <= maxDurationSeconds);
}

/**
 * The pool a margin position at `leverage` (hundredths) uses when the user has not chosen one: the cheapest (lowest
 * APR) among the pools that lend that much, the larger leverage on a tie; when none lends that much, the one that
 * lends the most. Undefined without offers.
 */
export function getCheapestMarginOffer(
  offers: readonly MarginOffer[],
  leverage: number,
): MarginOffer | undefined {
  const able = offers.filter((o) => getTopLeverage(o) >= leverage);
  const from =
    able.length > 0 ? able : [...offers].sort((a, b) => getTopLeverage(b) - getTopLeverage(a)).slice(0, 1);
  return [...from].sort((a, b) => a.aprBps - b.aprBps || getTopLeverage(b) - getTopLeverage(a))[0];
}

/** The slider's top over several pools: the most any of them lends (hundredths). */
export function getTopLeverageOf(offers: readonly MarginOffer[]): number {
  return Math.max(MIN_LEVERAGE, ...offers.map(getTopLeverage));
}
