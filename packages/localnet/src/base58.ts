import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { invalidParams } from "./errors.ts";

const toBase58 = getBase58Decoder();
const fromBase58 = getBase58Encoder();
const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]*$/;

/** Encodes bytes as base58. */
export function encodeBase58(bytes: Uint8Array): string {
  return toBase58.decode(bytes);
}

/** Decodes base58 text; throws a -32602 error on characters outside the alphabet. */
export function decodeBase58(text: string): Uint8Array {
  if (!BASE58_RE.test(text)) throw invalidParams("invalid base58 encoding");
  return Uint8Array.from(fromBase58.encode(text));
}

/** Decodes a 32-byte address; throws -32602 "Invalid param: ..." like agave. */
export function decodeAddress(text: unknown): Uint8Array {
  if (typeof text !== "string") throw invalidParams("Invalid param: expected a base58 address string");
  if (text.length < 32 || text.length > 44 || !BASE58_RE.test(text))
    throw invalidParams("Invalid param: Invalid");
  const bytes = fromBase58.encode(text);
  if (bytes.length !== 32) throw invalidParams("Invalid param: WrongSize");
  return Uint8Array.from(bytes);
}
