import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";

/** Chain metadata stored beside the LiteSVM state. */
export interface SnapshotMeta {
  version: 1;
  /** Last ledger sequence number included in the state. */
  seq: number;
  slot: number;
  blockHeight: number;
  clockOffsetSeconds: number;
  genesisHash: string;
  blockhashes: [string, number][];
}

const MAGIC = Buffer.from("CSTRNSN1");

/**
 * Writes `MAGIC | u32 metaLen | meta JSON | svm bytes` atomically (temp file, fsync, rename); the snapshot it
 * replaces is kept as `previousPath`.
 */
export function writeSnapshot(
  path: string,
  svmBytes: Uint8Array,
  meta: SnapshotMeta,
  previousPath: string,
): void {
  const metaBuf = Buffer.from(JSON.stringify(meta));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(metaBuf.length);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w");
  try {
    for (const part of [MAGIC, len, metaBuf, svmBytes]) writeSync(fd, part);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (existsSync(path)) renameSync(path, previousPath);
  renameSync(tmp, path);
}

/** Reads a snapshot written by {@link writeSnapshot}. */
export function readSnapshot(path: string): { meta: SnapshotMeta; svmBytes: Uint8Array } {
  const buf = readFileSync(path);
  if (buf.length < 12 || !buf.subarray(0, 8).equals(MAGIC))
    throw new Error(`${path} is not a localnet snapshot`);
  const metaLen = buf.readUInt32LE(8);
  const meta = JSON.parse(buf.subarray(12, 12 + metaLen).toString("utf8")) as SnapshotMeta;
  return { meta, svmBytes: buf.subarray(12 + metaLen) };
}
