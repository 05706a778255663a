/**
 * The NFT market's sale of a loan's NFT into a collection bid, the loan PDA the seller (signing by CPI inside the
 * program's MarketSell or LiquidateSell): one builder for the instant sell and the auto-sell of every standard the
 * program sells (SOLD_INSTANTLY; the auto-sell: SOLD_THROUGH_MARKET).
 */
import type { NftCustody } from "@cistern/sdk";
import type { Address, Instruction } from "@solana/kit";
import type { CollectionBid } from "../../venues/nft/nft-market-venue.ts";
import type { TxContext } from "../tx-context.ts";
import { compressedMarket } from "./compressed-market-builder.ts";
import { saleHolder } from "./nft-custody.ts";
import { findAssociatedTokenAddress } from "./wire-instructions.ts";

/**
 * The market's instructions selling `loan`'s NFT into `bid`, paying at least `minPrice` into `proceeds`: a classic
 * NFT from the loan's escrow, a Core asset the loan PDA owns, a pNFT from the loan PDA's associated token account (the
 * venue reads each one's standard from the chain), a compressed NFT's leaf the loan PDA owns (SellCnftToBid with the
 * fresh DAS proof read with its custody). Throws when the venue cannot build it (the bid gone).
 */
export async function loanSaleToBid(
  tx: TxContext,
  input: {
    bid: CollectionBid;
    loan: Address;
    collateralMint: Address;
    custody: NftCustody;
    proceeds: Address;
    minPrice: bigint;
    payer: Address;
  },
): Promise<{ sale: Instruction; setup: Instruction[] }> {
  const { bid, loan, custody, proceeds, minPrice } = input;
  if (custody.standard === "CompressedNft") {
    const sale = await compressedMarket(tx).sell({
      bid,
      seller: loan,
      sellerSignsByCpi: true,
      leaf: custody,
      proceeds,
      minPrice,
    });
    return { sale, setup: [] };
  }
  return tx.nftMarket.sellInstructions({
    bid,
    nftMint: input.collateralMint,
    seller: loan,
    sellerSignsByCpi: true,
    // a pNFT is sold from the loan PDA's own associated token account (the program moves it there first; a filled
    // request's loan PDA holds it there)
    nftSource:
      custody.standard === "ProgrammableNft"
        ? await findAssociatedTokenAddress(loan, input.collateralMint)
        : await saleHolder(tx, loan, custody),
    proceeds,
    minPrice,
    payer: input.payer,
  });
}
