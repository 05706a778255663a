import { invalidParams } from "./errors.ts";

/** One compiled instruction of a wire transaction. */
export interface WireInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

/** An address-lookup-table reference of a v0 message. */
export interface WireLookup {
  table: Uint8Array;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

/** A decoded wire transaction (views into the original bytes). */
export interface WireTransaction {
  bytes: Uint8Array;
  /** The base64 text the bytes came from, when the client sent base64 (saves re-encoding). */
  base64?: string;
  signatures: Uint8Array[];
  version: "legacy" | 0;
  messageBytes: Uint8Array;
  numRequiredSignatures: number;
  numReadonlySigned: number;
  numReadonlyUnsigned: number;
  staticKeys: Uint8Array[];
  recentBlockhash: Uint8Array;
  instructions: WireInstruction[];
  lookups: WireLookup[];
}

const DESERIALIZE = "failed to deserialize solana_transaction::versioned::VersionedTransaction";

class Reader {
  pos = 0;
  constructor(readonly b: Uint8Array) {}
  need(n: number): void {
    if (this.pos + n > this.b.length)
      throw invalidParams(`${DESERIALIZE}: io error: failed to fill whole buffer`);
  }
  u8(): number {
    this.need(1);
    return this.b[this.pos++]!;
  }
  compactU16(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = this.u8();
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) return value;
    }
    throw invalidParams(`${DESERIALIZE}: invalid compact-u16`);
  }
  take(n: number): Uint8Array {
    this.need(n);
    const out = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** Reads a message (legacy or v0) starting at the reader position. */
function readMessage(r: Reader) {
  const start = r.pos;
  const first = r.u8();
  let version: "legacy" | 0 = "legacy";
  let numRequiredSignatures = first;
  if (first & 0x80) {
    const v = first & 0x7f;
    if (v !== 0) throw invalidParams(`${DESERIALIZE}: unsupported message version ${v}`);
    version = 0;
    numRequiredSignatures = r.u8();
  }
  const numReadonlySigned = r.u8();
  const numReadonlyUnsigned = r.u8();
  const keyCount = r.compactU16();
  const staticKeys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) staticKeys.push(r.take(32));
  const recentBlockhash = r.take(32);
  const ixCount = r.compactU16();
  const instructions: WireInstruction[] = [];
  for (let i = 0; i < ixCount; i++) {
    const programIdIndex = r.u8();
    const n = r.compactU16();
    const accounts = Array.from(r.take(n));
    const dataLen = r.compactU16();
    instructions.push({ programIdIndex, accounts, data: r.take(dataLen) });
  }
  const lookups: WireLookup[] = [];
  if (version === 0) {
    const n = r.compactU16();
    for (let i = 0; i < n; i++) {
      const table = r.take(32);
      const writableIndexes = Array.from(r.take(r.compactU16()));
      const readonlyIndexes = Array.from(r.take(r.compactU16()));
      lookups.push({ table, writableIndexes, readonlyIndexes });
    }
  }
  return {
    version,
    numRequiredSignatures,
    numReadonlySigned,
    numReadonlyUnsigned,
    staticKeys,
    recentBlockhash,
    instructions,
    lookups,
    messageBytes: r.b.subarray(start, r.pos),
  };
}

function sanitize(m: ReturnType<typeof readMessage>, signatureCount: number | null): void {
  const fail = (why: string) => invalidParams(`invalid transaction: ${why}`);
  if (signatureCount !== null && signatureCount !== m.numRequiredSignatures)
    throw fail("Transaction failed to sanitize accounts offsets correctly");
  if (m.numRequiredSignatures === 0 || m.numReadonlySigned >= m.numRequiredSignatures)
    throw fail("Transaction failed to sanitize accounts offsets correctly");
  if (m.staticKeys.length < m.numRequiredSignatures + m.numReadonlyUnsigned)
    throw fail("Transaction failed to sanitize accounts offsets correctly");
  const loaded = m.lookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
  const total = m.staticKeys.length + loaded;
  if (total > 256) throw fail("Transaction failed to sanitize accounts offsets correctly");
  for (const ix of m.instructions) {
    if (ix.programIdIndex === 0 || ix.programIdIndex >= m.staticKeys.length)
      throw fail("Transaction failed to sanitize accounts offsets correctly");
    for (const a of ix.accounts)
      if (a >= total) throw fail("Transaction failed to sanitize accounts offsets correctly");
  }
}

/** Decodes and sanitizes a wire transaction; malformed input throws -32602 like a real node. */
export function parseWireTransaction(bytes: Uint8Array): WireTransaction {
  const r = new Reader(bytes);
  const sigCount = r.compactU16();
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < sigCount; i++) signatures.push(r.take(64));
  const m = readMessage(r);
  if (r.pos !== bytes.length) throw invalidParams(`${DESERIALIZE}: trailing bytes`);
  sanitize(m, sigCount);
  return { bytes, signatures, ...m };
}

/** Decodes a bare message (getFeeForMessage). */
export function parseWireMessage(bytes: Uint8Array): Omit<WireTransaction, "bytes" | "signatures"> {
  const r = new Reader(bytes);
  const m = readMessage(r);
  if (r.pos !== bytes.length) throw invalidParams(`${DESERIALIZE}: trailing bytes`);
  sanitize(m, null);
  return m;
}

/** Whether static key `i` is writable per the message header. */
export function isStaticWritable(tx: Omit<WireTransaction, "bytes" | "signatures">, i: number): boolean {
  const n = tx.staticKeys.length;
  if (i < tx.numRequiredSignatures) return i < tx.numRequiredSignatures - tx.numReadonlySigned;
  return i < n - tx.numReadonlyUnsigned;
}

/** Encodes a compact-u16 length prefix. */
export function encodeCompactU16(n: number): number[] {
  const out: number[] = [];
  let v = n;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    if (v === 0) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}
