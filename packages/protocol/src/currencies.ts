import { type BaseUnits, parseUnits } from "./amounts.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";

/** Wrapped SOL mint. */
export const SOL_MINT = "So11111111111111111111111111111111111111112";
/** USDC mint (mainnet address, also used on localnet). */
export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/**
 * A lending currency. `minAmount`, `minDefiAmount` and `simulationAmount` are in whole units as the
 * spec states them (decimal strings, exact); the `*BaseUnits` fields are the same values in base units.
 */
export interface Currency {
  readonly mint: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  /** Minimum amount for an NFT loan / pool, whole units. */
  readonly minAmount: string;
  /** Minimum amount for a token (defi) loan, whole units. */
  readonly minDefiAmount: string;
  /** Amount used for quote simulations, whole units. */
  readonly simulationAmount: string;
  readonly minAmountBaseUnits: BaseUnits;
  readonly minDefiAmountBaseUnits: BaseUnits;
  readonly simulationAmountBaseUnits: BaseUnits;
}

function defineCurrency(
  fields: Omit<Currency, "minAmountBaseUnits" | "minDefiAmountBaseUnits" | "simulationAmountBaseUnits">,
): Currency {
  return Object.freeze({
    ...fields,
    minAmountBaseUnits: parseUnits(fields.minAmount, fields.decimals),
    minDefiAmountBaseUnits: parseUnits(fields.minDefiAmount, fields.decimals),
    simulationAmountBaseUnits: parseUnits(fields.simulationAmount, fields.decimals),
  });
}

/** The currency table, keyed by mint. Both currencies are live. */
export const CURRENCIES: Readonly<Record<string, Currency>> = Object.freeze({
  [SOL_MINT]: defineCurrency({
    mint: SOL_MINT,
    symbol: "SOL",
    name: "Solana",
    decimals: 9,
    minAmount: "10",
    minDefiAmount: "0.01",
    simulationAmount: "60",
  }),
  [USDC_MINT]: defineCurrency({
    mint: USDC_MINT,
    symbol: "USDC",
    name: "USD Coin",
    decimals: 6,
    minAmount: "20",
    minDefiAmount: "0.1",
    simulationAmount: "1000",
  }),
});

/** The currency of a mint, or undefined when Cistern does not lend it. */
export function getCurrencyByMint(mint: string): Currency | undefined {
  return Object.hasOwn(CURRENCIES, mint) ? CURRENCIES[mint] : undefined;
}

/** The currency of a mint; throws CisternError UNKNOWN_CURRENCY (1005) when not in the table. */
export function requireCurrencyByMint(mint: string): Currency {
  const currency = getCurrencyByMint(mint);
  if (!currency) throw new CisternError(ERROR_CODES.UNKNOWN_CURRENCY, { mint });
  return currency;
}

/** All currencies, SOL first. */
export function listCurrencies(): Currency[] {
  return Object.values(CURRENCIES);
}
