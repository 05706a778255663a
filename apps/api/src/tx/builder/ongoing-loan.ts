import type { TxContext } from "../tx-context.ts";
import { badRequest, loanNotOngoing } from "../tx-errors.ts";
import { requireSaleCustody } from "./nft-custody.ts";

/**
 * Reads the loan being extended, refinanced or sold: it must exist, be Ongoing and be of the route's type. A sale
 * (`movesCustody` false) takes a classic escrow or a Core asset; Extend and Refinance move every standard's custody.
 * `recent` reads it from the last snapshot (a quote); a build reads it `fresh`.
 */
export async function requireOngoingLoan(
  tx: TxContext,
  loan: string,
  isDefi: boolean,
  movesCustody = false,
  read: "fresh" | "recent" = "fresh",
) {
  const account =
    read === "recent" ? await tx.state.getRecentLoan(loan) : (await tx.state.getLoans([loan]))[0];
  if (!account) throw badRequest(`unknown loan ${loan}`);
  if (account.status !== "Ongoing") throw loanNotOngoing(account, "borrower");
  if (account.isDefi !== isDefi)
    throw badRequest(`loan ${loan} is ${account.isDefi ? "a token" : "an NFT"} loan`);
  // the program sells a classic escrow's NFT or a Core asset through the market (a pNFT or a compressed NFT: not yet)
  if (!movesCustody) requireSaleCustody(account, "Selling");
  return account;
}
