/**
 * A compressed NFT's custody (Bubblegum V1 leaf, LAYOUT.md "Custody", "Compressed NFTs"): what TakeLoan, Repay and
 * Liquidate need for one leaf, built from a DAS `getAsset` and a fresh `getAssetProof`. The leaf's MetadataArgs are
 * serialised as Bubblegum hashes them (mpl-bubblegum `state/metaplex_adapter.rs`, `utils.rs`) and the hashes are
 * checked against the data and creator hashes DAS states the leaf commits to: metadata that would not verify is
 * refused here, before a transaction is built.
 */

import { keccak_256 } from "@noble/hashes/sha3.js";
import { type Address, getAddressEncoder } from "@solana/kit";
import { addressBytes } from "../address-text.ts";
import { findProgramDerivedAddress } from "../find-pda.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";

export const BUBBLEGUM_PROGRAM_ADDRESS = "BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY" as Address;
export const SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS =
  "cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK" as Address;
export const SPL_NOOP_PROGRAM_ADDRESS = "noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV" as Address;

/** A leaf held by the loan PDA for the loan's life (Bubblegum Transfer in and out). */
export interface CompressedCustody {
  standard: "CompressedNft";
  tree: Address;
  treeConfig: Address;
  treeConfigBump: number;
  /** Bubblegum's asset id ["asset", tree, nonce u64 LE] (the loan's collateral "mint"). */
  assetId: Address;
  assetBump: number;
  /** The leaf's nonce (its index in the tree). */
  nonce: bigint;
  /** The root the proof was taken against. */
  root: Uint8Array;
  /** The proof nodes below the tree's canopy, leaf level first. */
  proof: Address[];
  dataHash: Uint8Array;
  creatorHash: Uint8Array;
  /** The MetadataArgs bytes the leaf commits to (TakeLoan's data tail). */
  metadataArgs: Uint8Array;
  /** The verified collection the metadata names (null: none verified). */
  collection: Address | null;
  owner: Address;
  delegate: Address;
}

/** Bubblegum V1 MetadataArgs, every field the Borsh encoding carries. */
export interface BubblegumMetadataArgs {
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  primarySaleHappened: boolean;
  isMutable: boolean;
  editionNonce: number | null;
  /** 0 NonFungible, 1 FungibleAsset, 2 Fungible, 3 NonFungibleEdition; null: None. */
  tokenStandard: number | null;
  collection: { key: Address; verified: boolean } | null;
  uses: { useMethod: number; remaining: bigint; total: bigint } | null;
  /** 0 Original, 1 Token2022. */
  tokenProgramVersion: number;
  creators: { address: Address; verified: boolean; share: number }[];
}

const utf8 = new TextEncoder();

function borshString(s: string): number[] {
  const b = utf8.encode(s);
  return [...u32le(b.length), ...b];
}
function u32le(v: number): number[] {
  return [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
}
function u64le(v: bigint): number[] {
  const out: number[] = [];
  for (let i = 0n; i < 8n; i++) out.push(Number((v >> (8n * i)) & 0xffn));
  return out;
}

/** The Borsh bytes of MetadataArgs, in mpl-bubblegum's field order. */
export function encodeBubblegumMetadataArgs(m: BubblegumMetadataArgs): Uint8Array {
  const out: number[] = [...borshString(m.name), ...borshString(m.symbol), ...borshString(m.uri)];
  out.push(m.sellerFeeBasisPoints & 0xff, m.sellerFeeBasisPoints >> 8);
  out.push(m.primarySaleHappened ? 1 : 0, m.isMutable ? 1 : 0);
  out.push(...(m.editionNonce === null ? [0] : [1, m.editionNonce]));
  out.push(...(m.tokenStandard === null ? [0] : [1, m.tokenStandard]));
  if (m.collection === null) out.push(0);
  else out.push(1, m.collection.verified ? 1 : 0, ...addressBytes(m.collection.key));
  if (m.uses === null) out.push(0);
  else out.push(1, m.uses.useMethod, ...u64le(m.uses.remaining), ...u64le(m.uses.total));
  out.push(m.tokenProgramVersion, ...u32le(m.creators.length));
  for (const c of m.creators) out.push(...addressBytes(c.address), c.verified ? 1 : 0, c.share);
  return Uint8Array.from(out);
}

/** Bubblegum's data hash: keccak(keccak(args) ++ seller fee u16 LE). */
export function hashBubblegumMetadata(args: Uint8Array, sellerFeeBasisPoints: number): Uint8Array {
  return keccak_256
    .create()
    .update(keccak_256(args))
    .update(Uint8Array.of(sellerFeeBasisPoints & 0xff, sellerFeeBasisPoints >> 8))
    .digest();
}

/** Bubblegum's creator hash: keccak(address ++ verified ++ share, for each creator). */
export function hashBubblegumCreators(creators: BubblegumMetadataArgs["creators"]): Uint8Array {
  const h = keccak_256.create();
  for (const c of creators)
    h.update(Uint8Array.from([...addressBytes(c.address), c.verified ? 1 : 0, c.share]));
  return h.digest();
}

/** The TreeConfig PDA of a tree ([tree] under Bubblegum) and its bump. */
export function findTreeConfigPda(tree: Address): Promise<readonly [Address, number]> {
  return findProgramDerivedAddress({
    programAddress: BUBBLEGUM_PROGRAM_ADDRESS,
    seeds: [addressBytes(tree)],
  });
}

/** A leaf's asset id (["asset", tree, nonce u64 LE] under Bubblegum) and its bump. */
export function findCompressedAssetPda(tree: Address, nonce: bigint): Promise<readonly [Address, number]> {
  return findProgramDerivedAddress({
    programAddress: BUBBLEGUM_PROGRAM_ADDRESS,
    seeds: [utf8.encode("asset"), addressBytes(tree), Uint8Array.from(u64le(nonce))],
  });
}

/**
 * A concurrent Merkle tree account's depth and canopy depth (spl-account-compression: a 56-byte header with max
 * buffer size u32 at 2 and max depth u32 at 6, 24 bytes of sequence, then the change logs, the rightmost path and the
 * canopy's 2^(c+1) - 2 nodes). Null when the bytes are not a tree.
 */
export function readTreeShape(data: Uint8Array): { maxDepth: number; canopyDepth: number } | null {
  if (data.length < 80 || data[0] !== 1) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const maxBufferSize = view.getUint32(2, true);
  const maxDepth = view.getUint32(6, true);
  const used = 56 + 24 + maxBufferSize * (32 + 32 * maxDepth + 8) + 32 * maxDepth + 40;
  const canopyNodes = (data.length - used) / 32;
  if (canopyNodes < 0 || !Number.isInteger(canopyNodes)) return null;
  return { maxDepth, canopyDepth: Math.max(0, Math.round(Math.log2(canopyNodes + 2)) - 1) };
}

/** The fields of a DAS `getAsset` answer a compressed leaf's custody reads. */
export interface DasCompressedAsset {
  id: string;
  content?: { json_uri?: string; metadata?: { name?: string; symbol?: string; token_standard?: string } };
  grouping?: { group_key: string; group_value: string }[];
  royalty?: { basis_points?: number; primary_sale_happened?: boolean };
  creators?: { address: string; share: number; verified: boolean }[];
  ownership?: { owner?: string; delegate?: string | null };
  supply?: { edition_nonce?: number | null } | null;
  mutable?: boolean;
  uses?: { use_method?: string; remaining?: number; total?: number } | null;
  compression?: {
    compressed?: boolean;
    data_hash?: string;
    creator_hash?: string;
    tree?: string;
    leaf_id?: number;
  };
}

/** DAS `getAssetProof`'s answer. */
export interface DasProof {
  root: string;
  proof: string[];
  tree_id: string;
}

const TOKEN_STANDARDS: Record<string, number> = {
  NonFungible: 0,
  FungibleAsset: 1,
  Fungible: 2,
  NonFungibleEdition: 3,
};
const USE_METHODS: Record<string, number> = { Burn: 0, Multiple: 1, Single: 2 };

function invalid(message: string): never {
  throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, message);
}

const hash32 = (text: string): Uint8Array => Uint8Array.from(getAddressEncoder().encode(text as Address));
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * The custody of a compressed leaf from DAS: the MetadataArgs rebuilt from `getAsset` (checked against the leaf's
 * data and creator hashes), the proof cut to the nodes below the tree's canopy (`canopyDepth`, read from the tree
 * account: readTreeShape). Refuses an asset that is not compressed, a proof of another tree, and metadata whose
 * hashes differ from the leaf's (tried with the original token program version, then Token-2022).
 */
export async function compressedCustodyFromDas(
  asset: DasCompressedAsset,
  proof: DasProof,
  canopyDepth: number,
): Promise<CompressedCustody> {
  const c = asset.compression;
  const owner = asset.ownership?.owner;
  if (!c?.compressed || !c.tree || c.leaf_id === undefined || !c.data_hash || !c.creator_hash || !owner)
    invalid(`${asset.id} is not a compressed NFT`);
  if (proof.tree_id !== c.tree) invalid(`the proof of ${asset.id} is of another tree`);
  const tree = c.tree as Address;
  const nonce = BigInt(c.leaf_id);
  const [[assetId, assetBump], [treeConfig, treeConfigBump]] = await Promise.all([
    findCompressedAssetPda(tree, nonce),
    findTreeConfigPda(tree),
  ]);
  if (assetId !== asset.id) invalid(`${asset.id} is not the asset id of leaf ${nonce} of ${tree}`);
  const collectionKey = asset.grouping?.find((g) => g.group_key === "collection")?.group_value ?? null;
  const creators = (asset.creators ?? []).map((x) => ({
    address: x.address as Address,
    verified: x.verified,
    share: x.share,
  }));
  const standard = asset.content?.metadata?.token_standard;
  const uses = asset.uses ?? null;
  const base: BubblegumMetadataArgs = {
    name: asset.content?.metadata?.name ?? "",
    symbol: asset.content?.metadata?.symbol ?? "",
    uri: asset.content?.json_uri ?? "",
    sellerFeeBasisPoints: asset.royalty?.basis_points ?? 0,
    primarySaleHappened: asset.royalty?.primary_sale_happened ?? false,
    isMutable: asset.mutable ?? true,
    editionNonce: asset.supply?.edition_nonce ?? null,
    tokenStandard: standard === undefined ? 0 : (TOKEN_STANDARDS[standard] ?? null),
    // DAS groups a leaf under a collection only once it is verified
    collection: collectionKey === null ? null : { key: collectionKey as Address, verified: true },
    uses:
      uses === null || uses.use_method === undefined
        ? null
        : {
            useMethod: USE_METHODS[uses.use_method] ?? 0,
            remaining: BigInt(uses.remaining ?? 0),
            total: BigInt(uses.total ?? 0),
          },
    tokenProgramVersion: 0,
    creators,
  };
  const dataHash = hash32(c.data_hash);
  const creatorHash = hash32(c.creator_hash);
  if (!same(hashBubblegumCreators(creators), creatorHash))
    invalid(`the creators DAS lists for ${asset.id} are not the ones its leaf commits to`);
  const metadataArgs = [base, { ...base, tokenProgramVersion: 1 }]
    .map(encodeBubblegumMetadataArgs)
    .find((args) => same(hashBubblegumMetadata(args, base.sellerFeeBasisPoints), dataHash));
  if (metadataArgs === undefined)
    invalid(`the metadata DAS serves for ${asset.id} is not the metadata its leaf commits to`);
  const below = proof.proof.length - canopyDepth;
  if (below < 0) invalid(`the proof of ${asset.id} is shorter than the tree's canopy`);
  return {
    standard: "CompressedNft",
    tree,
    treeConfig,
    treeConfigBump,
    assetId,
    assetBump,
    nonce,
    root: hash32(proof.root),
    proof: proof.proof.slice(0, below) as Address[],
    dataHash,
    creatorHash,
    metadataArgs,
    collection: base.collection?.key ?? null,
    owner: owner as Address,
    delegate: (asset.ownership?.delegate ?? owner) as Address,
  };
}

/** TakeLoan's data after the 124 bytes of terms: root, nonce u64, proof length u8, MetadataArgs. */
export function compressedTakeLoanTail(c: CompressedCustody): Uint8Array {
  return Uint8Array.from([...c.root, ...u64le(c.nonce), c.proof.length, ...c.metadataArgs]);
}

/** Repay's and Liquidate's 97 bytes: tag, root, data hash, creator hash. */
export function compressedEndingData(tag: number, c: CompressedCustody): Uint8Array {
  return Uint8Array.from([tag, ...c.root, ...c.dataHash, ...c.creatorHash]);
}
