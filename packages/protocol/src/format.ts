/**
 * Display formatting (spec sections 5 and 9). Display figures only: never feed them back into
 * money maths.
 */
import { ADDRESS_SHORTEN_CHARS, RATE_SCALE, SECONDS_PER_DAY } from "./constants.ts";

/** APR from the API (percent units x100, i.e. basis points) -> percent for display: value / 100. */
export function getAprPercent(aprFromApi: number): number {
  return aprFromApi / RATE_SCALE;
}

/** Duration in seconds -> days for display: seconds / 86400. */
export function getDurationDays(durationSeconds: number): number {
  return durationSeconds / SECONDS_PER_DAY;
}

const SI_UNITS = [
  { value: 1e18, symbol: "E" },
  { value: 1e15, symbol: "P" },
  { value: 1e12, symbol: "T" },
  { value: 1e9, symbol: "G" },
  { value: 1e6, symbol: "M" },
  { value: 1e3, symbol: "k" },
] as const;

function trimZeros(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/**
 * Abbreviate with SI suffixes k, M, G, T, P, E and `digits` decimals (trailing zeros dropped):
 * 1234 -> "1.2k", 2_500_000 -> "2.5M". Below 1000 the number keeps `digits` decimals.
 */
export function formatNumber(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return String(value);
  const sign = value < 0 ? "-" : "";
  const abs = Math.abs(value);
  const unit = SI_UNITS.find((u) => abs >= u.value);
  if (!unit) return sign + trimZeros(abs.toFixed(digits));
  return `${sign}${trimZeros((abs / unit.value).toFixed(digits))}${unit.symbol}`;
}

/**
 * Abbreviate large values with B (billions) and M (millions), 2 decimals; smaller values are
 * grouped with commas: 1_500_000_000 -> "1.5B", 2_340_000 -> "2.34M", 12_345.6 -> "12,345.6".
 */
export function formatLargeNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const sign = value < 0 ? "-" : "";
  if (abs >= 1e9) return `${sign}${trimZeros((abs / 1e9).toFixed(2))}B`;
  if (abs >= 1e6) return `${sign}${trimZeros((abs / 1e6).toFixed(2))}M`;
  return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

/**
 * Number with decimals chosen by size: 0 decimals at 10000 and above, up to 8 decimals at 0.1 and
 * below, otherwise up to 2. Grouped with commas (en-US). Sizes compare the absolute value.
 */
export function formatNumber2(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const maximumFractionDigits = abs >= 10_000 ? 0 : abs <= 0.1 ? 8 : 2;
  return value.toLocaleString("en-US", { maximumFractionDigits, minimumFractionDigits: 0 });
}

const TIME_UNITS = [
  { seconds: 365 * SECONDS_PER_DAY, name: "year" },
  { seconds: 30 * SECONDS_PER_DAY, name: "month" },
  { seconds: SECONDS_PER_DAY, name: "day" },
  { seconds: 3600, name: "hour" },
  { seconds: 60, name: "minute" },
] as const;

/**
 * How long ago `thenSeconds` was at `nowSeconds` (epoch seconds): "less than a minute ago",
 * "1 minute ago", "5 hours ago", "3 days ago", "2 months ago" (30-day months), "1 year ago"
 * (365-day years). Future instants count as "less than a minute ago".
 */
export function formatTimeAgo(thenSeconds: number, nowSeconds: number): string {
  const elapsed = Math.max(0, nowSeconds - thenSeconds);
  for (const unit of TIME_UNITS) {
    if (elapsed >= unit.seconds) {
      const count = Math.floor(elapsed / unit.seconds);
      return `${count} ${unit.name}${count === 1 ? "" : "s"} ago`;
    }
  }
  return "less than a minute ago";
}

/** "AbCd...WxYz": first and last 4 characters; short texts are returned as is. */
export function shortenAddress(address: string, chars = ADDRESS_SHORTEN_CHARS): string {
  if (address.length <= chars * 2 + 3) return address;
  return `${address.slice(0, chars)}...${address.slice(-chars)}`;
}
