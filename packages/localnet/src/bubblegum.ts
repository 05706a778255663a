/**
 * Bubblegum V1 (loaded at its mainnet id) with SPL Account Compression and SPL Noop: the instructions the demo world
 * sends (a tree: its account and CreateTreeConfig; MintToCollectionV1; Transfer), Borsh-encoded by hand from the
 * program's IDL (mpl-bubblegum `idls/bubblegum.json`), and the account layouts read back (TreeConfig, the
 * concurrent Merkle tree's header and current root).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { decodeAddress, encodeBase58 } from "./base58.ts";
import {
  BUBBLEGUM_DISCRIMINATOR,
  encodeMetadataArgs,
  type MetadataArgsInput,
} from "./das/bubblegum-metadata.ts";
import { hashPair } from "./das/merkle-tree.ts";
import { TOKEN_METADATA_PROGRAM_ADDRESS } from "./demo-world.ts";
import { findProgramAddressSync } from "./pda.ts";
import { getMasterEditionAddress, getMetadataAddress } from "./token-metadata.ts";
import type { BuildInstruction } from "./tx-builder.ts";
import { BUBBLEGUM_PROGRAM, SPL_ACCOUNT_COMPRESSION_PROGRAM, SPL_NOOP_PROGRAM } from "./vendored-programs.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";

/** A tree's shape: depth (2^depth leaves), change-log buffer (concurrent writes per slot) and canopy depth. */
export interface TreeShape {
  maxDepth: number;
  maxBufferSize: number;
  canopyDepth: number;
}

const meta = (a: string, isSigner: boolean, isWritable: boolean) => ({
  pubkey: decodeAddress(a),
  isSigner,
  isWritable,
});
const disc = (hex: string) => Buffer.from(hex, "hex");
const u32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};
const u64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return b;
};

/** Bytes of a concurrent Merkle tree account: header, change logs, rightmost path, canopy (spl-account-compression). */
export function getMerkleTreeAccountSize(shape: TreeShape): number {
  const header = 56;
  const changeLog = 32 + 32 * shape.maxDepth + 8;
  const path = 32 * shape.maxDepth + 40;
  const canopy = (2 ** (shape.canopyDepth + 1) - 2) * 32;
  return header + 24 + shape.maxBufferSize * changeLog + path + canopy;
}

/** The TreeConfig PDA of a tree: [tree] under Bubblegum. */
export function getTreeConfigAddress(tree: string): string {
  return findProgramAddressSync([decodeAddress(tree)], BUBBLEGUM_PROGRAM)[0];
}

/** A compressed asset's id: ["asset", tree, nonce u64 LE] under Bubblegum. */
export function getCompressedAssetId(tree: string, nonce: bigint): string {
  return findProgramAddressSync(
    [Buffer.from("asset"), decodeAddress(tree), u64(nonce)],
    BUBBLEGUM_PROGRAM,
  )[0];
}

/** Bubblegum's signer for Token Metadata collection CPIs: ["collection_cpi"]. */
function getCollectionCpiSigner(): string {
  return findProgramAddressSync([Buffer.from("collection_cpi")], BUBBLEGUM_PROGRAM)[0];
}

/** TreeConfig: discriminator, tree creator, tree delegate, total mint capacity (72), num minted (80). */
export function readTreeConfig(
  data: Uint8Array,
): { creator: string; capacity: bigint; numMinted: bigint } | null {
  if (data.length < 88) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    creator: encodeBase58(data.subarray(8, 40)),
    capacity: view.getBigUint64(72, true),
    numMinted: view.getBigUint64(80, true),
  };
}

/** A tree account's shape and current root (the root of its active change log). */
export function readMerkleTree(data: Uint8Array): (TreeShape & { root: string; seq: bigint }) | null {
  if (data.length < 80 || data[0] !== 1) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const maxBufferSize = view.getUint32(2, true);
  const maxDepth = view.getUint32(6, true);
  const seq = view.getBigUint64(56, true);
  const active = Number(view.getBigUint64(64, true));
  const rootAt = 80 + active * (40 + 32 * maxDepth);
  const used = getMerkleTreeAccountSize({ maxDepth, maxBufferSize, canopyDepth: 0 });
  const canopyNodes = (data.length - used) / 32;
  return {
    maxDepth,
    maxBufferSize,
    canopyDepth: Math.max(0, Math.round(Math.log2(canopyNodes + 2)) - 1),
    root: encodeBase58(data.subarray(rootAt, rootAt + 32)),
    seq,
  };
}

/**
 * The hash a Bubblegum V1 leaf holds (LeafSchema V1): keccak(version 1, asset id, owner, delegate, nonce u64 LE, data
 * hash, creator hash), base58 in and out; what tells from the tree who owns a compressed asset.
 */
export function getLeafHash(leaf: {
  assetId: string;
  owner: string;
  delegate: string;
  nonce: bigint;
  dataHash: string;
  creatorHash: string;
}): string {
  const h = keccak_256.create();
  h.update(Uint8Array.of(1));
  for (const a of [leaf.assetId, leaf.owner, leaf.delegate]) h.update(decodeAddress(a));
  h.update(u64(leaf.nonce));
  h.update(decodeAddress(leaf.dataHash));
  h.update(decodeAddress(leaf.creatorHash));
  return encodeBase58(h.digest());
}

/**
 * The root a leaf and its proof (DAS getAssetProof: the leaf, its siblings from the bottom up, the leaf's heap index
 * 2^depth + leaf index) hash up to, base58: equal to the tree account's root when the proof verifies.
 */
export function getRootFromProof(p: { leaf: string; proof: string[]; nodeIndex: number }): string {
  let node = decodeAddress(p.leaf);
  let index = p.nodeIndex - 2 ** p.proof.length;
  for (const sibling of p.proof) {
    node = index % 2 === 0 ? hashPair(node, decodeAddress(sibling)) : hashPair(decodeAddress(sibling), node);
    index = Math.floor(index / 2);
  }
  return encodeBase58(node);
}

/** The System createAccount of a tree account (owner SPL Account Compression), then CreateTreeConfig. */
export function createTreeInstructions(p: {
  payer: string;
  tree: string;
  shape: TreeShape;
  lamports: bigint;
}): BuildInstruction[] {
  const space = getMerkleTreeAccountSize(p.shape);
  const createAccount: BuildInstruction = {
    programId: decodeAddress(SYSTEM_PROGRAM),
    keys: [meta(p.payer, true, true), meta(p.tree, true, true)],
    data: Buffer.concat([
      u32(0),
      u64(p.lamports),
      u64(BigInt(space)),
      decodeAddress(SPL_ACCOUNT_COMPRESSION_PROGRAM),
    ]),
  };
  const createTreeConfig: BuildInstruction = {
    programId: decodeAddress(BUBBLEGUM_PROGRAM),
    keys: [
      meta(getTreeConfigAddress(p.tree), false, true),
      meta(p.tree, false, true),
      meta(p.payer, true, true),
      meta(p.payer, true, false), // tree creator
      meta(SPL_NOOP_PROGRAM, false, false),
      meta(SPL_ACCOUNT_COMPRESSION_PROGRAM, false, false),
      meta(SYSTEM_PROGRAM, false, false),
    ],
    // max_depth, max_buffer_size, public: Some(false)
    data: Buffer.concat([
      disc(BUBBLEGUM_DISCRIMINATOR.createTree),
      u32(p.shape.maxDepth),
      u32(p.shape.maxBufferSize),
      Uint8Array.of(1, 0),
    ]),
  };
  return [createAccount, createTreeConfig];
}

/** The accounts MintV1 and MintToCollectionV1 start with: tree config, owner (and delegate), tree, payer, tree delegate. */
function mintAccounts(p: { tree: string; owner: string; authority: string }) {
  return [
    meta(getTreeConfigAddress(p.tree), false, true),
    meta(p.owner, false, false),
    meta(p.owner, false, false), // leaf delegate: the owner
    meta(p.tree, false, true),
    meta(p.authority, true, true), // payer
    meta(p.authority, true, false), // tree delegate
  ];
}

const LOG_AND_COMPRESSION = [
  meta(SPL_NOOP_PROGRAM, false, false),
  meta(SPL_ACCOUNT_COMPRESSION_PROGRAM, false, false),
];

/** MintV1: a leaf owned (and delegated) by `owner` in `tree`, outside any collection; `authority` is the tree's creator. */
export function mintV1(p: {
  tree: string;
  owner: string;
  authority: string;
  metadata: MetadataArgsInput;
}): BuildInstruction {
  return {
    programId: decodeAddress(BUBBLEGUM_PROGRAM),
    keys: [...mintAccounts(p), ...LOG_AND_COMPRESSION, meta(SYSTEM_PROGRAM, false, false)],
    data: Buffer.concat([disc(BUBBLEGUM_DISCRIMINATOR.mintV1), encodeMetadataArgs(p.metadata)]),
  };
}

/**
 * MintToCollectionV1: a leaf owned by `owner` in `tree`, verified into the Token Metadata collection NFT
 * `metadata.collection`; `authority` is the tree's creator (its delegate) and the collection's update authority,
 * and pays.
 */
export function mintToCollectionV1(p: {
  tree: string;
  owner: string;
  authority: string;
  metadata: MetadataArgsInput & { collection: string };
}): BuildInstruction {
  const collection = p.metadata.collection;
  return {
    programId: decodeAddress(BUBBLEGUM_PROGRAM),
    keys: [
      ...mintAccounts(p),
      meta(p.authority, true, false), // collection authority
      meta(BUBBLEGUM_PROGRAM, false, false), // collection authority record: none
      meta(collection, false, false),
      meta(getMetadataAddress(collection), false, true),
      meta(getMasterEditionAddress(collection), false, false),
      meta(getCollectionCpiSigner(), false, false),
      ...LOG_AND_COMPRESSION,
      meta(TOKEN_METADATA_PROGRAM_ADDRESS, false, false),
      meta(SYSTEM_PROGRAM, false, false),
    ],
    data: Buffer.concat([disc(BUBBLEGUM_DISCRIMINATOR.mintToCollectionV1), encodeMetadataArgs(p.metadata)]),
  };
}

/**
 * Transfer of a leaf by its owner (who signs) to `newOwner`: the leaf's fields as DAS serves them, the root the
 * proof was taken against, and the proof nodes below the tree's canopy as remaining accounts.
 */
export function transferLeaf(p: {
  tree: string;
  owner: string;
  delegate: string;
  newOwner: string;
  root: string;
  dataHash: string;
  creatorHash: string;
  nonce: bigint;
  index: number;
  proof: string[];
}): BuildInstruction {
  return {
    programId: decodeAddress(BUBBLEGUM_PROGRAM),
    keys: [
      meta(getTreeConfigAddress(p.tree), false, false),
      meta(p.owner, true, false),
      meta(p.delegate, false, false),
      meta(p.newOwner, false, false),
      meta(p.tree, false, true),
      meta(SPL_NOOP_PROGRAM, false, false),
      meta(SPL_ACCOUNT_COMPRESSION_PROGRAM, false, false),
      meta(SYSTEM_PROGRAM, false, false),
      ...p.proof.map((node) => meta(node, false, false)),
    ],
    data: Buffer.concat([
      disc(BUBBLEGUM_DISCRIMINATOR.transfer),
      decodeAddress(p.root),
      decodeAddress(p.dataHash),
      decodeAddress(p.creatorHash),
      u64(p.nonce),
      u32(p.index),
    ]),
  };
}

/**
 * VerifyCollection of a leaf minted naming `metadata.collection` unverified: the collection's update authority
 * `authority` signs and pays; `metadata` is the leaf's metadata as minted (its hash is the leaf's data hash).
 */
export function verifyCollectionLeaf(p: {
  tree: string;
  owner: string;
  delegate: string;
  authority: string;
  treeDelegate: string;
  root: string;
  dataHash: string;
  creatorHash: string;
  nonce: bigint;
  index: number;
  metadata: MetadataArgsInput & { collection: string };
  proof: string[];
}): BuildInstruction {
  const collection = p.metadata.collection;
  return {
    programId: decodeAddress(BUBBLEGUM_PROGRAM),
    keys: [
      meta(getTreeConfigAddress(p.tree), false, false),
      meta(p.owner, false, false),
      meta(p.delegate, false, false),
      meta(p.tree, false, true),
      meta(p.authority, true, true), // payer
      meta(p.treeDelegate, false, false),
      meta(p.authority, true, false), // collection authority
      meta(BUBBLEGUM_PROGRAM, false, false), // collection authority record: none
      meta(collection, false, false),
      meta(getMetadataAddress(collection), false, true),
      meta(getMasterEditionAddress(collection), false, false),
      meta(getCollectionCpiSigner(), false, false),
      ...LOG_AND_COMPRESSION,
      meta(TOKEN_METADATA_PROGRAM_ADDRESS, false, false),
      meta(SYSTEM_PROGRAM, false, false),
      ...p.proof.map((node) => meta(node, false, false)),
    ],
    data: Buffer.concat([
      disc(BUBBLEGUM_DISCRIMINATOR.verifyCollection),
      decodeAddress(p.root),
      decodeAddress(p.dataHash),
      decodeAddress(p.creatorHash),
      u64(p.nonce),
      u32(p.index),
      encodeMetadataArgs(p.metadata),
    ]),
  };
}
