import { getBase58Encoder } from "@solana/kit";
import { invalidParams } from "./errors.ts";

const fromBase58 = getBase58Encoder();
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const KEY_CACHE_LIMIT = 100_000;
const keyCache = new Map<string, string>();
const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]*$/;

const LIMB = 58 ** 5; // 656_356_768: limb * 65536 + carry stays below 2^53, so float maths is exact

/** base58 via base-58^5 limbs, consuming the input two bytes at a time. */
function encodeUncached(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const limbs: number[] = [];
  for (let i = zeros; i < bytes.length; ) {
    let carry: number;
    let mul: number;
    if (i + 1 < bytes.length) {
      carry = bytes[i]! * 256 + bytes[i + 1]!;
      mul = 65536;
      i += 2;
    } else {
      carry = bytes[i]!;
      mul = 256;
      i += 1;
    }
    for (let k = 0; k < limbs.length; k++) {
      const x = limbs[k]! * mul + carry;
      carry = Math.floor(x / LIMB);
      limbs[k] = x - carry * LIMB;
    }
    while (carry > 0) {
      const next = Math.floor(carry / LIMB);
      limbs.push(carry - next * LIMB);
      carry = next;
    }
  }
  let out = "";
  for (let k = 0; k < limbs.length; k++) {
    let v = limbs[k]!;
    const last = k === limbs.length - 1;
    for (let d = 0; d < 5 && (!last || v > 0); d++) {
      const q = Math.floor(v / 58);
      out = ALPHABET[v - q * 58] + out;
      v = q;
    }
  }
  return "1".repeat(zeros) + out;
}

/** Encodes bytes as base58 (32-byte keys are cached: the same accounts recur in every transaction). */
export function encodeBase58(bytes: Uint8Array): string {
  if (bytes.length !== 32) return encodeUncached(bytes);
  const k = Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString("latin1");
  let s = keyCache.get(k);
  if (s === undefined) {
    s = encodeUncached(bytes);
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    keyCache.set(k, s);
  }
  return s;
}

const DIGITS = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGITS[ALPHABET.charCodeAt(i)] = i;
const LIMB_16 = 65536;

/**
 * base58 text to bytes via base-2^16 limbs, consuming five digits at a time (58^5 < 2^30, so limb * 58^5 + carry stays
 * below 2^53): linear in the limbs per five digits, where a BigInt conversion is quadratic in the text (long
 * instruction data, e.g. the noop events the DAS index reads).
 */
function decodeUncached(text: string): Uint8Array {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++; // "1"
  const limbs: number[] = [];
  for (let i = zeros; i < text.length; ) {
    let carry = 0;
    let mul = 1;
    for (const end = Math.min(text.length, i + 5); i < end; i++) {
      carry = carry * 58 + DIGITS[text.charCodeAt(i)]!;
      mul *= 58;
    }
    for (let k = 0; k < limbs.length; k++) {
      const x = limbs[k]! * mul + carry;
      carry = Math.floor(x / LIMB_16);
      limbs[k] = x - carry * LIMB_16;
    }
    while (carry > 0) {
      const next = Math.floor(carry / LIMB_16);
      limbs.push(carry - next * LIMB_16);
      carry = next;
    }
  }
  let bytes = limbs.length * 2;
  if (limbs.length > 0 && limbs[limbs.length - 1]! < 256) bytes--;
  const out = new Uint8Array(zeros + bytes);
  let at = out.length - 1;
  for (let k = 0; k < limbs.length; k++) {
    out[at--] = limbs[k]! & 0xff;
    if (at >= zeros) out[at--] = limbs[k]! >> 8;
  }
  return out;
}

/** Decodes base58 text; throws a -32602 error on characters outside the alphabet. */
export function decodeBase58(text: string): Uint8Array {
  if (!BASE58_RE.test(text)) throw invalidParams("invalid base58 encoding");
  return decodeUncached(text);
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
