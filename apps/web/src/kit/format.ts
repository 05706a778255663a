import { formatUnits, getCurrencyByMint, parseUnits, shortenAddress } from "@cistern/protocol";

// The display formatters live in protocol (the API's chat messages use them too); the web imports them here.
export {
  formatAmount,
  formatBps,
  formatDateTime,
  formatDuration,
  formatMoney,
  type Rounding,
} from "@cistern/protocol";

/** Symbol of a mint: the currency table's, else the catalogue's, else a shortened address. */
export function symbolOf(mint: string, catalogue?: Record<string, { symbol: string }>): string {
  return getCurrencyByMint(mint)?.symbol ?? catalogue?.[mint]?.symbol ?? shortenAddress(mint);
}

/** Decimals of a lending currency (9 for unknown mints is never assumed: callers pass known ones). */
export function decimalsOf(mint: string, fallback?: number): number {
  const decimals = getCurrencyByMint(mint)?.decimals ?? fallback;
  if (decimals === undefined) throw new Error(`Unknown currency ${mint}`);
  return decimals;
}

/** USD display: "$1,234.56". */
export function formatUsd(value: number): string {
  if (!Number.isFinite(value)) return "—";
  return value.toLocaleString("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 2 });
}

/**
 * Reads an amount typed by the user into base units: null while empty; otherwise the amount, or the one
 * sentence that says what is wrong (negative, too many decimals or not a number, zero).
 */
export function parseAmountInput(text: string, decimals: number): { amount: bigint | null; error: string } {
  const value = text.trim();
  if (value === "") return { amount: null, error: "" };
  if (value.startsWith("-")) return { amount: null, error: "The amount must be positive." };
  let amount: bigint;
  try {
    amount = parseUnits(value, decimals);
  } catch {
    return { amount: null, error: `Enter a number with at most ${decimals} decimals.` };
  }
  if (amount === 0n) return { amount: null, error: "The amount must be greater than zero." };
  return { amount, error: "" };
}

/** Slippage a user may choose for a trade on the swap venue, basis points (the spec's default is 100). */
export const SLIPPAGE_CHOICES_BPS = [50, 100, 300] as const;

/** "≈ $12.34": an amount's USD value at a price (decimal string); "" when the price is unknown. */
export function formatUsdValue(amount: bigint, decimals: number, price: string | undefined): string {
  return price === undefined ? "" : `≈ ${formatUsd(Number(formatUnits(amount, decimals)) * Number(price))}`;
}
