/** The API's answers to `POST /nft/instant-sell-quote` and `POST /nft/take-mortgage-quote` (base units as
 * decimal strings), shared with the web app. */

import type { TransactionCostsJson } from "./network-costs.ts";

/** An NFT loan's instant sell before signing: the best bid, what repays the loan now and what is kept. */
export interface InstantSellQuote {
  loan: string;
  venue: "local" | "tensor";
  currency: string;
  collection: string;
  /** The best collection bid: what the sale brings. */
  bidPrice: string;
  bid: string;
  /** Principal + interest owed now: what repays the loan. */
  owedNow: string;
  /** What the borrower keeps: bid - owed now. */
  borrowerKeeps: string;
  /** What the borrower keeps at least if it lands within two hours (interest keeps accruing). */
  borrowerKeepsAtLeast: string;
  /**
   * The SOL the sale's transaction takes besides the currency it settles: fee, rent of the accounts it opens (the
   * bidder's NFT account), less the rent of those it closes to the wallet; null when it could not be measured.
   */
  costs?: TransactionCostsJson | null;
}

/** A mortgage's terms before signing. */
export interface MortgageTerms {
  mint: string;
  collection: string;
  currency: string;
  price: string;
  /** price - principal: what the buyer pays now. */
  downPayment: string;
  principal: string;
  aprBps: number;
  durationSeconds: number;
  /** Interest due at expiry (rounded up). */
  interest: string;
  /** price + interest: what the buyer pays in all if they repay at expiry. */
  totalCost: string;
  seller: string;
  /**
   * The SOL the purchase's transaction takes besides the down payment: fee and the rent of the accounts it opens
   * (the loan, the loan's and the pool owner's NFT accounts); null when it could not be measured.
   */
  costs?: TransactionCostsJson | null;
}
