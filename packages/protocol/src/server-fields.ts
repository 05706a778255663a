/**
 * Readers for fields of server views (JSON from the API). Amounts arrive as decimal strings or
 * numbers and become bigint base units; times become epoch-second numbers. A wrong field throws
 * CisternError INVALID_SERVER_FIELD (9000) naming the entity and the field.
 */
import { CisternError, ERROR_CODES } from "./errors.ts";

/** A JSON object as received. */
export type JsonRecord = Record<string, unknown>;

function fail(entity: string, field: string, value: unknown): never {
  let shown: string;
  try {
    shown = typeof value === "bigint" ? value.toString() : (JSON.stringify(value) ?? String(value));
  } catch {
    shown = String(value);
  }
  throw new CisternError(ERROR_CODES.INVALID_SERVER_FIELD, { entity, field, value: shown });
}

/** True for a plain object. */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value as an object, or throws. */
export function readRecord(entity: string, field: string, value: unknown): JsonRecord {
  if (!isRecord(value)) fail(entity, field, value);
  return value;
}

/** A non-negative integer amount (bigint, safe-integer number or decimal integer string) as bigint. */
export function readAmount(entity: string, field: string, value: unknown): bigint {
  if (typeof value === "bigint" && value >= 0n) return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value);
  return fail(entity, field, value);
}

/** Like {@link readAmount}, but undefined/null give `fallback`. */
export function readOptionalAmount(entity: string, field: string, value: unknown, fallback = 0n): bigint {
  return value === undefined || value === null ? fallback : readAmount(entity, field, value);
}

/** A finite number (number or numeric string). */
export function readNumber(entity: string, field: string, value: unknown): number {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n === "bigint") return Number(n);
  if (typeof n !== "number" || !Number.isFinite(n)) return fail(entity, field, value);
  return n;
}

/** Like {@link readNumber}, but undefined/null give `fallback`. */
export function readOptionalNumber(entity: string, field: string, value: unknown, fallback = 0): number {
  return value === undefined || value === null ? fallback : readNumber(entity, field, value);
}

/**
 * Epoch seconds or a duration in seconds: a non-negative integer number, bigint or digit string,
 * or an ISO date string (converted to epoch seconds, floored). Undefined/null give `fallback`.
 */
export function readSeconds(entity: string, field: string, value: unknown, fallback = 0): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "string" && !/^\d+$/.test(value)) {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) return fail(entity, field, value);
    return Math.floor(ms / 1000);
  }
  const big = readAmount(entity, field, value);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) return fail(entity, field, value);
  return Number(big);
}

/** A non-negative safe integer (number, bigint or digit string) as a number. */
export function readSafeInteger(entity: string, field: string, value: unknown): number {
  const big = readAmount(entity, field, value);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) return fail(entity, field, value);
  return Number(big);
}

/** A string field, or throws. */
export function readString(entity: string, field: string, value: unknown): string {
  if (typeof value !== "string") return fail(entity, field, value);
  return value;
}

/** A string, or `fallback` for undefined/null. */
export function readOptionalString(entity: string, field: string, value: unknown, fallback = ""): string {
  return value === undefined || value === null ? fallback : readString(entity, field, value);
}

/** A boolean (true/false, 1/0, "true"/"false"), `fallback` for undefined/null. */
export function readBoolean(entity: string, field: string, value: unknown, fallback = false): boolean {
  if (value === undefined || value === null) return fallback;
  if (value === true || value === 1 || value === "true" || value === "1") return true;
  if (value === false || value === 0 || value === "false" || value === "0") return false;
  return fail(entity, field, value);
}

/**
 * The tag of an enum value as the API sends it: a string ("ongoing") or an object with one key
 * (`{ ongoing: {} }`, Anchor-style JSON). Returns the tag and the object's payload.
 */
export function readEnumTag(
  entity: string,
  field: string,
  value: unknown,
): { tag: string; payload: JsonRecord } {
  if (typeof value === "string" && value.length > 0) return { tag: value, payload: {} };
  if (isRecord(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0]) {
      const inner = value[keys[0]];
      return { tag: keys[0], payload: isRecord(inner) ? inner : {} };
    }
    if (typeof value.type === "string") return { tag: value.type, payload: value };
  }
  return fail(entity, field, value);
}

/** First letter upper-cased ("ongoing" -> "Ongoing"). */
export function capitalizeFirst(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}
