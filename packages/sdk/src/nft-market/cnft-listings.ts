/**
 * The local NFT market's compressed NFT instructions (programs/nft-market/src/cnft.c, LAYOUT.md tags 14-17): the
 * listing PDA owns a listed Bubblegum V1 leaf; a collection bid takes a leaf whose metadata names its collection
 * verified. Every one takes the leaf as DAS states it now (`compressedCustodyFromDas`: a fresh proof, the root it was
 * taken against, the leaf's hashes and MetadataArgs): a proof goes stale when another leaf of the tree changes.
 */
import type { AccountMeta, Address, Instruction } from "@solana/kit";
import {
  BUBBLEGUM_PROGRAM_ADDRESS,
  type CompressedCustody,
  SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS,
  SPL_NOOP_PROGRAM_ADDRESS,
} from "../custody/compressed-custody.ts";
import {
  readonly,
  type SignerInput,
  signer,
  signerAddress,
  writable,
} from "../instructions/account-metas.ts";
import { findMarketListingPda } from "./nft-market.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;

/** What the market's compressed instructions read of a leaf (a `CompressedCustody` from DAS). */
export type MarketLeaf = Pick<
  CompressedCustody,
  | "tree"
  | "treeConfig"
  | "treeConfigBump"
  | "assetId"
  | "assetBump"
  | "nonce"
  | "root"
  | "proof"
  | "dataHash"
  | "creatorHash"
  | "metadataArgs"
>;

/** The Bubblegum block (tree, tree config, Bubblegum, Compression, Noop, System), then the proof. */
function bubblegumBlock(leaf: MarketLeaf): AccountMeta[] {
  return [
    writable(leaf.tree),
    readonly(leaf.treeConfig),
    readonly(BUBBLEGUM_PROGRAM_ADDRESS),
    readonly(SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS),
    readonly(SPL_NOOP_PROGRAM_ADDRESS),
    readonly(SYSTEM_PROGRAM),
    ...leaf.proof.map(readonly),
  ];
}

function u64le(v: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return b;
}

/** The listing PDA of a compressed NFT: ["listing", asset id]. */
export function findCompressedListingPda(programAddress: Address, leaf: Pick<MarketLeaf, "assetId">) {
  return findMarketListingPda(programAddress, leaf.assetId);
}

/** 14 ListCnft: the seller's leaf moves to the listing PDA at `price` (base units of `currencyMint`). */
export async function getListCompressedNftInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  leaf: MarketLeaf;
  currencyMint: Address;
  price: bigint;
}): Promise<Instruction & { listing: Address }> {
  const { leaf } = input;
  const [listing, bump] = await findCompressedListingPda(input.programAddress, leaf);
  const data = Uint8Array.from([
    14,
    bump,
    leaf.assetBump,
    leaf.treeConfigBump,
    ...u64le(input.price),
    ...leaf.root,
    ...u64le(leaf.nonce),
    ...leaf.metadataArgs,
  ]);
  return {
    programAddress: input.programAddress,
    listing,
    accounts: [
      signer(input.seller, true),
      writable(listing),
      readonly(input.currencyMint),
      ...bubblegumBlock(leaf),
    ],
    data,
  };
}

/** 15 DelistCnft: the leaf returns to the seller; the listing's rent too. */
export function getDelistCompressedNftInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  listing: Address;
  leaf: MarketLeaf;
}): Instruction {
  const { leaf } = input;
  return {
    programAddress: input.programAddress,
    accounts: [signer(input.seller, true), writable(input.listing), ...bubblegumBlock(leaf)],
    data: Uint8Array.from([15, ...leaf.root, ...leaf.dataHash, ...leaf.creatorHash]),
  };
}

/** 16 BuyCnft: `buyer` pays the listing's price (at most `maxPrice`) from `payFrom`; the leaf goes to `newOwner`. */
export function getBuyCompressedNftInstruction(input: {
  programAddress: Address;
  buyer: SignerInput;
  listing: Address;
  payFrom: Address;
  sellerCurrencyAccount: Address;
  newOwner: Address;
  seller: Address;
  leaf: MarketLeaf;
  maxPrice: bigint;
}): Instruction {
  const { leaf } = input;
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.buyer, false),
      writable(input.listing),
      writable(input.payFrom),
      writable(input.sellerCurrencyAccount),
      readonly(input.newOwner),
      writable(input.seller),
      readonly(TOKEN_PROGRAM),
      ...bubblegumBlock(leaf),
    ],
    data: Uint8Array.from([
      16,
      ...u64le(input.maxPrice),
      ...leaf.root,
      ...leaf.dataHash,
      ...leaf.creatorHash,
    ]),
  };
}

/**
 * 17 SellCnftToBid: the seller's leaf goes to the bidder, the bid's price (at least `minPrice`) to `proceeds`.
 * `sellerSignsByCpi`: the seller is a program's PDA (a loan selling its leaf), listed as a plain account for the
 * invoking program to sign.
 */
export function getSellCompressedNftToBidInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  bid: Address;
  vault: Address;
  bidder: Address;
  proceeds: Address;
  leaf: MarketLeaf;
  minPrice: bigint;
  sellerSignsByCpi?: boolean;
}): Instruction {
  const { leaf } = input;
  return {
    programAddress: input.programAddress,
    accounts: [
      input.sellerSignsByCpi ? readonly(signerAddress(input.seller)) : signer(input.seller, false),
      writable(input.bid),
      writable(input.vault),
      writable(input.proceeds),
      writable(input.bidder),
      readonly(TOKEN_PROGRAM),
      ...bubblegumBlock(leaf),
    ],
    data: Uint8Array.from([
      17,
      ...u64le(input.minPrice),
      leaf.treeConfigBump,
      ...leaf.root,
      ...u64le(leaf.nonce),
      ...leaf.metadataArgs,
    ]),
  };
}
