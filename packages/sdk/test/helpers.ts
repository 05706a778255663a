import { type Address, getAddressDecoder, type ReadonlyUint8Array } from "@solana/kit";

/** Deterministic distinct test address number `n`. */
export function testAddress(n: number): Address {
  const bytes = new Uint8Array(32);
  bytes.fill(n & 0xff);
  bytes[0] = 0x80 | (n & 0x7f);
  bytes[31] = (n >> 8) & 0xff;
  return getAddressDecoder().decode(bytes);
}

/** Little-endian reader over bytes, for asserting offsets from LAYOUT.md. */
export function reader(bytes: ReadonlyUint8Array | Uint8Array | ReadonlyArray<number>) {
  const u8 = Uint8Array.from(bytes as ArrayLike<number>);
  const view = new DataView(u8.buffer);
  return {
    u8: (off: number) => view.getUint8(off),
    u16: (off: number) => view.getUint16(off, true),
    u32: (off: number) => view.getUint32(off, true),
    u64: (off: number) => view.getBigUint64(off, true),
    i64: (off: number) => view.getBigInt64(off, true),
    pubkey: (off: number) => getAddressDecoder().decode(u8.subarray(off, off + 32)),
    zero: (off: number, len: number) => u8.subarray(off, off + len).every((b) => b === 0),
  };
}
