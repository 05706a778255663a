import type { LocalKeypair } from "./keypair.ts";
import { encodeCompactU16 } from "./wire.ts";

/** An instruction to compile into a legacy message. */
export interface BuildInstruction {
  programId: Uint8Array;
  keys: { pubkey: Uint8Array; isSigner: boolean; isWritable: boolean }[];
  data: Uint8Array;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/**
 * Compiles instructions into a signed legacy transaction (wire bytes).
 * Account order: payer, writable signers, readonly signers, writable, readonly.
 */
export function buildSignedTransaction(
  payer: LocalKeypair,
  instructions: BuildInstruction[],
  recentBlockhash: Uint8Array,
  extraSigners: LocalKeypair[] = [],
): Uint8Array {
  const metas = new Map<string, { key: Uint8Array; signer: boolean; writable: boolean }>();
  const add = (key: Uint8Array, signer: boolean, writable: boolean) => {
    const k = hex(key);
    const m = metas.get(k);
    if (m) {
      m.signer ||= signer;
      m.writable ||= writable;
    } else metas.set(k, { key, signer, writable });
  };
  add(payer.publicKey, true, true);
  for (const ix of instructions) {
    for (const k of ix.keys) add(k.pubkey, k.isSigner, k.isWritable);
    add(ix.programId, false, false);
  }
  const payerHex = hex(payer.publicKey);
  const rest = [...metas.values()].filter((m) => hex(m.key) !== payerHex);
  const rank = (m: { signer: boolean; writable: boolean }) =>
    m.signer ? (m.writable ? 0 : 1) : m.writable ? 2 : 3;
  rest.sort((a, b) => rank(a) - rank(b));
  const ordered = [metas.get(payerHex)!, ...rest];
  const index = new Map(ordered.map((m, i) => [hex(m.key), i]));
  const numSigners = ordered.filter((m) => m.signer).length;
  const numReadonlySigned = ordered.filter((m) => m.signer && !m.writable).length;
  const numReadonlyUnsigned = ordered.filter((m) => !m.signer && !m.writable).length;

  const parts: number[] = [numSigners, numReadonlySigned, numReadonlyUnsigned];
  parts.push(...encodeCompactU16(ordered.length));
  const chunks: Uint8Array[] = [Uint8Array.from(parts)];
  for (const m of ordered) chunks.push(m.key);
  chunks.push(recentBlockhash);
  chunks.push(Uint8Array.from(encodeCompactU16(instructions.length)));
  for (const ix of instructions) {
    const head = [index.get(hex(ix.programId))!, ...encodeCompactU16(ix.keys.length)];
    for (const k of ix.keys) head.push(index.get(hex(k.pubkey))!);
    head.push(...encodeCompactU16(ix.data.length));
    chunks.push(Uint8Array.from(head), ix.data);
  }
  const message = Buffer.concat(chunks);
  const signers = new Map([payer, ...extraSigners].map((s) => [hex(s.publicKey), s]));
  const sigs: Uint8Array[] = [];
  for (const m of ordered.slice(0, numSigners)) {
    const s = signers.get(hex(m.key));
    if (!s) throw new Error(`missing signer ${hex(m.key)}`);
    sigs.push(s.sign(message));
  }
  return Buffer.concat([Uint8Array.from(encodeCompactU16(numSigners)), ...sigs, message]);
}
