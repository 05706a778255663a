import { ADDRESS_LOOKUP_TABLE_PROGRAM_ADDRESS } from "@cistern/sdk";

/** The Address Lookup Table program (pool whitelists and the protocol's table are lookup tables). */
export const ADDRESS_LOOKUP_TABLE_PROGRAM = ADDRESS_LOOKUP_TABLE_PROGRAM_ADDRESS;
/** Address Lookup Table: 56-byte meta header, then 32-byte addresses. */
const ALT_HEADER_BYTES = 56;

/** The addresses stored in an Address Lookup Table account. */
export function decodeLookupTableAddresses(data: Uint8Array): string[] {
  const out: string[] = [];
  for (let off = ALT_HEADER_BYTES; off + 32 <= data.length; off += 32) {
    out.push(addressFromBytes(data.subarray(off, off + 32)));
  }
  return out;
}

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function addressFromBytes(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let s = "";
  while (n > 0n) {
    s = ALPHABET[Number(n % 58n)]! + s;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    s = `1${s}`;
  }
  return s;
}
