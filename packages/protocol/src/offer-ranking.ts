/**
 * How offers are compared: in one unit, micro-USD at the attested price, never raw base units of
 * different currencies. Without a wanted amount the best offer lends the most (then the lowest APR);
 * with one, every offer lends that amount, so the cheapest wins (then the one that could lend more).
 */
import type { LoanOffer } from "./offer-rules.ts";

/** Order of two offers, best first (negative when `a` is better). Ties keep the caller's order. */
export function compareLoanOffers(a: LoanOffer, b: LoanOffer, mode: "most" | "cheapest"): number {
  const byMax =
    b.maxAmountMicroUsd === a.maxAmountMicroUsd ? 0 : b.maxAmountMicroUsd > a.maxAmountMicroUsd ? 1 : -1;
  const byApr = a.aprBps - b.aprBps;
  return mode === "most" ? byMax || byApr : byApr || byMax;
}

/** Offers sorted best first (stable): `most` when no amount was asked, `cheapest` when one was. */
export function rankLoanOffers<T extends { offer: LoanOffer }>(
  offers: readonly T[],
  mode: "most" | "cheapest",
): T[] {
  return [...offers].sort((a, b) => compareLoanOffers(a.offer, b.offer, mode));
}
