/**
 * The compressed NFT (Bubblegum V1 leaf) branch of the NFT market's plans (nft-trade-builder.ts routes here when the
 * listing's standard or resolveNft says the id is a compressed NFT's asset id): list, delist, buy outright and sell
 * into a bid. The leaf comes from DAS at build time (readCompressedCustody: getAsset and a fresh getAssetProof, the
 * proof cut below the tree's canopy), so the transaction carries a proof against a current root; the market program
 * and Bubblegum check everything again on chain.
 */
import { address, type CompressedCustody } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import type {
  CollectionBid,
  CompressedMarketActions,
  NftListing,
} from "../../venues/nft/nft-market-venue.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import type { CurrencyFlow } from "./currency-flows.ts";
import { readCompressedCustody } from "./nft-custody.ts";
import type { BuildPlan } from "./route-kit.ts";
import { createAssociatedTokenIdempotent } from "./wire-instructions.ts";

/** The venue's compressed NFT instructions, or 422 when the configured market takes none through Cistern. */
function compressedMarket(tx: TxContext): CompressedMarketActions {
  const actions = tx.nftMarket.compressed;
  if (actions === undefined)
    throw unprocessable("Compressed NFTs cannot be traded on this NFT market through Cistern yet");
  return actions;
}

/** The leaf of compressed NFT `assetId` as DAS states it now; 400 when DAS knows no such compressed NFT. */
async function leafNow(tx: TxContext, assetId: string): Promise<CompressedCustody> {
  const leaf = await readCompressedCustody(tx, assetId);
  if (leaf === null) throw badRequest("This is not a compressed NFT the asset index knows");
  return leaf;
}

/** 400 unless `seller` owns the leaf (the market program and Bubblegum check it again). */
export function requireLeafOwner(leaf: CompressedCustody, seller: string): void {
  if (leaf.owner !== seller) throw badRequest("You do not own this compressed NFT");
}

/** ListCnft: `seller`'s leaf (read by resolveNft just now) moves to the market's listing at `price`. */
export async function listCompressedPlan(
  tx: TxContext,
  input: { seller: Address; currency: string; price: bigint },
  leaf: CompressedCustody,
): Promise<BuildPlan> {
  requireLeafOwner(leaf, input.seller);
  const ix = await compressedMarket(tx).list({
    seller: input.seller,
    leaf,
    currencyMint: address(input.currency),
    price: input.price,
  });
  return {
    feePayer: input.seller,
    groups: [[ix]],
    metadata: { nftMint: leaf.assetId, listing: ix.listing, price: input.price.toString() },
  };
}

/** DelistCnft: the seller's listed leaf returns to them (the leaf read from DAS now). */
export async function delistCompressedPlan(
  tx: TxContext,
  seller: Address,
  listing: NftListing,
): Promise<BuildPlan> {
  const leaf = await leafNow(tx, listing.mint);
  const ix = await compressedMarket(tx).delist({ seller, listing, leaf });
  return { feePayer: seller, groups: [[ix]], metadata: { nftMint: listing.mint, listing: listing.listing } };
}

/**
 * BuyCnft: `buyer` pays the listing's price (at most `maxPrice`, checked by the caller and again on chain) from
 * `flow`'s currency account and receives the leaf; the seller's currency account is created when missing.
 */
export async function buyCompressedPlan(
  tx: TxContext,
  input: {
    buyer: Address;
    listing: NftListing;
    maxPrice: bigint;
    flow: CurrencyFlow;
    sellerCurrency: Address;
  },
): Promise<BuildPlan> {
  const { buyer, listing, flow } = input;
  const leaf = await leafNow(tx, listing.mint);
  const ix = await compressedMarket(tx).buy({
    listing,
    buyer,
    payFrom: flow.tokenAccount,
    newOwner: buyer,
    leaf,
    maxPrice: input.maxPrice,
  });
  return {
    feePayer: buyer,
    groups: [
      [
        ...flow.before,
        createAssociatedTokenIdempotent(buyer, input.sellerCurrency, listing.seller, listing.currencyMint),
        ix,
        ...flow.after,
      ],
    ],
    metadata: { nftMint: listing.mint, price: listing.price.toString(), standard: "CompressedNft" },
  };
}

/**
 * SellCnftToBid: `seller`'s leaf (its owner checked by the caller) goes to `bid` for at least `minPrice`, paid into
 * `flow`'s currency account.
 */
export async function sellCompressedPlan(
  tx: TxContext,
  input: {
    seller: Address;
    leaf: CompressedCustody;
    bid: CollectionBid;
    minPrice: bigint;
    flow: CurrencyFlow;
  },
): Promise<BuildPlan> {
  const { seller, leaf, bid, flow } = input;
  const ix = await compressedMarket(tx).sell({
    bid,
    seller,
    sellerSignsByCpi: false,
    leaf,
    proceeds: flow.tokenAccount,
    minPrice: input.minPrice,
  });
  return {
    feePayer: seller,
    groups: [[...flow.before, ix, ...flow.after]],
    metadata: { nftMint: leaf.assetId, bid: bid.bid, price: bid.price.toString() },
  };
}
