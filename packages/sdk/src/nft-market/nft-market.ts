/**
 * Client of the local NFT market (programs/nft-market): listings (an NFT escrowed at a price) and collection bids
 * (currency escrowed for any NFT of a verified collection). Layout in programs/nft-market/LAYOUT.md.
 */
import type { Address, Instruction, ProgramDerivedAddress, ReadonlyUint8Array } from "@solana/kit";
import { addressBytes, addressFromBytes } from "../address-text.ts";
import { findProgramDerivedAddress } from "../find-pda.ts";
import {
  readonly,
  type SignerInput,
  signer,
  signerAddress,
  writable,
} from "../instructions/account-metas.ts";
import { findMetadataPda } from "../metaplex/metadata.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
export const MARKET_LISTING_SIZE = 160;
export const MARKET_BID_SIZE = 192;

/** The market's error codes (15200-15299), by name. */
export const NFT_MARKET_ERRORS = {
  InvalidInstruction: 15200,
  NotEnoughAccounts: 15201,
  MissingSigner: 15202,
  NotWritable: 15203,
  InvalidOwner: 15204,
  InvalidPda: 15205,
  AlreadyInitialized: 15206,
  InvalidTokenProgram: 15207,
  InvalidSystemProgram: 15208,
  InvalidMint: 15209,
  InvalidTokenAccount: 15210,
  NotAnNft: 15211,
  ZeroPrice: 15212,
  Unauthorized: 15213,
  PriceMoved: 15214,
  InvalidMetadata: 15215,
  NotInCollection: 15216,
  AccountMismatch: 15217,
  InvalidCoreProgram: 15218,
  UnsafeAsset: 15219,
  AssetFrozen: 15220,
  InvalidBubblegumProgram: 15221,
  InvalidTokenMetadataProgram: 15222,
  NotProgrammable: 15223,
} as const;

const bytesOf = addressBytes;
const u64Bytes = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v, true);
  return b;
};

/** Listing PDA ["listing", nft mint]: one per NFT. */
export function findMarketListingPda(
  programAddress: Address,
  nftMint: Address,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["listing", bytesOf(nftMint)] });
}

/** Escrow PDA ["escrow", listing]: the token account holding the listed NFT (authority: the listing). */
export function findMarketEscrowPda(
  programAddress: Address,
  listing: Address,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["escrow", bytesOf(listing)] });
}

/** Bid PDA ["bid", bidder, nonce u64 LE]. */
export function findMarketBidPda(
  programAddress: Address,
  bidder: Address,
  nonce: bigint,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["bid", bytesOf(bidder), u64Bytes(nonce)] });
}

/** Vault PDA ["vault", bid]: the token account holding the bid's price (authority: the bid). */
export function findMarketVaultPda(programAddress: Address, bid: Address): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["vault", bytesOf(bid)] });
}

export interface MarketListingAccount {
  /**
   * "classic": an SPL mint escrowed in `escrow`; "programmable": a pNFT in the listing PDA's associated token
   * account (`escrow`); "core": a Metaplex Core asset owned by the listing itself; "compressed": a Bubblegum V1 leaf
   * owned by the listing itself.
   */
  standard: "classic" | "programmable" | "core" | "compressed";
  seller: Address;
  /** The NFT mint (classic), the Core asset, or the compressed NFT's asset id. */
  nftMint: Address;
  currencyMint: Address;
  /**
   * Classic: the escrow token account; pNFT: the listing's token account; Core: the Core collection the asset names;
   * compressed: the collection its metadata names verified.
   */
  escrow: Address;
  price: bigint;
  createdAt: bigint;
  /** Compressed: the leaf's nonce (its index in the tree); 0 otherwise. */
  leafNonce: bigint;
}

const LISTING_STANDARDS = { 0: "classic", 1: "programmable", 2: "core", 3: "compressed" } as const;

export interface MarketBidAccount {
  bidder: Address;
  collection: Address;
  currencyMint: Address;
  vault: Address;
  price: bigint;
  nonce: bigint;
  createdAt: bigint;
}

/** Listing.standard: 0 classic, 1 pNFT, 2 Core. */

const view = (data: ReadonlyUint8Array) => new DataView(data.buffer, data.byteOffset, data.byteLength);
const keyAt = (data: ReadonlyUint8Array, offset: number) => addressFromBytes(data.slice(offset, offset + 32));

/** Decodes a listing (checks size, tag and version). */
export function decodeMarketListing(data: ReadonlyUint8Array): MarketListingAccount {
  if (data.length !== MARKET_LISTING_SIZE || data[0] !== 1 || data[1] !== 1)
    throw new Error("not a market listing");
  const v = view(data);
  return {
    standard: LISTING_STANDARDS[data[4] as keyof typeof LISTING_STANDARDS] ?? "classic",
    seller: keyAt(data, 8),
    nftMint: keyAt(data, 40),
    currencyMint: keyAt(data, 72),
    escrow: keyAt(data, 104),
    price: v.getBigUint64(136, true),
    createdAt: v.getBigInt64(144, true),
    leafNonce: data[4] === 3 ? v.getBigUint64(152, true) : 0n,
  };
}

/** Decodes a bid (checks size, tag and version). */
export function decodeMarketBid(data: ReadonlyUint8Array): MarketBidAccount {
  if (data.length !== MARKET_BID_SIZE || data[0] !== 2 || data[1] !== 1) throw new Error("not a market bid");
  const v = view(data);
  return {
    bidder: keyAt(data, 8),
    collection: keyAt(data, 40),
    currencyMint: keyAt(data, 72),
    vault: keyAt(data, 104),
    price: v.getBigUint64(136, true),
    nonce: v.getBigUint64(144, true),
    createdAt: v.getBigInt64(152, true),
  };
}

function withOpcode(opcode: number, size: number): { data: Uint8Array; view: DataView } {
  const data = new Uint8Array(size);
  data[0] = opcode;
  return { data, view: new DataView(data.buffer) };
}

/** 0 List: the seller escrows `nftMint` at `price` (base units of `currencyMint`). */
export async function getListNftInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  nftMint: Address;
  sellerNftAccount: Address;
  currencyMint: Address;
  price: bigint;
}): Promise<Instruction & { listing: Address; escrow: Address }> {
  const [listing, bump] = await findMarketListingPda(input.programAddress, input.nftMint);
  const [escrow, escrowBump] = await findMarketEscrowPda(input.programAddress, listing);
  const { data, view: v } = withOpcode(0, 11);
  data.set([bump, escrowBump], 1);
  v.setBigUint64(3, input.price, true);
  return {
    programAddress: input.programAddress,
    listing,
    escrow,
    accounts: [
      signer(input.seller, true),
      writable(listing),
      writable(escrow),
      readonly(input.nftMint),
      writable(input.sellerNftAccount),
      readonly(input.currencyMint),
      readonly(TOKEN_PROGRAM),
      readonly(SYSTEM_PROGRAM),
    ],
    data,
  };
}

/** 1 Delist: the NFT returns to `sellerNftAccount`; the listing's rents return to the seller. */
export function getDelistNftInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  listing: Address;
  escrow: Address;
  sellerNftAccount: Address;
}): Instruction {
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.seller, true),
      writable(input.listing),
      writable(input.escrow),
      writable(input.sellerNftAccount),
      readonly(TOKEN_PROGRAM),
    ],
    data: Uint8Array.of(1),
  };
}

/** 2 Buy: `buyer` pays the listing's price (at most `maxPrice`) from `payFrom`; the NFT goes to `nftDestination`. */
export function getBuyNftInstruction(input: {
  programAddress: Address;
  buyer: SignerInput;
  listing: Address;
  escrow: Address;
  payFrom: Address;
  sellerCurrencyAccount: Address;
  nftDestination: Address;
  seller: Address;
  maxPrice: bigint;
}): Instruction {
  const { data, view: v } = withOpcode(2, 9);
  v.setBigUint64(1, input.maxPrice, true);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.buyer, false),
      writable(input.listing),
      writable(input.escrow),
      writable(input.payFrom),
      writable(input.sellerCurrencyAccount),
      writable(input.nftDestination),
      writable(input.seller),
      readonly(TOKEN_PROGRAM),
    ],
    data,
  };
}

/** 3 PlaceBid: `bidder` escrows `price` for any NFT of `collection` (verified). */
export async function getPlaceBidInstruction(input: {
  programAddress: Address;
  bidder: SignerInput;
  nonce: bigint;
  collection: Address;
  currencyMint: Address;
  bidderCurrencyAccount: Address;
  price: bigint;
}): Promise<Instruction & { bid: Address; vault: Address }> {
  const bidder = signerAddress(input.bidder);
  const [bid, bump] = await findMarketBidPda(input.programAddress, bidder, input.nonce);
  const [vault, vaultBump] = await findMarketVaultPda(input.programAddress, bid);
  const { data, view: v } = withOpcode(3, 51);
  data.set([bump, vaultBump], 1);
  v.setBigUint64(3, input.nonce, true);
  v.setBigUint64(11, input.price, true);
  data.set(bytesOf(input.collection), 19);
  return {
    programAddress: input.programAddress,
    bid,
    vault,
    accounts: [
      signer(input.bidder, true),
      writable(bid),
      writable(vault),
      readonly(input.currencyMint),
      writable(input.bidderCurrencyAccount),
      readonly(TOKEN_PROGRAM),
      readonly(SYSTEM_PROGRAM),
    ],
    data,
  };
}

/** 4 CancelBid: the escrowed price returns to `bidderCurrencyAccount`. */
export function getCancelBidInstruction(input: {
  programAddress: Address;
  bidder: SignerInput;
  bid: Address;
  vault: Address;
  bidderCurrencyAccount: Address;
}): Instruction {
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.bidder, true),
      writable(input.bid),
      writable(input.vault),
      writable(input.bidderCurrencyAccount),
      readonly(TOKEN_PROGRAM),
    ],
    data: Uint8Array.of(4),
  };
}

/**
 * 5 SellToBid: the NFT in `nftSource` (authority `seller`) goes to `bidderNftAccount`, the bid's price to
 * `proceeds`. Refused below `minPrice`. `sellerSignsByCpi`: the seller is a program's PDA (a loan selling its
 * escrow), listed as a plain account for the invoking program to sign.
 */
export async function getSellToBidInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  bid: Address;
  vault: Address;
  bidder: Address;
  nftMint: Address;
  nftSource: Address;
  bidderNftAccount: Address;
  proceeds: Address;
  minPrice: bigint;
  sellerSignsByCpi?: boolean;
}): Promise<Instruction> {
  const [metadata, metadataBump] = await findMetadataPda(input.nftMint);
  const { data, view: v } = withOpcode(5, 10);
  v.setBigUint64(1, input.minPrice, true);
  data[9] = metadataBump;
  return {
    programAddress: input.programAddress,
    accounts: [
      input.sellerSignsByCpi ? readonly(signerAddress(input.seller)) : signer(input.seller, false),
      writable(input.bid),
      writable(input.vault),
      writable(input.nftSource),
      writable(input.bidderNftAccount),
      writable(input.proceeds),
      readonly(input.nftMint),
      readonly(metadata),
      writable(input.bidder),
      readonly(TOKEN_PROGRAM),
    ],
    data,
  };
}
