/**
 * The local NFT market's programmable NFT instructions (programs/nft-market/src/pnft.c, LAYOUT.md tags 10-13): a
 * listing PDA holds a listed pNFT in its associated token account; a collection bid takes a pNFT of its verified
 * collection. Every move is Token Metadata's Transfer v1 with the accounts {@link readNftCustody} reads from the
 * chain (metadata, master edition, token records, the rule set the metadata names).
 */
import type { AccountMeta, Address, Instruction } from "@solana/kit";
import { TOKEN_PROGRAM_ADDRESS } from "../constants.ts";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  type ProgrammableCustody,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
} from "../custody/nft-custody.ts";
import { SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import {
  readonly,
  type SignerInput,
  signer,
  signerAddress,
  writable,
} from "../instructions/account-metas.ts";
import { findTokenRecordPda, TOKEN_METADATA_PROGRAM_ADDRESS } from "../metaplex/metadata.ts";
import { findMarketListingPda } from "./nft-market.ts";

/** What every pNFT instruction names of the NFT: its mint and metadata accounts (any holder's custody read). */
export type MarketPnft = Pick<
  ProgrammableCustody,
  "mint" | "metadata" | "metadataBump" | "masterEdition" | "masterEditionBump" | "ruleSet"
>;

/** The ten accounts every pNFT instruction ends with (LAYOUT.md "pNFT tail"). */
function pnftTail(nft: MarketPnft): AccountMeta[] {
  const rules = nft.ruleSet !== null;
  return [
    readonly(nft.mint),
    writable(nft.metadata),
    readonly(nft.masterEdition),
    readonly(TOKEN_METADATA_PROGRAM_ADDRESS),
    readonly(rules ? TOKEN_AUTH_RULES_PROGRAM_ADDRESS : TOKEN_METADATA_PROGRAM_ADDRESS),
    readonly(nft.ruleSet ?? TOKEN_METADATA_PROGRAM_ADDRESS),
    readonly(SYSVAR_INSTRUCTIONS_ADDRESS),
    readonly(SYSTEM_PROGRAM_ADDRESS),
    readonly(TOKEN_PROGRAM_ADDRESS),
    readonly(ASSOCIATED_TOKEN_PROGRAM_ADDRESS),
  ];
}

/** `owner`'s associated token account of the pNFT and its token record (with its bump). */
async function ataAndRecord(owner: Address, mint: Address) {
  const token = await findAssociatedTokenPda(owner, mint);
  const [record, recordBump] = await findTokenRecordPda(mint, token);
  return { token, record, recordBump };
}

function data(tag: number, size: number, amount: bigint | null, bytes: number[]): Uint8Array {
  const out = new Uint8Array(size);
  out[0] = tag;
  let at = 1;
  if (amount !== null) {
    new DataView(out.buffer).setBigUint64(1, amount, true);
    at = 9;
  }
  out.set(bytes, at);
  return out;
}

/** The listing PDA of a pNFT, its associated token account (where the listed pNFT sits) and that account's record. */
export async function findPnftListingAccounts(programAddress: Address, mint: Address) {
  const [listing, bump] = await findMarketListingPda(programAddress, mint);
  return { listing, bump, ...(await ataAndRecord(listing, mint)) };
}

/** 10 ListPnft: the seller's pNFT (in `nft.tokenAccount`) moves to the listing PDA's token account at `price`. */
export async function getListPnftInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  nft: ProgrammableCustody;
  currencyMint: Address;
  price: bigint;
}): Promise<Instruction & { listing: Address; escrow: Address }> {
  const { nft } = input;
  const held = await findPnftListingAccounts(input.programAddress, nft.mint);
  const bytes = [nft.metadataBump, nft.masterEditionBump, nft.tokenRecordBump];
  const ix = data(10, 13, null, [held.bump]);
  new DataView(ix.buffer).setBigUint64(2, input.price, true);
  ix.set(bytes, 10);
  return {
    programAddress: input.programAddress,
    listing: held.listing,
    escrow: held.token,
    accounts: [
      signer(input.seller, true),
      writable(held.listing),
      writable(nft.tokenAccount),
      writable(nft.tokenRecord),
      writable(held.token),
      writable(held.record),
      readonly(input.currencyMint),
      ...pnftTail(nft),
    ],
    data: ix,
  };
}

/** 11 DelistPnft: the pNFT returns to the seller's associated token account; the listing's rent to the seller. */
export async function getDelistPnftInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  nft: MarketPnft;
}): Promise<Instruction> {
  const { nft } = input;
  const held = await findPnftListingAccounts(input.programAddress, nft.mint);
  const back = await ataAndRecord(signerAddress(input.seller), nft.mint);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.seller, true),
      writable(held.listing),
      writable(held.token),
      writable(held.record),
      writable(back.token),
      writable(back.record),
      ...pnftTail(nft),
    ],
    data: data(11, 4, null, [nft.metadataBump, nft.masterEditionBump, held.recordBump]),
  };
}

/**
 * 12 BuyPnft: `buyer` pays the listing's price (at most `maxPrice`) from `payFrom`; the pNFT goes to `newOwner`'s
 * associated token account (Token Metadata creates it, the buyer paying).
 */
export async function getBuyPnftInstruction(input: {
  programAddress: Address;
  buyer: SignerInput;
  payFrom: Address;
  sellerCurrencyAccount: Address;
  seller: Address;
  newOwner: Address;
  nft: MarketPnft;
  maxPrice: bigint;
}): Promise<Instruction> {
  const { nft } = input;
  const held = await findPnftListingAccounts(input.programAddress, nft.mint);
  const to = await ataAndRecord(input.newOwner, nft.mint);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.buyer, true),
      writable(held.listing),
      writable(input.payFrom),
      writable(input.sellerCurrencyAccount),
      writable(input.seller),
      readonly(input.newOwner),
      writable(held.token),
      writable(held.record),
      writable(to.token),
      writable(to.record),
      ...pnftTail(nft),
    ],
    data: data(12, 12, input.maxPrice, [nft.metadataBump, nft.masterEditionBump, held.recordBump]),
  };
}

/**
 * 13 SellPnftToBid: the seller's pNFT (in `nft.tokenAccount`) goes to the bidder's associated token account through
 * the bid PDA's own (so the rule set sees a market account), the bid's price (at least `minPrice`) to `proceeds`. `payer` (default: the seller) pays what Token Metadata charges.
 * `sellerSignsByCpi`: the seller is a program's PDA (a loan selling its pNFT), listed as a plain account for the
 * invoking program to sign.
 */
export async function getSellPnftToBidInstruction(input: {
  programAddress: Address;
  seller: SignerInput;
  payer?: SignerInput;
  bid: Address;
  vault: Address;
  bidder: Address;
  nft: ProgrammableCustody;
  proceeds: Address;
  minPrice: bigint;
  sellerSignsByCpi?: boolean;
}): Promise<Instruction> {
  const { nft } = input;
  const [via, to] = await Promise.all([
    ataAndRecord(input.bid, nft.mint),
    ataAndRecord(input.bidder, nft.mint),
  ]);
  const seller = signerAddress(input.seller);
  return {
    programAddress: input.programAddress,
    accounts: [
      input.sellerSignsByCpi ? readonly(seller) : signer(input.seller, false),
      signer(input.payer ?? input.seller, true),
      writable(input.bid),
      writable(input.vault),
      writable(nft.tokenAccount),
      writable(nft.tokenRecord),
      writable(via.token),
      writable(via.record),
      writable(to.token),
      writable(to.record),
      writable(input.proceeds),
      writable(input.bidder),
      ...pnftTail(nft),
    ],
    data: data(13, 12, input.minPrice, [nft.metadataBump, nft.masterEditionBump, nft.tokenRecordBump]),
  };
}
