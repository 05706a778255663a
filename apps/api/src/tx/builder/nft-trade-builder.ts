/**
 * Trading an NFT on the NFT market without a loan: list, delist, buy outright, sell into the best collection bid.
 * Every standard the market takes (classic NFT, programmable NFT, Metaplex Core asset) with the accounts its
 * standard needs read from the chain by the venue (a pNFT's metadata, edition, token records and rule set); a
 * compressed NFT (`nftMint` is its asset id) goes to the compressed plans with its leaf and a fresh proof from DAS.
 */
import { address } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { resolveNft } from "../calculator/collateral.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import {
  buyCompressedPlan,
  delistCompressedPlan,
  listCompressedPlan,
  requireLeafOwner,
  sellCompressedPlan,
} from "./compressed-market-builder.ts";
import { currencyFlow } from "./currency-flows.ts";
import { requireNotOracle } from "./loan-builder.ts";
import { readCustody } from "./nft-custody.ts";
import { requireListing } from "./nft-market-builder.ts";
import type { BuildPlan } from "./route-kit.ts";
import {
  createAssociatedTokenIdempotent,
  findAssociatedTokenAddress,
  NATIVE_MINT,
} from "./wire-instructions.ts";

function venueRefuses(tx: TxContext, what: string): never {
  throw unprocessable(`${what} through the ${tx.nftMarket.name} NFT market is not available here`);
}

/** List `nftMint` (the seller's; a compressed NFT's asset id too) at `price` base units of `currency`. Normal. */
export async function listPlan(
  tx: TxContext,
  input: { seller: string; nftMint: string; currency: string; price: bigint },
): Promise<BuildPlan> {
  requireNotOracle(tx, "seller", input.seller);
  const seller = address(input.seller);
  const { compressed } = await resolveNft(tx, input.nftMint);
  if (compressed) return listCompressedPlan(tx, { ...input, seller }, compressed);
  if (!tx.nftMarket.listInstructions) venueRefuses(tx, "Listing");
  const ixs = await tx.nftMarket.listInstructions({
    seller,
    nftMint: address(input.nftMint),
    currencyMint: address(input.currency),
    price: input.price,
  });
  return {
    feePayer: seller,
    groups: [ixs],
    metadata: { nftMint: input.nftMint, price: input.price.toString() },
  };
}

/** Withdraw the seller's listing of `nftMint`: the NFT returns to the seller. Kind Normal. */
export async function delistPlan(
  tx: TxContext,
  input: { seller: string; nftMint: string },
): Promise<BuildPlan> {
  requireNotOracle(tx, "seller", input.seller);
  const seller = address(input.seller);
  const listing = await requireListing(tx, input.nftMint);
  if (listing.seller !== seller) throw badRequest("Only the seller can withdraw this listing.");
  if (listing.standard === "compressed") return delistCompressedPlan(tx, seller, listing);
  if (!tx.nftMarket.delistInstructions) venueRefuses(tx, "Delisting");
  const ixs = await tx.nftMarket.delistInstructions({ seller, nftMint: address(input.nftMint) });
  return { feePayer: seller, groups: [ixs], metadata: { nftMint: input.nftMint } };
}

/**
 * Buy the listing of `nftMint` outright, paying at most `maxPrice` (the price shown; the listing's price when
 * absent) from the buyer's currency account (SOL wrapped first, what is left unwrapped after). A classic NFT lands
 * in the buyer's associated token account; a pNFT in it too (Token Metadata creates it); a Core asset and a
 * compressed NFT become the buyer's. Kind Normal.
 */
export async function buyPlan(
  tx: TxContext,
  input: { buyer: string; nftMint: string; maxPrice?: bigint },
): Promise<BuildPlan> {
  requireNotOracle(tx, "buyer", input.buyer);
  const buyer = address(input.buyer);
  const mint = address(input.nftMint);
  const listing = await requireListing(tx, input.nftMint);
  if (listing.seller === buyer) throw badRequest("You cannot buy your own listing.");
  const maxPrice = input.maxPrice ?? listing.price;
  if (listing.price > maxPrice)
    throw unprocessable("The seller raised the price above the one you accepted, so nothing was bought.");
  const [flow, sellerCurrency] = await Promise.all([
    currencyFlow(buyer, listing.currencyMint, listing.currencyMint === NATIVE_MINT ? listing.price : 0n),
    findAssociatedTokenAddress(listing.seller, listing.currencyMint),
  ]);
  if (listing.standard === "compressed")
    return buyCompressedPlan(tx, { buyer, listing, maxPrice, flow, sellerCurrency });
  const buyerAta = await findAssociatedTokenAddress(buyer, mint);
  const custody = await readCustody(tx, mint, buyerAta);
  const classic = custody.standard === "Nft";
  const buy = await tx.nftMarket.buyInstruction({
    listing,
    buyer,
    payFrom: flow.tokenAccount,
    nftDestination: classic ? buyerAta : buyer,
    maxPrice,
  });
  return {
    feePayer: buyer,
    groups: [
      [
        ...flow.before,
        createAssociatedTokenIdempotent(buyer, sellerCurrency, listing.seller, listing.currencyMint),
        ...(classic ? [createAssociatedTokenIdempotent(buyer, buyerAta, buyer, mint)] : []),
        buy,
        ...flow.after,
      ],
    ],
    metadata: { nftMint: input.nftMint, price: listing.price.toString(), standard: custody.standard },
  };
}

/**
 * Sell `nftMint` (the seller's; a compressed NFT's asset id too) into the best bid on its collection in `currency`,
 * for at least `minPrice` (the price shown; the best bid when absent); the proceeds land in the seller's currency
 * account (SOL unwrapped after). Kind Normal.
 */
export async function sellToBidPlan(
  tx: TxContext,
  input: { seller: string; nftMint: string; currency: string; minPrice?: bigint },
): Promise<BuildPlan> {
  requireNotOracle(tx, "seller", input.seller);
  const seller = address(input.seller);
  // a compressed NFT's owner is checked on its leaf (a delegate does not stop a sale, as it stops a loan)
  const found = await resolveNft(tx, input.nftMint);
  const { compressed } = found;
  if (compressed) requireLeafOwner(compressed, seller);
  const nft = compressed ? found : await resolveNft(tx, input.nftMint, seller);
  const market = await tx.nftMarket.collection({
    collection: address(nft.collection),
    currencyMint: address(input.currency),
    fresh: true,
  });
  const bid = market.bids[0];
  if (bid === undefined) throw unprocessable("No one bids on this collection in this currency right now.");
  if (input.minPrice !== undefined && bid.price < input.minPrice)
    throw unprocessable("The best bid fell below the price you accepted, so nothing was sold.");
  const flow = await currencyFlow(seller, address(input.currency));
  if (compressed)
    return sellCompressedPlan(tx, {
      seller,
      leaf: compressed,
      bid,
      minPrice: input.minPrice ?? bid.price,
      flow,
    });
  const sale = await tx.nftMarket.sellInstructions({
    bid,
    nftMint: address(input.nftMint),
    seller,
    sellerSignsByCpi: false,
    nftSource: nft.ownerTokenAccount as Address,
    proceeds: flow.tokenAccount,
    minPrice: input.minPrice ?? bid.price,
    payer: seller,
  });
  return {
    feePayer: seller,
    groups: [[...flow.before, ...sale.setup, sale.sale, ...flow.after]],
    metadata: { nftMint: input.nftMint, bid: bid.bid, price: bid.price.toString() },
  };
}
