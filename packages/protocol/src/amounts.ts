import { U64_MAX } from "./constants.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";

declare const baseUnitsBrand: unique symbol;

/**
 * An amount in a currency's smallest unit (lamports for SOL, 10^-6 USDC for USDC), as a branded bigint.
 * Over JSON it travels as a decimal string.
 */
export type BaseUnits = bigint & { readonly [baseUnitsBrand]: "BaseUnits" };

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/;
/** Largest exponent {@link toPlainDecimalString} expands (doubles stop at 1e308). */
const MAX_EXPONENT = 400;

/** Throws unless `decimals` is an integer 0..255 (SPL mint decimals are a u8). */
export function assertValidDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new CisternError(ERROR_CODES.INVALID_DECIMALS, { decimals: String(decimals) });
  }
}

/**
 * Brand a bigint as base units after checking it is a u64 (0 <= value <= 2^64 - 1).
 */
export function toBaseUnits(value: bigint): BaseUnits {
  if (value < 0n) throw new CisternError(ERROR_CODES.AMOUNT_NEGATIVE, { value: value.toString() });
  if (value > U64_MAX) throw new CisternError(ERROR_CODES.AMOUNT_TOO_LARGE, { value: value.toString() });
  return value as BaseUnits;
}

/**
 * Parse a decimal string in whole units ("1.5") into base units, strictly and without rounding.
 *
 * Accepted: digits with an optional `.` and digits ("12", "0.5", "3.000"). Rejected with a
 * {@link CisternError}: empty text (AMOUNT_EMPTY), signs, spaces, exponents, commas or any other
 * character (AMOUNT_INVALID_FORMAT; a leading "-" gives AMOUNT_NEGATIVE), more fraction digits than
 * `decimals` even if they are zeros (AMOUNT_TOO_MANY_DECIMALS), values above u64 (AMOUNT_TOO_LARGE).
 *
 * @example parseUnits("1.5", 9) === 1_500_000_000n
 */
export function parseUnits(text: string, decimals: number): BaseUnits {
  assertValidDecimals(decimals);
  if (typeof text !== "string")
    throw new CisternError(ERROR_CODES.AMOUNT_INVALID_FORMAT, { value: String(text) });
  if (text.length === 0) throw new CisternError(ERROR_CODES.AMOUNT_EMPTY);
  const match = DECIMAL_RE.exec(text);
  if (!match) {
    if (/^-\d*\.?\d+$/.test(text)) throw new CisternError(ERROR_CODES.AMOUNT_NEGATIVE, { value: text });
    throw new CisternError(ERROR_CODES.AMOUNT_INVALID_FORMAT, { value: text });
  }
  const whole = match[1]!;
  const fraction = match[2] ?? "";
  // u64 has 20 digits: reject longer whole parts before building a huge bigint
  if (whole.replace(/^0+/, "").length > 20)
    throw new CisternError(ERROR_CODES.AMOUNT_TOO_LARGE, { value: text });
  if (fraction.length > decimals) {
    throw new CisternError(ERROR_CODES.AMOUNT_TOO_MANY_DECIMALS, { value: text, decimals });
  }
  const value = BigInt(whole + fraction.padEnd(decimals, "0"));
  if (value > U64_MAX) throw new CisternError(ERROR_CODES.AMOUNT_TOO_LARGE, { value: text });
  return value as BaseUnits;
}

/**
 * Format base units as a decimal string in whole units: no trailing fraction zeros, no exponent,
 * no grouping ("1500000000", 9 -> "1.5"; 0 -> "0"). Exact: no rounding happens. Negative values
 * (deltas) keep their sign.
 */
export function formatUnits(amount: bigint, decimals: number): string {
  assertValidDecimals(decimals);
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString();
  const sign = negative ? "-" : "";
  if (decimals === 0) return sign + digits;
  const padded = digits.padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, "");
  return sign + (fraction ? `${whole}.${fraction}` : whole);
}

/**
 * Expand a finite non-negative number or numeric string (possibly in exponent form, "1e-7") into a
 * plain decimal string without going through float arithmetic beyond JavaScript's shortest
 * round-trip representation of the number. Throws AMOUNT_INVALID_FORMAT for junk, AMOUNT_NEGATIVE
 * for negatives.
 */
export function toPlainDecimalString(value: number | string): string {
  const text = typeof value === "number" ? numberToString(value) : value.trim();
  const match = /^(-)?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match || (match[2] === "" && (match[3] ?? "") === "")) {
    throw new CisternError(ERROR_CODES.AMOUNT_INVALID_FORMAT, { value: String(value) });
  }
  const [, sign, intPart = "", fracPart = "", expPart] = match;
  if (sign && /[1-9]/.test(intPart + fracPart)) {
    throw new CisternError(ERROR_CODES.AMOUNT_NEGATIVE, { value: String(value) });
  }
  const exponent = expPart === undefined ? 0 : Number(expPart);
  // no amount needs more than a few hundred digits; refuse to expand "1e999999999"
  if (Math.abs(exponent) > MAX_EXPONENT) {
    throw new CisternError(ERROR_CODES.AMOUNT_INVALID_FORMAT, { value: String(value) });
  }
  let digits = intPart + fracPart;
  let pointIndex = intPart.length + exponent;
  if (pointIndex < 0) {
    digits = "0".repeat(-pointIndex) + digits;
    pointIndex = 0;
  }
  if (pointIndex > digits.length) digits = digits.padEnd(pointIndex, "0");
  const whole = digits.slice(0, pointIndex).replace(/^0+(?=\d)/, "") || "0";
  const fraction = digits.slice(pointIndex).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

function numberToString(value: number): string {
  if (!Number.isFinite(value)) {
    throw new CisternError(ERROR_CODES.AMOUNT_INVALID_FORMAT, { value: String(value) });
  }
  return String(value);
}

/**
 * Whole units -> base units, ROUNDING DOWN (floor) extra fraction digits: for amounts a user puts
 * into a pool (credits), so the pool never receives more than the wallet holds. Uses decimal string
 * maths (no float multiplication). Accepts numbers and numeric strings, including exponent form.
 *
 * @example parseUnitsFloor(1.23456789, 6) === 1_234_567n
 */
export function parseUnitsFloor(value: number | string, decimals: number): BaseUnits {
  assertValidDecimals(decimals);
  const plain = toPlainDecimalString(value);
  const [whole, fraction = ""] = plain.split(".");
  return parseUnits(`${whole}${decimals > 0 && fraction ? `.${fraction.slice(0, decimals)}` : ""}`, decimals);
}

/** Integer division rounding UP, for non-negative bigints (debts and fees owed). */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  assertDivisionOperands(numerator, denominator);
  return numerator === 0n ? 0n : (numerator - 1n) / denominator + 1n;
}

/** Integer division rounding DOWN, for non-negative bigints (credits and shares). */
export function floorDiv(numerator: bigint, denominator: bigint): bigint {
  assertDivisionOperands(numerator, denominator);
  return numerator / denominator;
}

/** The smaller of two bigints (Math.min does not take bigints). */
export function bigintMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** The larger of two bigints (Math.max does not take bigints). */
export function bigintMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function assertDivisionOperands(numerator: bigint, denominator: bigint): void {
  if (numerator < 0n) {
    throw new CisternError(ERROR_CODES.INVALID_INTEREST_INPUT, { field: "numerator", value: numerator });
  }
  if (denominator <= 0n) {
    throw new CisternError(ERROR_CODES.INVALID_INTEREST_INPUT, { field: "denominator", value: denominator });
  }
}
