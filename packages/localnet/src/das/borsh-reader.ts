/** A Borsh reader over account or event bytes; every read past the end throws (the caller treats it as not ours). */
import { encodeBase58 } from "../base58.ts";

export class BorshReader {
  at = 0;
  constructor(readonly d: Uint8Array) {}
  private need(n: number): void {
    if (this.at + n > this.d.length) throw new Error("short data");
  }
  u8(): number {
    this.need(1);
    return this.d[this.at++]!;
  }
  u32(): number {
    this.need(4);
    const v = new DataView(this.d.buffer, this.d.byteOffset + this.at, 4).getUint32(0, true);
    this.at += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = new DataView(this.d.buffer, this.d.byteOffset + this.at, 8).getBigUint64(0, true);
    this.at += 8;
    return v;
  }
  /** A copy of the next `n` bytes. */
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.d.slice(this.at, this.at + n);
    this.at += n;
    return out;
  }
  /** A 32-byte address, base58. */
  key(): string {
    this.need(32);
    const k = encodeBase58(this.d.subarray(this.at, this.at + 32));
    this.at += 32;
    return k;
  }
  /** A Borsh string (u32 length, UTF-8). */
  string(): string {
    const n = this.u32();
    this.need(n);
    const s = Buffer.from(this.d.subarray(this.at, this.at + n)).toString("utf8");
    this.at += n;
    return s;
  }
}
