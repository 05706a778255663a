import { PRIORITY_FEE_LEVELS } from "@cistern/protocol";
import { type TSchema, Type } from "@sinclair/typebox";
import { Pubkey } from "../../http/schemas.ts";
import { badRequest } from "../tx-errors.ts";

/** Base units as a decimal integer string (validated in the handler for a clear message). */
export const Amount = Type.String({
  minLength: 1,
  maxLength: 40,
  description: "base units, decimal integer string (no decimals)",
});

/** `options` of every builder request: priority fee settings (spec section 9). */
export const BuildOptions = Type.Object(
  {
    priorityFeeLevel: Type.Optional(Type.Union(PRIORITY_FEE_LEVELS.map((l) => Type.Literal(l)))),
    amount: Type.Optional(
      Type.String({ description: "whole SOL, decimal string: fee cap (maxCap), fee (exactFee), tip (jito)" }),
    ),
    type: Type.Optional(Type.Union([Type.Literal("maxCap"), Type.Literal("exactFee")])),
    broadcastMode: Type.Optional(Type.Union([Type.Literal("priorityFees"), Type.Literal("jito")])),
    simulate: Type.Optional(
      Type.Boolean({
        description: "simulate first: CU limit from the simulation, and a failing transaction answers 422",
      }),
    ),
  },
  { additionalProperties: false },
);

/** Fields every builder body may carry besides its own. */
export const CommonFields = {
  referrer: Type.Optional(
    Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
      description: "referrer wallet; ignored unless a valid address (recorded in metadata)",
    }),
  ),
  options: Type.Optional(BuildOptions),
};

/** The builder's answer. */
export const BuildResponseSchema = Type.Object({
  transactions: Type.Array(Type.String({ description: "v0 transaction, base64, unsigned" })),
  kind: Type.Union([
    Type.Literal("Normal"),
    Type.Literal("Bundle"),
    Type.Literal("NormalCoSigned"),
    Type.Literal("BundleCoSigned"),
  ]),
  lastValidBlockHeight: Type.Integer(),
  metadata: Type.Object({}, { additionalProperties: true }),
});

/** A body schema: the fields plus referrer/options, nothing else. */
export function body(fields: Record<string, TSchema>) {
  return Type.Object({ ...fields, ...CommonFields }, { additionalProperties: false });
}

export { Pubkey };

const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** Parses a base-units string: a positive integer fitting u64; anything else is a 400 naming the field. */
export function parseBaseUnits(field: string, text: string, options: { allowZero?: boolean } = {}): bigint {
  if (/^\d+\.\d*$/.test(text))
    throw badRequest(`${field} must be an integer amount of base units; '${text}' has too many decimals`);
  if (!/^\d+$/.test(text)) throw badRequest(`${field} must be base units as a decimal integer string`);
  const value = BigInt(text);
  if (value > U64_MAX) throw badRequest(`${field} is larger than a u64`);
  if (value === 0n && !options.allowZero) throw badRequest(`${field} must be greater than 0`);
  return value;
}
