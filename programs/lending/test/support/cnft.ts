/**
 * Compressed NFTs (Bubblegum V1) for the program tests (the lending program's custody, the NFT market's listings and
 * bids), through the real Token Metadata, Bubblegum, SPL Account Compression and SPL Noop binaries: a sized
 * collection NFT, trees of the demo's shape, leaves minted into them, and a copy of each tree (leaves hashed as
 * Bubblegum hashes them) whose root a test checks against the chain's after every step. The tests send through their
 * own harness: `Send` sends and throws when the transaction fails.
 */
import {
  getComputeUnitLimitKitInstruction as computeLimit,
  createTreeInstructions,
  encodeMetadataArgs,
  getCompressedAssetId,
  getLeafHash,
  getMasterEditionAddress,
  getMetadataAddress,
  getTreeConfigAddress,
  toKitInstruction as kit,
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
import type { LiteSVM } from "litesvm";

export const TM = address("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s");
export const BUBBLEGUM = address("BGUMAp9Gq7iTEuizy4pqaxsTyUCBK68MDfK752saRPUY");
export const COMPRESSION = address("cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK");
export const NOOP = address("noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV");
export const SYSTEM = address("11111111111111111111111111111111");
const SYSVAR_INSTRUCTIONS = address("Sysvar1nstructions1111111111111111111111111");
const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
/** The demo's compressed collection shape: a proof of 3 nodes below the canopy. */
export const SHAPE = { maxDepth: 14, maxBufferSize: 64, canopyDepth: 11 };
export const PROOF_LEN = SHAPE.maxDepth - SHAPE.canopyDepth;
const dec = getAddressDecoder();
const enc = getAddressEncoder();
const ro = (a: Address) => ({ address: a, role: AccountRole.READONLY });
const wr = (a: Address) => ({ address: a, role: AccountRole.WRITABLE });

/** Sends `ixs` paid by `payer` (signers from the metas); throws when the transaction fails. */
export type Send = (ixs: Instruction[], payer: KeyPairSigner) => Promise<unknown>;

/** Token Metadata, Bubblegum, SPL Account Compression and SPL Noop at their mainnet ids. */
export function addCompressionPrograms(svm: LiteSVM): void {
  for (const p of VENDORED_PROGRAMS)
    if (([TM, BUBBLEGUM, COMPRESSION, NOOP] as string[]).includes(p.programId))
      svm.addProgram(address(p.programId), readVendoredProgram(p));
}

export const keccak = (...parts: Uint8Array[]) => {
  const h = keccak_256.create();
  for (const p of parts) h.update(p);
  return h.digest();
};
export const u64le = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return b;
};
function u32le(v: number): number[] {
  return [v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >> 24) & 255];
}

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
  /** the collection its metadata names (verified or not), null when none */
  collection: Address | null;
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

/** The byte of MetadataArgs `args` (one creator, no uses) that says whether its collection is verified. */
export function verifiedFlagAt(args: Uint8Array): number {
  return args.length - 4 - 34 - 2 - 34 + 1; // collection Some { verified, key } before uses, version, creators
}

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

/** A sized collection NFT whose update authority is `authority`. */
export async function newCollection(send: Send, authority: KeyPairSigner): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const ix = createCollectionNft(mint.address, authority.address);
  const accounts = (ix.accounts ?? []).map((a) =>
    a.address === mint.address
      ? { ...a, signer: mint }
      : a.address === authority.address
        ? { ...a, signer: authority }
        : a,
  );
  await send([computeLimit(400_000), { ...ix, accounts }], authority);
  return mint.address;
}

/** A tree of the demo's shape whose creator and tree authority is `authority`. */
export async function newTree(send: Send, authority: KeyPairSigner): Promise<TreeCopy> {
  const tree = await generateKeyPairSigner();
  const ixs = createTreeInstructions({
    payer: authority.address,
    tree: tree.address,
    shape: SHAPE,
    lamports: 10_000_000_000n,
  });
  await send(
    ixs.map((ix) => kit(ix, [authority, tree])),
    authority,
  );
  return new TreeCopy(tree.address, address(getTreeConfigAddress(tree.address)));
}

let nameCounter = 0;

/** Mints a leaf to `owner` into `tree`: into `collection` (verified, MintToCollectionV1; `authority` is the
 * collection's and the tree's), or naming it unverified (MintV1), or outside any (null). */
export async function mintLeaf(
  send: Send,
  authority: KeyPairSigner,
  opts: { owner: Address; tree: TreeCopy; collection: Address | null; verified?: boolean },
): Promise<Leaf> {
  const { tree, owner, collection } = opts;
  const verified = opts.verified ?? collection !== null;
  const nonce = tree.leaves.size;
  const m: MetadataArgsInput = {
    name: `Glass #${++nameCounter}`,
    symbol: "GLASS",
    uri: "https://example.invalid/1.json",
    sellerFeeBasisPoints: 500,
    collection,
    creators: [{ address: authority.address, verified: false, share: 100 }],
  };
  const ix =
    verified && collection !== null
      ? mintToCollectionV1({
          tree: tree.address,
          owner,
          authority: authority.address,
          metadata: { ...m, collection },
        })
      : mintV1({ tree: tree.address, owner, authority: authority.address, metadata: m });
  await send([computeLimit(400_000), kit(ix, [authority])], authority);
  const args = committedArgs(m, verified);
  const [asset, assetBump] = await getProgramDerivedAddress({
    programAddress: BUBBLEGUM,
    seeds: ["asset", enc.encode(tree.address), u64le(BigInt(nonce))],
  });
  if (asset !== getCompressedAssetId(tree.address, BigInt(nonce))) throw new Error("asset id mismatch");
  const leaf: Leaf = { tree, nonce, asset, assetBump, args, ...hashesOf(args, m), owner, collection };
  moved(leaf, owner);
  return leaf;
}

/** The root the chain holds for `tree` (base58), from the tree account's bytes. */
export function chainRoot(treeData: Uint8Array): string | undefined {
  return readMerkleTree(treeData)?.root;
}
/** The copy's root (base58). */
export const copyRoot = (tree: TreeCopy): string => dec.decode(tree.root);

export async function configBump(tree: Address): Promise<number> {
  const [, bump] = await getProgramDerivedAddress({ programAddress: BUBBLEGUM, seeds: [enc.encode(tree)] });
  return bump;
}

/** Whether the logs say Bubblegum's Transfer refused the leaf: it did not verify against the tree (SPL Account
 * Compression's ConcurrentMerkleTreeError 6001, "Invalid root recomputed from proof"). */
export function leafRefusedIn(logs: string[]): boolean {
  return (
    logs.some((l) => l.includes(`Program ${BUBBLEGUM} invoke [2]`)) &&
    logs.some((l) => l.includes("Invalid root recomputed from proof")) &&
    logs.includes(`Program ${COMPRESSION} failed: custom program error: 0x1771`) &&
    logs.includes(`Program ${BUBBLEGUM} failed: custom program error: 0x1771`)
  );
}
