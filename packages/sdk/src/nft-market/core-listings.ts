/**
 * The local NFT market's Metaplex Core instructions (programs/nft-market/src/core.c, LAYOUT.md tags 6-9): the
 * listing PDA owns a listed Core asset; a collection bid takes a Core asset of its collection.
 */
import type { Address, Instruction } from "@solana/kit";
import { readonly, type SignerInput, signer, writable } from "../instructions/account-metas.ts";
import { MPL_CORE_PROGRAM_ADDRESS } from "../metaplex/core-asset.ts";
import { findMarketListingPda } from "./nft-market.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;

function opcodeWithPrice(opcode: number, size: number, at: number, price: bigint): Uint8Array {
  const data = new Uint8Array(size);
  data[0] = opcode;
  new DataView(data.buffer).setBigUint64(at, price, true);
  return data;
}

/** 6 ListCore: the seller's Core `asset` (of Core `collection`) moves to the listing PDA at `price`. */
export async function getListCoreAssetInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  asset: Address;
  collection: Address;
  currencyMint: Address;
  price: bigint;
}): Promise<Instruction & { listing: Address }> {
  const [listing, bump] = await findMarketListingPda(input.programAddress, input.asset);
  const data = opcodeWithPrice(6, 10, 2, input.price);
  data[1] = bump;
  return {
    programAddress: input.programAddress,
    listing,
    accounts: [
      signer(input.seller, true),
      writable(listing),
      writable(input.asset),
      readonly(input.collection),
      readonly(input.currencyMint),
      readonly(MPL_CORE_PROGRAM_ADDRESS),
      readonly(SYSTEM_PROGRAM),
    ],
    data,
  };
}

/** 7 DelistCore: the asset returns to the seller; the listing's rent too. */
export function getDelistCoreAssetInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  listing: Address;
  asset: Address;
  collection: Address;
}): Instruction {
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.seller, true),
      writable(input.listing),
      writable(input.asset),
      readonly(input.collection),
      readonly(MPL_CORE_PROGRAM_ADDRESS),
    ],
    data: Uint8Array.of(7),
  };
}

/** 8 BuyCore: `buyer` pays the listing's price (at most `maxPrice`) from `payFrom`; the asset goes to `newOwner`. */
export function getBuyCoreAssetInstruction(input: {
  programAddress: Address;
  buyer: SignerInput;
  listing: Address;
  payFrom: Address;
  sellerCurrencyAccount: Address;
  newOwner: Address;
  seller: Address;
  asset: Address;
  collection: Address;
  maxPrice: bigint;
}): Instruction {
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.buyer, true),
      writable(input.listing),
      writable(input.payFrom),
      writable(input.sellerCurrencyAccount),
      readonly(input.newOwner),
      writable(input.seller),
      writable(input.asset),
      readonly(input.collection),
      readonly(MPL_CORE_PROGRAM_ADDRESS),
      readonly(TOKEN_PROGRAM),
    ],
    data: opcodeWithPrice(8, 9, 1, input.maxPrice),
  };
}

/** 9 SellCoreToBid: the seller's Core `asset` goes to the bidder, the bid's price (at least `minPrice`) to `proceeds`. */
export function getSellCoreToBidInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  bid: Address;
  vault: Address;
  bidder: Address;
  asset: Address;
  collection: Address;
  proceeds: Address;
  minPrice: bigint;
}): Instruction {
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.seller, true),
      writable(input.bid),
      writable(input.vault),
      writable(input.asset),
      readonly(input.collection),
      writable(input.proceeds),
      writable(input.bidder),
      readonly(MPL_CORE_PROGRAM_ADDRESS),
      readonly(TOKEN_PROGRAM),
    ],
    data: opcodeWithPrice(9, 9, 1, input.minPrice),
  };
}
