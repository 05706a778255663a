import { type Address, createCodec, type FixedSizeCodec, type ReadonlyUint8Array } from "@solana/kit";

/**
 * Addresses between their base58 text and their 32 bytes, without BigInt: the same answers as kit's address
 * codec (a property test holds them equal) at a fraction of its cost, which every account read and every
 * instruction built pays many times over.
 */

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_OF[ALPHABET.charCodeAt(i)] = i;

/** The 32 bytes `text` stands for, or null when it is not a base58 address of exactly 32 bytes. */
function decodeAddressText(text: string): Uint8Array | null {
  if (text.length < 32 || text.length > 44) return null;
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* "1" */) zeros++;
  const bytes = new Uint8Array(32); // little-endian while building
  let used = 0;
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let carry = code < 128 ? DIGIT_OF[code]! : -1;
    if (carry < 0) return null;
    for (let j = 0; j < used; j++) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      if (used === 32) return null;
      bytes[used++] = carry & 0xff;
      carry >>= 8;
    }
  }
  if (zeros + used !== 32) return null;
  return bytes.reverse();
}

/** The base58 text of 32 bytes. */
export function addressFromBytes(bytes: ReadonlyUint8Array): Address {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits = new Uint8Array(44); // little-endian base58 digits
  let used = 0;
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < used; j++) {
      carry += digits[j]! << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits[used++] = carry % 58;
      carry = (carry / 58) | 0;
    }
  }
  let text = "1".repeat(zeros);
  for (let j = used - 1; j >= 0; j--) text += ALPHABET[digits[j]!];
  return text as Address;
}

/** Address bytes remembered (the same addresses recur: programs, pools, banks, mints). */
const ADDRESS_CACHE_LIMIT = 50_000;
const addressCache = new Map<string, ReadonlyUint8Array>();

/** The 32 bytes of an address, memoised; throws when `value` is not a base58 address of 32 bytes. */
export function addressBytes(value: Address | string): ReadonlyUint8Array {
  let bytes = addressCache.get(value);
  if (bytes === undefined) {
    const decoded = decodeAddressText(value);
    if (decoded === null) throw new Error(`not a base58 address of 32 bytes: ${value.slice(0, 60)}`);
    bytes = decoded;
    if (addressCache.size >= ADDRESS_CACHE_LIMIT) addressCache.delete(addressCache.keys().next().value!);
    addressCache.set(value, bytes);
  }
  return bytes;
}

/** Whether `value` is a base58 address of exactly 32 bytes (kit's isAddress). */
export function isAddressText(value: string): boolean {
  return addressCache.has(value) || decodeAddressText(value) !== null;
}

/** `value` as an Address after checking it (kit's address()); throws on anything else. */
export function address(value: string): Address {
  addressBytes(value);
  return value as Address;
}

/** A 32-byte public key field of an account or instruction (kit's getAddressCodec). */
export function getFastAddressCodec(): FixedSizeCodec<Address, Address, 32> {
  return createCodec({
    fixedSize: 32,
    write(value: Address, target, offset) {
      target.set(addressBytes(value), offset);
      return offset + 32;
    },
    read(source, offset) {
      if (source.length < offset + 32) throw new Error("an address needs 32 bytes");
      return [addressFromBytes(source.subarray(offset, offset + 32)), offset + 32];
    },
  });
}
