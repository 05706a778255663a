/**
 * Display texts of amounts, rates, durations and dates: what the web shows and the chat's system messages say,
 * from one place. Display only: never feed them back into money maths.
 */

import { formatUnits } from "./amounts.ts";
import { SECONDS_PER_DAY } from "./constants.ts";
import { getCurrencyByMint } from "./currencies.ts";
import { getAprPercent } from "./format.ts";

/**
 * How an amount is shown: cut toward zero (what one holds, receives or may withdraw), or rounded up (what one
 * must pay), so a shown payment is never less than the chain will take.
 */
export type Rounding = "down" | "up";

/**
 * Base units -> display text by the spec's formatNumber2 rule, exactly (bigint maths): 0 decimals at 10,000
 * and above, up to 8 decimals at 0.1 and below, otherwise up to 2 (4 for a payment, rounded up); thousands
 * separated by commas, trailing zeros dropped; from a million on, M and B with 2 decimals. "1,234.56",
 * "0.00012345", "12,346", "2.34M", "1.5B".
 */
export function formatAmount(amount: bigint, decimals: number, rounding: Rounding = "down"): string {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const unit = 10n ** BigInt(decimals);
  // the spec's large values: M from a million, B from a billion, 2 decimals ("1.5B BONK", "2.34M USDC")
  for (const [scale, suffix] of [
    [1_000_000_000n, "B"],
    [1_000_000n, "M"],
  ] as const) {
    if (abs < scale * unit) continue;
    const step = (scale * unit) / 100n;
    const hundredths = rounding === "up" ? (abs + step - 1n) / step : abs / step;
    const text = `${(hundredths / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${(hundredths % 100n).toString().padStart(2, "0")}`;
    return `${negative ? "-" : ""}${text.replace(/\.?0+$/, "")}${suffix}`;
  }
  // a payment keeps 4 decimals in the middle band, so rounding it up never overstates it by more than 0.0001
  const shown = abs >= 10_000n * unit ? 0 : abs * 10n <= unit ? 8 : rounding === "up" ? 4 : 2;
  const keep = Math.min(shown, decimals);
  const step = 10n ** BigInt(decimals - keep);
  const kept = rounding === "up" ? (abs + step - 1n) / step : abs / step;
  const exact = formatUnits(kept, keep);
  const [whole = "0", fraction = ""] = exact.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const cut = fraction.replace(/0+$/, "");
  return `${negative ? "-" : ""}${grouped}${cut ? `.${cut}` : ""}`;
}

/** Amount of a lending currency with its symbol: "12.5 SOL" (see {@link formatAmount}). */
export function formatMoney(amount: bigint, mint: string, rounding: Rounding = "down"): string {
  const currency = getCurrencyByMint(mint);
  if (!currency) return `${amount.toString()} units`;
  return `${formatAmount(amount, currency.decimals, rounding)} ${currency.symbol}`;
}

/** Basis points -> "12.5%". */
export function formatBps(bps: number): string {
  return `${Number(getAprPercent(bps).toFixed(2))}%`;
}

/** Seconds -> "3d 4h", "5h 12m", "42m" (non-negative). */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const days = Math.floor(s / SECONDS_PER_DAY);
  const hours = Math.floor((s % SECONDS_PER_DAY) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (days > 0) return hours > 0 ? `${days}d ${hours}h` : `${days}d`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  return `${minutes}m`;
}

/** Epoch seconds -> "21 Nov 2026, 14:05" (UTC, so every user reads the same instant). */
export function formatDateTime(epochSeconds: number): string {
  if (!epochSeconds) return "—";
  return `${new Date(epochSeconds * 1000).toLocaleString("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
  })} UTC`;
}
