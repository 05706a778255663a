/**
 * Pool form -> transaction-builder payloads (spec section 5 "Pool form to payload" and section 7
 * "Pool creation payload" / "Pool update payload").
 *
 * Scaling uses decimal string maths (never float multiplication): `x100 floored` is
 * `floor(x * 100)` computed on the decimal digits of x, so 0.29 -> 29, not 28.
 */
import { parseUnitsFloor, toPlainDecimalString } from "./amounts.ts";
import {
  AUTO_SELL_LOAN_LIQUIDATION,
  AUTO_SELL_MORTGAGE_LIQUIDATION,
  DEFAULT_MIN_AMOUNT_USD,
  EMPTY_WHITELIST_ADDRESS,
  LIQUIDATION_THRESHOLD_CAP_BPS,
  MIN_LOAN_DURATION_SECONDS,
  SECONDS_PER_DAY,
} from "./constants.ts";
import { getCurrencyByMint } from "./currencies.ts";
import { CisternError, ERROR_CODES, isCisternError } from "./errors.ts";

/** Pool types. */
export const POOL_TYPES = ["defi-pool", "nft-pool"] as const;
/** `defi-pool` (token collateral) or `nft-pool` (NFT collateral). */
export type PoolType = (typeof POOL_TYPES)[number];

/** True for a known pool type. */
export function isPoolType(value: unknown): value is PoolType {
  return value === "defi-pool" || value === "nft-pool";
}

/** The pool type, or CisternError UNKNOWN_POOL_TYPE (3000) 'Unknown pool type'. */
export function assertPoolType(value: unknown): PoolType {
  if (!isPoolType(value)) throw new CisternError(ERROR_CODES.UNKNOWN_POOL_TYPE);
  return value;
}

/** A number typed into a form: a number, a numeric string, or empty. */
export type FormNumber = number | string | null | undefined;

/** One collateral entry of the form: a collection (nft-pool) or a token mint (defi-pool). Percent units. */
export interface PoolFormCollateral {
  /** Collection id (collection mint) or token mint. */
  id: string;
  /** Loan-to-value, percent (50 = 50%). */
  ltv: FormNumber;
  /** Share of the pool one collateral may use, percent. */
  exposure: FormNumber;
}

/** Pool (form view), spec section 3. Percentages are percent units; durations are days. */
export interface PoolForm {
  owner: string;
  /** Pool address (update only). */
  pubkey?: string;
  type: string;
  /** Bank address. */
  bank: string;
  poolName?: string;
  /** Currency mint. */
  poolCurrency: string;
  /** Whole units of the currency put in the pool (creation). */
  poolAmount?: FormNumber;
  borrowedAmount?: FormNumber;
  poolImage?: string;
  /** Yearly rate, percent. */
  apy: FormNumber;
  /** Maximum loan duration, days. */
  loanDuration: FormNumber;
  utilisationRate?: FormNumber;
  /** nft-pool only. */
  isMortgageEnabled?: boolean;
  /** nft-pool only: yearly rate of the pool's mortgages, percent; the loan rate (apy) when empty. */
  mortgageApy?: FormNumber;
  isAutoSellEnabled?: boolean;
  isCompoundInterestEnabled?: boolean;
  maxAmountUsd: FormNumber;
  /** Defaults to 10 when empty. */
  minAmountUsd?: FormNumber;
  withConditions?: boolean;
  /** Minimum wallet age, days. */
  minAge?: FormNumber;
  minLoan?: FormNumber;
  minVolume?: FormNumber;
  /** Percent. */
  liquidationThreshold?: FormNumber;
  isPrivateLoanEnabled?: boolean;
  /** Whitelist (lookup table) address. */
  lookupTable?: string;
  lookupTableAddresses?: string[];
  /** nft-pool collateral. */
  collections?: PoolFormCollateral[];
  /** defi-pool collateral. */
  tokens?: PoolFormCollateral[];
}

/** Loan limits of a payload: durations in seconds, USD amounts in whole dollars. */
export interface PoolLimitsPayload {
  minDuration: number;
  maxDuration: number;
  maxAmountUsd: number;
  minAmountUsd: number;
}

export interface CollectionPayloadEntry {
  collection: string;
  collectionLtv: number;
  exposure: number;
}

export interface CurrencyPayloadEntry {
  currency: string;
  currencyLtv: number;
  exposure: number;
}

/** POST /nft/create-pool or /defi/create-pool body (before referrer and options are added). */
export interface PoolCreationPayload {
  bank: string;
  owner: string;
  /** poolAmount x 10^decimals, floored, as a decimal string of base units. */
  amount: string;
  mint: string;
  param: {
    apr: number;
    limits: PoolLimitsPayload;
    collections?: CollectionPayloadEntry[];
    currencies?: CurrencyPayloadEntry[];
  };
}

export interface PoolConditionsPayload {
  /** Seconds. */
  minAge: string;
  minLoan: string;
  minVolume: string;
  /** Basis points, 0..10000. */
  liquidationThreshold: number;
  isEnabled: 0 | 1;
  isWhitelistEnabled: 0 | 1;
  whitelist: string;
  whitelistAddresses: string[];
}

export interface PoolLiquidationPayload {
  isAutoSellEnabled: boolean;
  loanLiquidation: number;
  mortgageLiquidation: number;
}

/** POST /nft/update-pool or /defi/update-pool body (before referrer and options are added). */
export interface PoolUpdatePayload {
  pool: string;
  owner: string;
  enableAutoSell?: true;
  disableAutoSell?: true;
  enableMortgage?: true;
  disableMortgage?: true;
  param: {
    apr: number;
    loanApr: number;
    mortgageApr?: number;
    limits: PoolLimitsPayload;
    conditions: PoolConditionsPayload;
    liquidation: PoolLiquidationPayload;
    collections?: CollectionPayloadEntry[];
    currencies?: CurrencyPayloadEntry[];
  };
}

function isEmpty(value: FormNumber): value is null | undefined | "" {
  return value === null || value === undefined || (typeof value === "string" && value.trim() === "");
}

function invalid(field: string, reason: string): CisternError {
  return new CisternError(ERROR_CODES.INVALID_POOL_FORM_FIELD, { field, reason });
}

/** The exact decimal text of a form number; throws INVALID_POOL_FORM_FIELD for junk or negatives. */
function decimalText(field: string, value: FormNumber): string {
  if (isEmpty(value)) throw invalid(field, "is required");
  try {
    return toPlainDecimalString(value);
  } catch (e) {
    if (isCisternError(e, ERROR_CODES.AMOUNT_NEGATIVE)) throw invalid(field, "must not be negative");
    throw invalid(field, `is not a number (${String(value)})`);
  }
}

/** floor(value * 10^digits) with string maths, as a safe integer number. */
function scaleFloor(field: string, value: FormNumber, digits: number): number {
  const scaled = parseUnitsFloor(decimalText(field, value), digits);
  if (scaled > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid(field, "is too large");
  return Number(scaled);
}

/** Percent -> basis points, floored: `floor(x * 100)` (apy, ltv, exposure). */
export function percentToBpsFloor(value: FormNumber, field = "value"): number {
  return scaleFloor(field, value, 2);
}

/**
 * Liquidation threshold: percent x100 floored, capped at 10000; 0 when empty or not positive
 * (negative input is accepted and becomes 0).
 */
export function toLiquidationThresholdBps(value: FormNumber): number {
  if (isEmpty(value)) return 0;
  let text: string;
  try {
    text = toPlainDecimalString(value);
  } catch (e) {
    if (isCisternError(e, ERROR_CODES.AMOUNT_NEGATIVE)) return 0;
    throw invalid("liquidationThreshold", `is not a number (${String(value)})`);
  }
  const [whole = "0", fraction = ""] = text.split(".");
  const bps = BigInt(whole + fraction.padEnd(2, "0").slice(0, 2));
  return bps > BigInt(LIQUIDATION_THRESHOLD_CAP_BPS) ? LIQUIDATION_THRESHOLD_CAP_BPS : Number(bps);
}

/** Minimum USD amount: the form value as is, or 10 when empty. */
function minAmountUsd(form: PoolForm): number {
  if (isEmpty(form.minAmountUsd)) return DEFAULT_MIN_AMOUNT_USD;
  return Number(decimalText("minAmountUsd", form.minAmountUsd));
}

/** Limits: min duration fixed at 1 day; max = loanDuration days in seconds (floored); USD limits. */
export function getPoolLimits(form: PoolForm): PoolLimitsPayload {
  const maxDuration = scaleDays("loanDuration", form.loanDuration);
  if (maxDuration < MIN_LOAN_DURATION_SECONDS) throw invalid("loanDuration", "must be at least 1 day");
  const maxUsd = Number(decimalText("maxAmountUsd", form.maxAmountUsd));
  const minUsd = minAmountUsd(form);
  if (minUsd > maxUsd) throw invalid("minAmountUsd", "must not exceed maxAmountUsd");
  return { minDuration: MIN_LOAN_DURATION_SECONDS, maxDuration, maxAmountUsd: maxUsd, minAmountUsd: minUsd };
}

/** Days (possibly fractional) -> whole seconds, floored, with string maths. */
function scaleDays(field: string, days: FormNumber): number {
  const text = decimalText(field, days);
  const [whole = "0", fraction = ""] = text.split(".");
  const numerator = BigInt(whole + fraction) * BigInt(SECONDS_PER_DAY);
  const seconds = numerator / 10n ** BigInt(fraction.length);
  if (seconds > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid(field, "is too large");
  return Number(seconds);
}

/** Remove duplicate collateral ids, keeping the LAST entry of each id (at the last one's position). */
export function dedupeCollateral<T extends { id: string }>(entries: readonly T[]): T[] {
  const lastIndex = new Map<string, number>();
  entries.forEach((entry, index) => {
    lastIndex.set(entry.id, index);
  });
  return entries.filter((entry, index) => lastIndex.get(entry.id) === index);
}

function collateralEntries(
  form: PoolForm,
  type: PoolType,
): {
  collections?: CollectionPayloadEntry[];
  currencies?: CurrencyPayloadEntry[];
} {
  const source = type === "nft-pool" ? (form.collections ?? []) : (form.tokens ?? []);
  const entries = dedupeCollateral(source).map((entry, i) => {
    if (typeof entry.id !== "string" || entry.id.length === 0)
      throw invalid(`collateral[${i}].id`, "is required");
    return {
      id: entry.id,
      ltv: percentToBpsFloor(entry.ltv, `${entry.id}.ltv`),
      exposure: percentToBpsFloor(entry.exposure, `${entry.id}.exposure`),
    };
  });
  if (type === "nft-pool") {
    return {
      collections: entries.map((e) => ({ collection: e.id, collectionLtv: e.ltv, exposure: e.exposure })),
    };
  }
  return { currencies: entries.map((e) => ({ currency: e.id, currencyLtv: e.ltv, exposure: e.exposure })) };
}

/**
 * Build the pool creation payload. `decimals` defaults to the currency table's entry for
 * `form.poolCurrency` (CisternError UNKNOWN_CURRENCY when unknown and not given).
 * Throws UNKNOWN_POOL_TYPE for other types and INVALID_POOL_FORM_FIELD for bad values; nothing
 * partial is returned.
 */
export function createPoolCreationPayload(
  form: PoolForm,
  options: { decimals?: number } = {},
): PoolCreationPayload {
  const type = assertPoolType(form.type);
  const decimals = options.decimals ?? getCurrencyByMint(form.poolCurrency)?.decimals;
  if (decimals === undefined)
    throw new CisternError(ERROR_CODES.UNKNOWN_CURRENCY, { mint: form.poolCurrency });
  const amountText = decimalText("poolAmount", form.poolAmount);
  const amount = parseUnitsFloor(amountText, decimals);
  return {
    bank: form.bank,
    owner: form.owner,
    amount: amount.toString(),
    mint: form.poolCurrency,
    param: {
      apr: percentToBpsFloor(form.apy, "apy"),
      limits: getPoolLimits(form),
      ...collateralEntries(form, type),
    },
  };
}

/** Whitelist rule: enabled only when private loans are on and the address is not the all-ones one. */
export function isWhitelistEnabled(form: Pick<PoolForm, "isPrivateLoanEnabled" | "lookupTable">): boolean {
  return (
    form.isPrivateLoanEnabled === true &&
    typeof form.lookupTable === "string" &&
    form.lookupTable.length > 0 &&
    form.lookupTable !== EMPTY_WHITELIST_ADDRESS
  );
}

/** Integer-string form of an optional non-negative count (empty -> "0"). */
function optionalDecimalString(field: string, value: FormNumber): string {
  return isEmpty(value) ? "0" : decimalText(field, value);
}

/** Pool conditions of the update payload: strings for amounts, 0/1 flags, min age days -> seconds. */
export function getPoolConditions(form: PoolForm): PoolConditionsPayload {
  const whitelistOn = isWhitelistEnabled(form);
  return {
    minAge: String(isEmpty(form.minAge) ? 0 : scaleDays("minAge", form.minAge)),
    minLoan: optionalDecimalString("minLoan", form.minLoan),
    minVolume: optionalDecimalString("minVolume", form.minVolume),
    liquidationThreshold: toLiquidationThresholdBps(form.liquidationThreshold),
    isEnabled: form.withConditions ? 1 : 0,
    isWhitelistEnabled: whitelistOn ? 1 : 0,
    whitelist: whitelistOn ? form.lookupTable! : EMPTY_WHITELIST_ADDRESS,
    whitelistAddresses: whitelistOn ? [...(form.lookupTableAddresses ?? [])] : [],
  };
}

/** The mortgage curve's rate, basis points: the form's mortgage APY, or its loan APY when empty. */
export function getMortgageAprBps(form: PoolForm): number {
  return isEmpty(form.mortgageApy)
    ? percentToBpsFloor(form.apy, "apy")
    : percentToBpsFloor(form.mortgageApy, "mortgageApy");
}

/**
 * Build the pool update payload. Auto-sell (both types) and mortgage (nft-pool) are toggled with
 * `enable*` / `disable*` flags from the form; the auto-sell liquidation values are always sent
 * (loan 1000, mortgage 2000).
 */
export function createPoolUpdatePayload(form: PoolForm): PoolUpdatePayload {
  const type = assertPoolType(form.type);
  if (!form.pubkey) throw invalid("pubkey", "is required to update a pool");
  const apr = percentToBpsFloor(form.apy, "apy");
  const autoSell = form.isAutoSellEnabled === true;
  const payload: PoolUpdatePayload = {
    pool: form.pubkey,
    owner: form.owner,
    ...(autoSell ? { enableAutoSell: true as const } : { disableAutoSell: true as const }),
    param: {
      apr,
      loanApr: apr,
      limits: getPoolLimits(form),
      conditions: getPoolConditions(form),
      liquidation: {
        isAutoSellEnabled: autoSell,
        loanLiquidation: AUTO_SELL_LOAN_LIQUIDATION,
        mortgageLiquidation: AUTO_SELL_MORTGAGE_LIQUIDATION,
      },
      ...collateralEntries(form, type),
    },
  };
  if (type === "nft-pool") {
    payload.param.mortgageApr = getMortgageAprBps(form);
    if (form.isMortgageEnabled === true) payload.enableMortgage = true;
    else payload.disableMortgage = true;
  }
  return payload;
}
