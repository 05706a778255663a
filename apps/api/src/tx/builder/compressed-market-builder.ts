/**
 * Compressed NFTs (Bubblegum V1 leaves) on the NFT market: list, delist, buy outright and sell into the best
 * collection bid. Every plan reads the leaf from DAS at build time (readCompressedCustody: getAsset and a fresh
 * getAssetProof, the proof cut below the tree's canopy), so the transaction carries a proof against a current root;
 * the market program and Bubblegum check everything again on chain.
 */
import { address, type CompressedCustody } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import type { CompressedMarketActions, NftListing } from "../../venues/nft/nft-market-venue.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { currencyFlow } from "./currency-flows.ts";
import { requireNotOracle } from "./loan-builder.ts";
import { readCompressedCustody } from "./nft-custody.ts";
import type { BuildPlan } from "./route-kit.ts";
import {
  createAssociatedTokenIdempotent,
  findAssociatedTokenAddress,
  NATIVE_MINT,
} from "./wire-instructions.ts";

/** The venue's compressed NFT instructions, or 422 when the configured market takes none through Cistern. */
export function compressedMarket(tx: TxContext): CompressedMarketActions {
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

/** The compressed NFT's listing, or 400 when it is not for sale. */
async function compressedListing(tx: TxContext, assetId: string): Promise<NftListing> {
  const listing = await tx.nftMarket.listingOf(address(assetId));
  if (listing === null || listing.standard !== "compressed")
    throw badRequest("This compressed NFT is not listed for sale");
  return listing;
}

/** ListCnft: `seller`'s compressed NFT moves to the market's listing at `price` (base units of `currency`). */
export async function listCompressedPlan(
  tx: TxContext,
  input: { seller: string; assetId: string; currency: string; price: bigint },
): Promise<BuildPlan> {
  requireNotOracle(tx, "seller", input.seller);
  const leaf = await leafNow(tx, input.assetId);
  if (leaf.owner !== input.seller) throw badRequest("You do not own this compressed NFT");
  if (leaf.collection === null)
    throw badRequest("This compressed NFT is in no verified collection, so the market cannot list it");
  const ix = await compressedMarket(tx).list({
    seller: address(input.seller),
    leaf,
    currencyMint: address(input.currency),
    price: input.price,
  });
  return { feePayer: address(input.seller), groups: [[ix]], metadata: { listing: ix.listing } };
}

/** DelistCnft: the seller's listed compressed NFT returns to them. */
export async function delistCompressedPlan(
  tx: TxContext,
  input: { seller: string; assetId: string },
): Promise<BuildPlan> {
  const listing = await compressedListing(tx, input.assetId);
  if (listing.seller !== input.seller) throw badRequest("Only the seller can take this listing down");
  const leaf = await leafNow(tx, input.assetId);
  const ix = await compressedMarket(tx).delist({ seller: address(input.seller), listing, leaf });
  return { feePayer: address(input.seller), groups: [[ix]], metadata: { listing: listing.listing } };
}

/**
 * BuyCnft: `buyer` pays the listing's price (at most `maxPrice`, the price shown; the listing's when absent) and
 * receives the compressed NFT. A SOL price is wrapped first and what is left unwrapped after; the seller's currency
 * account is created when missing (the buyer pays its rent).
 */
export async function buyCompressedPlan(
  tx: TxContext,
  input: { buyer: string; assetId: string; maxPrice?: bigint },
): Promise<BuildPlan> {
  requireNotOracle(tx, "buyer", input.buyer);
  const listing = await compressedListing(tx, input.assetId);
  if (listing.seller === input.buyer) throw badRequest("You cannot buy your own listing");
  const maxPrice = input.maxPrice ?? listing.price;
  if (listing.price > maxPrice) throw unprocessable("The price of this listing went up since you saw it");
  const buyer = address(input.buyer);
  const [leaf, flow, sellerCurrency] = await Promise.all([
    leafNow(tx, input.assetId),
    currencyFlow(buyer, listing.currencyMint, listing.currencyMint === NATIVE_MINT ? listing.price : 0n),
    findAssociatedTokenAddress(listing.seller, listing.currencyMint),
  ]);
  const ix = await compressedMarket(tx).buy({
    listing,
    buyer,
    payFrom: flow.tokenAccount,
    newOwner: buyer,
    leaf,
    maxPrice,
  });
  return {
    feePayer: buyer,
    groups: [
      [
        ...flow.before,
        createAssociatedTokenIdempotent(buyer, sellerCurrency, listing.seller, listing.currencyMint),
        ix,
        ...flow.after,
      ],
    ],
    metadata: { listing: listing.listing, price: listing.price.toString(), currency: listing.currencyMint },
  };
}

/**
 * SellCnftToBid: `seller`'s compressed NFT goes to the best bid of its collection in `currency` (at least
 * `minPrice`, the price shown; the best bid's when absent); the price is paid into the seller's currency account
 * (created when missing; SOL unwrapped after). 422 when no bid is open.
 */
export async function sellCompressedPlan(
  tx: TxContext,
  input: { seller: string; assetId: string; currency: string; minPrice?: bigint },
): Promise<BuildPlan> {
  requireNotOracle(tx, "seller", input.seller);
  const leaf = await leafNow(tx, input.assetId);
  if (leaf.owner !== input.seller) throw badRequest("You do not own this compressed NFT");
  if (leaf.collection === null)
    throw badRequest("This compressed NFT is in no verified collection, so no collection bid takes it");
  const market = await tx.nftMarket.collection({
    collection: leaf.collection,
    currencyMint: address(input.currency),
    fresh: true,
  });
  const best = market.bids[0];
  if (best === undefined) throw unprocessable("No one bids on this collection in this currency right now");
  if (input.minPrice !== undefined && best.price < input.minPrice)
    throw unprocessable("The best bid fell below the price you accepted");
  const seller: Address = address(input.seller);
  const flow = await currencyFlow(seller, best.currencyMint);
  const ix = await compressedMarket(tx).sell({
    bid: best,
    seller,
    sellerSignsByCpi: false,
    leaf,
    proceeds: flow.tokenAccount,
    minPrice: input.minPrice ?? best.price,
  });
  return {
    feePayer: seller,
    groups: [[...flow.before, ix, ...flow.after]],
    metadata: { bid: best.bid, price: best.price.toString(), currency: best.currencyMint },
  };
}
