// Compressed NFTs (Bubblegum V1) on the real Bubblegum, SPL Account Compression and Noop programs for the lending
// program's tests and the compute-unit bench: a world with two collections, two trees and a pool listing the first
// (collections, trees, leaves and the tree copies are support/cnft.ts's, shared with the NFT market's tests); the
// TakeLoan, Repay and Liquidate instructions of a compressed NFT loan with its proof (LAYOUT.md "Compressed NFTs").
import { getTreeConfigAddress, transferLeaf } from "@cistern/localnet";
import type { CompressedCustody, PoolParams } from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  address,
  getAddressDecoder,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { expect } from "vitest";
import {
  addCompressionPrograms,
  BUBBLEGUM,
  COMPRESSION,
  chainRoot,
  configBump,
  copyRoot,
  type Leaf,
  leafRefusedIn,
  mintLeaf as mintLeafWith,
  moved,
  NOOP,
  newCollection,
  newTree,
  type Send,
  SYSTEM,
  type TreeCopy,
  u64le,
} from "./cnft.ts";
import { expectOk, kit } from "./kit.ts";
import {
  buildWorld,
  createPool,
  liquidateIx,
  nftLoanIxFor,
  poolParams,
  repayIx,
  type World,
} from "./world.ts";

export { BUBBLEGUM, COMPRESSION, type Leaf, moved, NOOP, SYSTEM, type TreeCopy } from "./cnft.ts";

const dec = getAddressDecoder();
export const ro = (a: Address) => ({ address: a, role: AccountRole.READONLY });
export const wr = (a: Address) => ({ address: a, role: AccountRole.WRITABLE });

let poolSeed = 300n;

const sender =
  (w: World): Send =>
  async (ixs, payer) =>
    expectOk(await w.h.trySend(ixs, payer));

export interface CnftWorld extends World {
  authority: KeyPairSigner;
  /** the compressed collection the pool lists (a sized Token Metadata collection NFT) */
  glass: Address;
  otherCollection: Address;
  cnftPool: Address;
  tree: TreeCopy;
  otherTree: TreeCopy;
}

/** Loads Token Metadata, Bubblegum, Compression and Noop; two collections, two trees, a pool listing the first (its
 * params overridden by `pool`, e.g. the auto-sell flag). */
export async function cnftWorld(pool: Partial<PoolParams> = {}): Promise<CnftWorld> {
  const w = await buildWorld();
  addCompressionPrograms(w.h.svm);
  const authority = await w.h.wallet(100_000_000_000n);
  const send = sender(w);
  const glass = await newCollection(send, authority);
  const otherCollection = await newCollection(send, authority);
  const tree = await newTree(send, authority);
  const otherTree = await newTree(send, authority);
  const cnftPool = await createPool(
    w.h,
    w.lender,
    w.currency,
    "nft-pool",
    poolSeed++,
    poolParams(glass, pool),
  );
  return { ...w, authority, glass, otherCollection, cnftPool, tree, otherTree };
}

/** Mints a leaf to `owner` (the borrower) into `tree` (the world's): into `collection` (the pool's; verified), or
 * naming it unverified, or outside any (null); the chain's root is the copy's after it. */
export async function mintLeaf(
  w: CnftWorld,
  opts: { owner?: Address; tree?: TreeCopy; collection?: Address | null; verified?: boolean } = {},
): Promise<Leaf> {
  const leaf = await mintLeafWith(sender(w), w.authority, {
    owner: opts.owner ?? w.borrower.address,
    tree: opts.tree ?? w.tree,
    collection: opts.collection === undefined ? w.glass : opts.collection,
    ...(opts.verified === undefined ? {} : { verified: opts.verified }),
  });
  expectRoot(w, leaf.tree);
  return leaf;
}

/** The chain's root of `tree` is the copy's: every leaf is what the test says it is. */
export function expectRoot(w: World, tree: TreeCopy): void {
  const onChain = chainRoot(w.h.data(tree.address));
  const expected = copyRoot(tree);
  if (onChain !== expected)
    throw new Error(`tree ${tree.address}: the chain's root ${onChain}, the copy's ${expected}`);
}

export interface TakeOverrides {
  args?: Uint8Array;
  proof?: Address[];
  treeAccount?: Address;
  bubblegum?: Address;
  attested?: Address;
  root?: Uint8Array;
}

/** TakeLoan of a compressed NFT (LAYOUT.md "Compressed NFTs"): 7 and 9 the tree, 8 the asset id, 13 the tree config,
 * 14 Bubblegum, 15 Compression, 16 Noop, then the proof; data: the terms, root, nonce, proof length, MetadataArgs. */
export async function takeCnftIx(w: CnftWorld, leaf: Leaf, o: TakeOverrides = {}) {
  const tree = o.treeAccount ?? leaf.tree.address;
  const ix = await nftLoanIxFor(w, {
    mint: leaf.asset,
    account: tree,
    collection: o.attested ?? w.glass,
    pool: w.cnftPool,
  });
  const accounts = [...(ix.accounts ?? [])].slice(0, 13);
  accounts[7] = wr(tree);
  accounts[8] = ro(leaf.asset);
  accounts[9] = wr(tree);
  const proof = o.proof ?? leaf.tree.proof(leaf.nonce);
  accounts.push(
    ro(address(getTreeConfigAddress(tree))),
    ro(o.bubblegum ?? BUBBLEGUM),
    ro(COMPRESSION),
    ro(NOOP),
    ...proof.map(ro),
  );
  const terms = new Uint8Array(ix.data ?? []);
  terms[2] = 0;
  terms[3] = 0;
  terms[121] = 3; // CompressedNft
  terms[122] = leaf.assetBump;
  terms[123] = await configBump(tree);
  const data = Uint8Array.from([
    ...terms,
    ...(o.root ?? leaf.tree.root),
    ...u64le(BigInt(leaf.nonce)),
    proof.length,
    ...(o.args ?? leaf.args),
  ]);
  return { ...ix, accounts, data };
}

/** The tag, root, data hash, creator hash of an ending. */
function endingData(leaf: Leaf, tag: number, dataHash = leaf.dataHash): Uint8Array {
  return Uint8Array.from([tag, ...leaf.tree.root, ...dataHash, ...leaf.creatorHash]);
}
const CNFT_ACCOUNTS = (leaf: Leaf) => [
  ro(leaf.tree.config),
  ro(BUBBLEGUM),
  ro(COMPRESSION),
  ro(NOOP),
  ro(SYSTEM),
  ...leaf.tree.proof(leaf.nonce).map(ro),
];

/** Repay: 6 and 7 the tree, 10 the tree config, 11 Bubblegum, 12 Compression, 13 Noop, 14 System, then the proof. */
export async function repayCnftIx(w: CnftWorld, loan: Address, leaf: Leaf, dataHash?: Uint8Array) {
  const ix = await repayIx(w, loan, w.cnftPool, leaf.tree.address);
  const accounts = [...(ix.accounts ?? [])];
  accounts[6] = wr(leaf.tree.address);
  accounts[7] = wr(leaf.tree.address);
  accounts.push(...CNFT_ACCOUNTS(leaf));
  return { ...ix, accounts, data: endingData(leaf, (ix.data ?? [])[0]!, dataHash) };
}

/** Liquidate: 4 the tree, 5 the pool owner's wallet, 7 the tree config, 8.. as Repay's 11.., then the proof. */
export async function liquidateCnftIx(w: CnftWorld, liquidator: KeyPairSigner, loan: Address, leaf: Leaf) {
  const ix = await liquidateIx(w, liquidator, loan, w.lender.address, w.cnftPool);
  const accounts = [...(ix.accounts ?? [])];
  accounts[4] = wr(leaf.tree.address);
  accounts[5] = ro(w.lender.address);
  accounts.push(...CNFT_ACCOUNTS(leaf));
  return { ...ix, accounts, data: endingData(leaf, (ix.data ?? [])[0]!) };
}

/** The transaction failed inside Bubblegum's Transfer (called by the lending program): the leaf did not verify
 * against the tree (SPL Account Compression's ConcurrentMerkleTreeError 6001, "Invalid root recomputed from proof"). */
export async function expectLeafRefused(w: World, ix: Instruction, payer: KeyPairSigner): Promise<void> {
  const out = await w.h.trySend([ix], payer);
  expect(out.ok).toBe(false);
  expect(leafRefusedIn(out.logs)).toBe(true);
}

/** Nothing was written: no loan, the leaf still its owner's (the tree's root unchanged). */
export function expectUntouched(w: CnftWorld, loan: Address, leaf: Leaf): void {
  expect(w.h.exists(loan)).toBe(false);
  expectRoot(w, leaf.tree);
}

/** The SDK's custody of `leaf` as it is now (its holder the owner and delegate), with a fresh proof and root from
 * the test's copy of its tree (what DAS would serve). */
export async function custodyOf(leaf: Leaf): Promise<CompressedCustody> {
  return {
    standard: "CompressedNft",
    tree: leaf.tree.address,
    treeConfig: leaf.tree.config,
    treeConfigBump: await configBump(leaf.tree.address),
    assetId: leaf.asset,
    assetBump: leaf.assetBump,
    nonce: BigInt(leaf.nonce),
    root: leaf.tree.root,
    proof: leaf.tree.proof(leaf.nonce),
    dataHash: leaf.dataHash,
    creatorHash: leaf.creatorHash,
    metadataArgs: leaf.args,
    collection: leaf.collection,
    owner: leaf.owner,
    delegate: leaf.owner,
  };
}

/** Other leaves of the world's tree change (a stranger mints one and gives it to the borrower): every proof taken
 * before is stale. Returns the leaf given. */
export async function changeOtherLeaves(w: CnftWorld): Promise<Leaf> {
  const stranger = await w.h.wallet();
  const other = await mintLeaf(w, { owner: stranger.address });
  const give = transferLeaf({
    tree: w.tree.address,
    owner: stranger.address,
    delegate: stranger.address,
    newOwner: w.borrower.address,
    root: dec.decode(w.tree.root),
    dataHash: dec.decode(other.dataHash),
    creatorHash: dec.decode(other.creatorHash),
    nonce: BigInt(other.nonce),
    index: other.nonce,
    proof: w.tree.proof(other.nonce),
  });
  expectOk(await w.h.trySend([kit(give, [stranger])], stranger));
  moved(other, w.borrower.address);
  expectRoot(w, w.tree);
  return other;
}
