// Compressed NFTs (Bubblegum V1) on the real Bubblegum, SPL Account Compression and Noop programs for the lending
// program's tests and the compute-unit bench: a world with two collections, two trees and a pool listing the first;
// leaves minted into them, with a copy of each tree (leaves hashed as Bubblegum hashes them) whose root is checked
// against the chain's; the TakeLoan, Repay and Liquidate instructions of a compressed NFT loan with its proof
// (LAYOUT.md "Compressed NFTs").
import {
  createTreeInstructions,
  encodeMetadataArgs,
  getCompressedAssetId,
  getLeafHash,
  getMasterEditionAddress,
  getMetadataAddress,
  getTreeConfigAddress,
  type MetadataArgsInput,
  mintToCollectionV1,
  mintV1,
  readMerkleTree,
  readVendoredProgram,
  VENDORED_PROGRAMS,
} from "@cistern/localnet";
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  AccountRole,
  type Address,
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  getProgramDerivedAddress,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import { computeLimit, expectOk, kit } from "./kit.ts";
import {
  buildWorld,
  createPool,
  liquidateIx,
  nftLoanIxFor,
  poolParams,
  repayIx,
  type World,
} from "./world.ts";

export const TM = address("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s");
export const BUBBLEGUM = address("BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY");
export const COMPRESSION = address("cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK");
export const NOOP = address("noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV");
export const SYSTEM = address("11111111111111111111111111111111");
const SYSVAR_INSTRUCTIONS = address("Sysvar1nstructions1111111111111111111111111");
const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
/** The demo's compressed collection shape: a proof of 3 nodes below the canopy. */
const SHAPE = { maxDepth: 14, maxBufferSize: 64, canopyDepth: 11 };
const PROOF_LEN = SHAPE.maxDepth - SHAPE.canopyDepth;
const dec = getAddressDecoder();
const enc = getAddressEncoder();
export const ro = (a: Address) => ({ address: a, role: AccountRole.READONLY });
export const wr = (a: Address) => ({ address: a, role: AccountRole.WRITABLE });

const keccak = (...parts: Uint8Array[]) => {
  const h = keccak_256.create();
  for (const p of parts) h.update(p);
  return h.digest();
};
const u64le = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return b;
};

/** A copy of one tree's leaves, hashed as SPL Account Compression hashes nodes (keccak(left || right)). */
export class TreeCopy {
  readonly leaves = new Map<number, Uint8Array>();
  private readonly empty: Uint8Array[] = [new Uint8Array(32)];
  constructor(
    readonly address: Address,
    readonly config: Address,
  ) {
    for (let l = 1; l <= SHAPE.maxDepth; l++) this.empty.push(keccak(this.empty[l - 1]!, this.empty[l - 1]!));
  }
  node(level: number, index: number): Uint8Array {
    const from = index * 2 ** level;
    const to = from + 2 ** level;
    if (![...this.leaves.keys()].some((i) => i >= from && i < to)) return this.empty[level]!;
    if (level === 0) return this.leaves.get(index)!;
    return keccak(this.node(level - 1, 2 * index), this.node(level - 1, 2 * index + 1));
  }
  get root(): Uint8Array {
    return this.node(SHAPE.maxDepth, 0);
  }
  /** The proof nodes below the canopy, as accounts. */
  proof(index: number): Address[] {
    return Array.from({ length: PROOF_LEN }, (_, level) =>
      dec.decode(this.node(level, (index >> level) ^ 1)),
    );
  }
}

/** A leaf as Bubblegum states it. */
export interface Leaf {
  tree: TreeCopy;
  nonce: number;
  asset: Address;
  assetBump: number;
  /** MetadataArgs as the leaf commits to them (collection verified when minted into one). */
  args: Uint8Array;
  dataHash: Uint8Array;
  creatorHash: Uint8Array;
  owner: Address;
}

function leafNode(l: Leaf, owner: Address): Uint8Array {
  const hash = getLeafHash({
    assetId: l.asset,
    owner,
    delegate: owner,
    nonce: BigInt(l.nonce),
    dataHash: dec.decode(l.dataHash),
    creatorHash: dec.decode(l.creatorHash),
  });
  return enc.encode(address(hash)) as Uint8Array;
}

/** The leaf now belongs to `owner` (as a Transfer leaves it: delegate = owner). */
export function moved(l: Leaf, owner: Address): void {
  l.owner = owner;
  l.tree.leaves.set(l.nonce, leafNode(l, owner));
}

/** MetadataArgs with the collection's `verified` flag set as a mint into the collection sets it before hashing. */
function committedArgs(m: MetadataArgsInput, verified: boolean): Uint8Array {
  const args = Uint8Array.from(encodeMetadataArgs(m));
  if (m.collection !== null) {
    const at =
      12 +
      Buffer.byteLength(m.name) +
      Buffer.byteLength(m.symbol) +
      Buffer.byteLength(m.uri) +
      2 +
      5; /* primary sale, mutable, edition nonce None, token standard Some(NonFungible) */
    args[at + 1] = verified ? 1 : 0;
  }
  return args;
}

function hashesOf(args: Uint8Array, m: MetadataArgsInput) {
  const fee = new Uint8Array(2);
  new DataView(fee.buffer).setUint16(0, m.sellerFeeBasisPoints, true);
  const creators = m.creators.map((c) =>
    Uint8Array.from([...(enc.encode(address(c.address)) as Uint8Array), c.verified ? 1 : 0, c.share]),
  );
  return { dataHash: keccak(keccak(args), fee), creatorHash: keccak(...creators) };
}

export interface CnftWorld extends World {
  authority: KeyPairSigner;
  /** the compressed collection the pool lists (a sized Token Metadata collection NFT) */
  glass: Address;
  otherCollection: Address;
  cnftPool: Address;
  tree: TreeCopy;
  otherTree: TreeCopy;
}

let poolSeed = 300n;
let nameCounter = 0;

/** CreateV1 of a sized NonFungible collection NFT (Token Metadata), `authority` its update authority. */
function createCollectionNft(mint: Address, authority: Address): Instruction {
  const parts: number[] = [42, 0]; // Create, CreateArgs::V1
  const str = (s: string) => {
    const b = Buffer.from(s);
    parts.push(...u32le(b.length), ...b);
  };
  str("Sea Glass");
  str("GLASS");
  str("https://example.invalid/c.json");
  parts.push(0xf4, 0x01); // seller fee 500
  parts.push(1, ...u32le(1), ...(enc.encode(authority) as Uint8Array), 1, 100); // creators
  parts.push(0, 1, 0); // primary sale, mutable, NonFungible
  parts.push(0, 0); // collection, uses
  parts.push(1, 0, ...u64le(0n)); // collection details V1 { size 0 }
  parts.push(0); // rule set
  parts.push(1, 0); // decimals Some(0)
  parts.push(1, 0); // print supply Some(Zero)
  return {
    programAddress: TM,
    data: Uint8Array.from(parts),
    accounts: [
      wr(address(getMetadataAddress(mint))),
      wr(address(getMasterEditionAddress(mint))),
      { address: mint, role: AccountRole.WRITABLE_SIGNER },
      { address: authority, role: AccountRole.READONLY_SIGNER },
      { address: authority, role: AccountRole.WRITABLE_SIGNER },
      { address: authority, role: AccountRole.READONLY_SIGNER },
      ro(SYSTEM),
      ro(SYSVAR_INSTRUCTIONS),
      ro(TOKEN),
    ],
  };
}
function u32le(v: number): number[] {
  return [v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >> 24) & 255];
}

async function newCollection(w: World, authority: KeyPairSigner): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const ix = createCollectionNft(mint.address, authority.address);
  const accounts = (ix.accounts ?? []).map((a) =>
    a.address === mint.address
      ? { ...a, signer: mint }
      : a.address === authority.address
        ? { ...a, signer: authority }
        : a,
  );
  expectOk(await w.h.trySend([computeLimit(400_000), { ...ix, accounts }], authority));
  return mint.address;
}

async function newTree(w: World, authority: KeyPairSigner): Promise<TreeCopy> {
  const tree = await generateKeyPairSigner();
  const lamports = 10_000_000_000n;
  const ixs = createTreeInstructions({
    payer: authority.address,
    tree: tree.address,
    shape: SHAPE,
    lamports,
  });
  expectOk(
    await w.h.trySend(
      ixs.map((ix) => kit(ix, [authority, tree])),
      authority,
    ),
  );
  return new TreeCopy(tree.address, address(getTreeConfigAddress(tree.address)));
}

/** Loads Token Metadata, Bubblegum, Compression and Noop; two collections, two trees, a pool listing the first. */
export async function cnftWorld(): Promise<CnftWorld> {
  const w = await buildWorld();
  for (const p of VENDORED_PROGRAMS)
    if (([TM, BUBBLEGUM, COMPRESSION, NOOP] as string[]).includes(p.programId))
      w.h.svm.addProgram(address(p.programId), readVendoredProgram(p));
  const authority = await w.h.wallet(100_000_000_000n);
  const glass = await newCollection(w, authority);
  const otherCollection = await newCollection(w, authority);
  const tree = await newTree(w, authority);
  const otherTree = await newTree(w, authority);
  const cnftPool = await createPool(w.h, w.lender, w.currency, "nft-pool", poolSeed++, poolParams(glass));
  return { ...w, authority, glass, otherCollection, cnftPool, tree, otherTree };
}

/** Mints a leaf to `owner` into `tree`: into `collection` (verified, MintToCollectionV1), or naming it unverified
 * (MintV1), or outside any (null). */
export async function mintLeaf(
  w: CnftWorld,
  opts: { owner?: Address; tree?: TreeCopy; collection?: Address | null; verified?: boolean } = {},
): Promise<Leaf> {
  const tree = opts.tree ?? w.tree;
  const owner = opts.owner ?? w.borrower.address;
  const collection = opts.collection === undefined ? w.glass : opts.collection;
  const verified = opts.verified ?? collection !== null;
  const nonce = tree.leaves.size;
  const m: MetadataArgsInput = {
    name: `Glass #${++nameCounter}`,
    symbol: "GLASS",
    uri: "https://example.invalid/1.json",
    sellerFeeBasisPoints: 500,
    collection,
    creators: [{ address: w.authority.address, verified: false, share: 100 }],
  };
  const ix =
    verified && collection !== null
      ? mintToCollectionV1({
          tree: tree.address,
          owner,
          authority: w.authority.address,
          metadata: { ...m, collection },
        })
      : mintV1({ tree: tree.address, owner, authority: w.authority.address, metadata: m });
  expectOk(await w.h.trySend([computeLimit(400_000), kit(ix, [w.authority])], w.authority));
  const args = committedArgs(m, verified);
  const [asset, assetBump] = await getProgramDerivedAddress({
    programAddress: BUBBLEGUM,
    seeds: ["asset", enc.encode(tree.address), u64le(BigInt(nonce))],
  });
  if (asset !== getCompressedAssetId(tree.address, BigInt(nonce)))
    throw new Error(`asset id ${asset} is not Bubblegum's for leaf ${nonce}`);
  const leaf: Leaf = { tree, nonce, asset, assetBump, args, ...hashesOf(args, m), owner };
  moved(leaf, owner);
  expectRoot(w, tree);
  return leaf;
}

/** The chain's root of `tree` is the copy's: every leaf is what the test says it is. */
export function expectRoot(w: World, tree: TreeCopy): void {
  const onChain = readMerkleTree(w.h.data(tree.address))?.root;
  const expected = dec.decode(tree.root);
  if (onChain !== expected)
    throw new Error(`tree ${tree.address}: the chain's root ${onChain}, the copy's ${expected}`);
}

async function configBump(tree: Address): Promise<number> {
  const [, bump] = await getProgramDerivedAddress({ programAddress: BUBBLEGUM, seeds: [enc.encode(tree)] });
  return bump;
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
