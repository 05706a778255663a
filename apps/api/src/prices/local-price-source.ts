import { createHash } from "node:crypto";
import { formatUsdNanos, type PriceSource, parseUsdNanos, type UsdPrice } from "./price-source.ts";

/** Largest drift away from the seeded price: 100 bps = 1%. */
export const LOCAL_PRICE_DRIFT_MAX_BPS = 100n;
/** One full drift cycle lasts this many seconds. */
export const LOCAL_PRICE_DRIFT_PERIOD_SECONDS = 3600;

export interface SeededPrice {
  mint: string;
  /** Seeded USD price of one whole token, decimal string. */
  priceUsd: string;
}

/**
 * Drift of `mint` at `nowSeconds` in basis points, in [-100, 100]: a triangle wave over the period,
 * phase-shifted per mint (sha256), so equal inputs always give equal prices.
 */
export function getLocalDriftBps(mint: string, nowSeconds: number): bigint {
  const phase = createHash("sha256").update(mint).digest().readUInt32BE(0) % LOCAL_PRICE_DRIFT_PERIOD_SECONDS;
  const t = (Math.floor(nowSeconds) + phase) % LOCAL_PRICE_DRIFT_PERIOD_SECONDS;
  const quarter = LOCAL_PRICE_DRIFT_PERIOD_SECONDS / 4;
  // Triangle: 0 -> +max at 1/4, back to 0 at 1/2, -max at 3/4, 0 at the end.
  const position = t < quarter ? t : t < 3 * quarter ? 2 * quarter - t : t - 4 * quarter;
  return (BigInt(Math.round(position)) * LOCAL_PRICE_DRIFT_MAX_BPS) / BigInt(quarter);
}

/**
 * The embedded-default price source: the demo world's seeded prices with a small deterministic drift.
 * `seeds` is read lazily (the demo world may only be reachable once the localnet is up).
 */
export function createLocalPriceSource(
  seeds: () => Promise<readonly SeededPrice[]>,
  now: () => number = () => Date.now() / 1000,
): PriceSource {
  return {
    name: "local",
    async fetchPrices(mints) {
      const wanted = new Set(mints);
      const prices = new Map<string, UsdPrice>();
      const seconds = now();
      for (const seed of await seeds()) {
        if (wanted.size > 0 && !wanted.has(seed.mint)) continue;
        const base = parseUsdNanos(seed.priceUsd);
        // Round toward zero: a drifted price is a display figure, never a debt.
        const drifted = base + (base * getLocalDriftBps(seed.mint, seconds)) / 10_000n;
        prices.set(seed.mint, formatUsdNanos(drifted));
      }
      return prices;
    },
  };
}
