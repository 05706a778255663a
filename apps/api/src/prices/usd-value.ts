import { parseUsdNanos } from "./price-source.ts";

/**
 * USD value (display figure, rounded down to a micro-dollar) of `amountBaseUnits` of a token with
 * `decimals`, at `priceUsd` per whole token. Unknown price -> 0.
 */
export function getUsdValue(amountBaseUnits: bigint, decimals: number, priceUsd: string | undefined): number {
  if (priceUsd === undefined) return 0;
  const nanos = (amountBaseUnits * parseUsdNanos(priceUsd)) / 10n ** BigInt(decimals);
  return Number(nanos / 1000n) / 1_000_000;
}
