import { isAddressText } from "@cistern/sdk";
import { type TSchema, Type } from "@sinclair/typebox";

/** Name of the Ajv format every address field uses (registered by createApp). */
export const ADDRESS_FORMAT = "solana-address";

/** The check behind {@link ADDRESS_FORMAT}: base58 that decodes to exactly 32 bytes. */
export function isSolanaAddress(value: string): boolean {
  return /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value) && isAddressText(value);
}

/** A base58 Solana address (32-44 characters of the base58 alphabet, decoding to 32 bytes). */
export const Pubkey = Type.String({
  pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}$",
  format: ADDRESS_FORMAT,
  description: "base58 address",
  examples: ["EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"],
});

/** Base units of a token as a decimal string (u64 range). */
export const BaseUnitsString = Type.String({
  pattern: "^[0-9]{1,20}$",
  description: "base units, decimal string",
});

/** Epoch seconds (0 = never). */
export const EpochSeconds = Type.Integer({ description: "epoch seconds (0 = never)" });

/** Largest page a list route returns. */
export const MAX_PAGE_LIMIT = 500;
export const DEFAULT_PAGE_LIMIT = 50;

/** limit/offset pagination for list routes (limit capped at 500, offset at 1,000,000). */
export const Pagination = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
};

/** Error answer of every route. */
export const ErrorBody = Type.Object(
  {
    code: Type.Integer(),
    name: Type.String(),
    message: Type.String(),
    params: Type.Record(Type.String(), Type.String()),
  },
  {
    $id: "ErrorBody",
    description:
      "stable numeric code (program 6000-6999, protocol, API 11000-11999), its name, a message safe to show and " +
      "parameters for the client's own sentence (amounts as base-unit strings with the currency `mint`)",
  },
);

/** Adds the shared error answers (400, 404, 422, 500, 502) to a route's response schemas. */
export function withErrors(responses: Record<number, TSchema>): Record<number, TSchema> {
  const ref = Type.Ref("ErrorBody");
  return { ...responses, 400: ref, 404: ref, 422: ref, 500: ref, 502: ref };
}

/** Makes a schema nullable (used for "pool or bank not found -> null"). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/**
 * A string limited to `values`, as a plain JSON-schema enum (not an anyOf of literals: fast-json-stringify
 * would run a validator per value to pick the branch).
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
) {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

/** A string or null, as `type: ["string", "null"]` (cheap to serialise). */
export function NullableString(options: Record<string, unknown> = {}) {
  return Type.Unsafe<string | null>({ type: ["string", "null"], ...options });
}

/** A number or null, as `type: ["number", "null"]`. */
export function NullableNumber(options: Record<string, unknown> = {}) {
  return Type.Unsafe<number | null>({ type: ["number", "null"], ...options });
}
