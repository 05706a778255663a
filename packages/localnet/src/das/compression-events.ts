/**
 * What an executed transaction did to compressed trees, read the way a DAS indexer reads it: the SPL Noop inner
 * instructions invoked by SPL Account Compression (change logs: the new path of a changed leaf) and by Bubblegum
 * (the V1 leaf schema: asset id, owner, delegate, nonce, data and creator hashes, leaf hash), paired with the
 * metadata of the Bubblegum mint instruction that produced a new leaf. A Noop call made by any other program (or
 * at the top level) is ignored: anyone can call Noop with any bytes.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { decodeBase58 } from "../base58.ts";
import type { TxRecord } from "../history.ts";
import {
  BUBBLEGUM_PROGRAM,
  SPL_ACCOUNT_COMPRESSION_PROGRAM,
  SPL_NOOP_PROGRAM,
} from "../vendored-programs.ts";
import { parseWireTransaction } from "../wire.ts";
import { BorshReader } from "./borsh-reader.ts";
import { BUBBLEGUM_DISCRIMINATOR, type CompressedMetadata, readMetadataArgs } from "./bubblegum-metadata.ts";
import type { PathNode } from "./merkle-tree.ts";

/** A change-log event of one tree. */
export interface ChangeLogEvent {
  tree: string;
  path: PathNode[];
  seq: bigint;
  leafIndex: number;
  /** The Bubblegum instruction that made the change (DAS getAssetSignatures names it), "" when unknown. */
  instruction: string;
}

/**
 * A Bubblegum V1 leaf schema event, with the metadata the instruction that wrote the leaf states (a mint, or a
 * collection verification), null for the others (a transfer or delegation keeps the metadata).
 */
export interface LeafEvent {
  id: string;
  owner: string;
  delegate: string;
  nonce: bigint;
  dataHash: Uint8Array;
  creatorHash: Uint8Array;
  leafHash: Uint8Array;
  metadata: CompressedMetadata | null;
  /** The Bubblegum instruction that wrote the leaf, "" when unknown. */
  instruction: string;
}

/** One top-level instruction's compression events, in execution order. */
export interface CompressionEvents {
  changeLogs: ChangeLogEvent[];
  leaves: LeafEvent[];
}

/** `AccountCompressionEvent::ChangeLog(ChangeLogEvent::V1 { id, path, seq, index })`. */
function readChangeLog(data: Uint8Array): ChangeLogEvent | null {
  if (data[0] !== 0 || data[1] !== 0) return null;
  const r = new BorshReader(data);
  r.at = 2;
  const tree = r.key();
  const n = r.u32();
  if (n < 1 || n > 31) return null;
  const path: PathNode[] = [];
  for (let i = 0; i < n; i++) path.push({ node: r.bytes(32), index: r.u32() });
  const seq = r.u64();
  const leafIndex = r.u32();
  return { tree, path, seq, leafIndex, instruction: "" };
}

/** Bubblegum V1 instruction names as DAS gives them, by Anchor discriminator (sha256("global:<snake>")[0..8]). */
const INSTRUCTION_NAMES = new Map(
  [
    "Burn",
    "CancelRedeem",
    "CreateTree",
    "Compress",
    "DecompressV1",
    "Delegate",
    "MintToCollectionV1",
    "MintV1",
    "Redeem",
    "SetAndVerifyCollection",
    "SetDecompressibleState",
    "SetTreeDelegate",
    "Transfer",
    "UnverifyCollection",
    "UnverifyCreator",
    "UpdateMetadata",
    "VerifyCollection",
    "VerifyCreator",
  ].map((name) => {
    const snake = name
      .replace(/V1$/, "_v1")
      .replace(/([a-z])([A-Z])/g, "$1_$2")
      .toLowerCase();
    const disc = Buffer.from(sha256(new TextEncoder().encode(`global:${snake}`)).subarray(0, 8)).toString(
      "hex",
    );
    return [disc, name] as const;
  }),
);

function instructionName(program: string, data: Uint8Array): string | null {
  if (program !== BUBBLEGUM_PROGRAM || data.length < 8) return null;
  return INSTRUCTION_NAMES.get(Buffer.from(data.subarray(0, 8)).toString("hex")) ?? "Unknown";
}

/** `AccountCompressionEvent::ApplicationData(V1 { data })` holding a Bubblegum `LeafSchemaEvent` (V1 schema). */
function readLeafEvent(data: Uint8Array): Omit<LeafEvent, "metadata"> | null {
  if (data[0] !== 1 || data[1] !== 0) return null;
  const r = new BorshReader(data);
  r.at = 2;
  const len = r.u32();
  if (r.at + len > data.length) return null;
  // event_type LeafSchemaEvent (1), version V1 (0), LeafSchema::V1 (0)
  if (r.u8() !== 1 || r.u8() !== 0 || r.u8() !== 0) return null;
  return {
    instruction: "",
    id: r.key(),
    owner: r.key(),
    delegate: r.key(),
    nonce: r.u64(),
    dataHash: r.bytes(32),
    creatorHash: r.bytes(32),
    leafHash: r.bytes(32),
  };
}

/** Whether a transaction may carry compression events (cheap filter before decoding anything). */
export function mayCarryCompressionEvents(record: TxRecord): boolean {
  return (
    record.err === null &&
    record.accountKeys.includes(SPL_NOOP_PROGRAM) &&
    record.innerInstructions.length > 0
  );
}

/** The compression events of a landed transaction, per top-level instruction. */
export function readCompressionEvents(record: TxRecord): CompressionEvents[] {
  if (!mayCarryCompressionEvents(record)) return [];
  const keys = record.accountKeys;
  const top = parseWireTransaction(Buffer.from(record.tx, "base64")).instructions;
  const out: CompressionEvents[] = [];
  for (const inner of record.innerInstructions) {
    const events: CompressionEvents = { changeLogs: [], leaves: [] };
    const topIx = top[inner.index];
    if (!topIx) continue;
    /** The program running at each stack height (1 = the top-level instruction). */
    const stack: string[] = [keys[topIx.programIdIndex] ?? ""];
    let pending = bubblegumMetadata(
      stack[0]!,
      topIx.data,
      topIx.accounts.map((a) => keys[a] ?? ""),
    );
    let instruction = instructionName(stack[0]!, topIx.data) ?? "";
    for (const ix of inner.instructions) {
      const program = keys[ix.programIdIndex] ?? "";
      const height = ix.stackHeight ?? 2;
      stack.length = height - 1;
      const caller = stack[height - 2];
      stack.push(program);
      if (program === BUBBLEGUM_PROGRAM) {
        const data = decodeBase58(ix.data);
        instruction = instructionName(program, data) ?? instruction;
        pending = bubblegumMetadata(
          program,
          data,
          ix.accounts.map((a) => keys[a] ?? ""),
        );
        continue;
      }
      if (program !== SPL_NOOP_PROGRAM) continue;
      try {
        const data = decodeBase58(ix.data);
        if (caller === SPL_ACCOUNT_COMPRESSION_PROGRAM) {
          const log = readChangeLog(data);
          if (log) events.changeLogs.push({ ...log, instruction });
        } else if (caller === BUBBLEGUM_PROGRAM) {
          const leaf = readLeafEvent(data);
          if (leaf) {
            events.leaves.push({ ...leaf, metadata: pending, instruction });
            pending = null;
          }
        }
      } catch {
        // not an event this index reads
      }
    }
    if (events.changeLogs.length > 0 || events.leaves.length > 0) out.push(events);
  }
  return out;
}

/** Bytes before the MetadataArgs of an instruction on an existing leaf: root, data hash, creator hash, nonce, index. */
const LEAF_ARGS_BYTES = 32 * 3 + 8 + 4;

/**
 * The metadata a Bubblegum instruction states for the leaf it writes: MintV1, MintToCollectionV1 (collection verified;
 * account 8 is the collection mint), VerifyCollection / UnverifyCollection (the leaf's metadata with the collection's
 * flag set / cleared); null for any other instruction.
 */
function bubblegumMetadata(program: string, data: Uint8Array, accounts: string[]): CompressedMetadata | null {
  if (program !== BUBBLEGUM_PROGRAM || data.length < 8) return null;
  const disc = Buffer.from(data.subarray(0, 8)).toString("hex");
  const args = data.subarray(8);
  const ofCollection = (m: CompressedMetadata | null) => (m && m.collection?.key === accounts[8] ? m : null);
  if (disc === BUBBLEGUM_DISCRIMINATOR.mintV1) return readMetadataArgs(args);
  if (disc === BUBBLEGUM_DISCRIMINATOR.mintToCollectionV1) return ofCollection(readMetadataArgs(args, true));
  if (disc === BUBBLEGUM_DISCRIMINATOR.verifyCollection)
    return ofCollection(readMetadataArgs(args.subarray(LEAF_ARGS_BYTES), true));
  if (disc === BUBBLEGUM_DISCRIMINATOR.unverifyCollection)
    return ofCollection(readMetadataArgs(args.subarray(LEAF_ARGS_BYTES), false));
  return null;
}
