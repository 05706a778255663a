/**
 * Prices and conversions in the one unit offers are compared in: micro-USD (1 USD = 1_000_000) per
 * whole token, truncated, as the oracle attests them. Conversions round down, so collateral is never
 * valued above what its price says.
 */
import { floorDiv, parseUnitsFloor } from "./amounts.ts";

/** Decimals of a micro-USD figure. */
export const MICRO_USD_DECIMALS = 6;

/** A USD price ("152.345678912" or a number) as micro-USD per whole token, truncated; null when invalid. */
export function parsePriceMicroUsd(price: string | number): bigint | null {
  try {
    return parseUnitsFloor(price, MICRO_USD_DECIMALS);
  } catch {
    return null;
  }
}

/** `amount` base units of one token in base units of another at micro-USD prices, rounded down. */
export function convertAtPrices(input: {
  amount: bigint;
  fromDecimals: number;
  fromPriceMicroUsd: bigint;
  toDecimals: number;
  toPriceMicroUsd: bigint;
}): bigint | null {
  if (input.toPriceMicroUsd <= 0n) return null;
  return floorDiv(
    input.amount * input.fromPriceMicroUsd * 10n ** BigInt(input.toDecimals),
    10n ** BigInt(input.fromDecimals) * input.toPriceMicroUsd,
  );
}
