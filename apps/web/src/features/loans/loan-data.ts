import { parseLoanList } from "@cistern/protocol";
import { useApiQuery } from "../../kit/api.ts";

/** Loans of a borrower (scope "loans"). */
export function useBorrowerLoans(owner: string) {
  return useApiQuery("loans", "/loan/user", { pubkey: owner, limit: 100 }, parseLoanList, {
    refetchIntervalMs: 30_000,
  });
}

/** Loans drawn on the pools a wallet owns (scope "loans"). */
export function useLenderLoans(owner: string) {
  return useApiQuery("loans", "/dirty/activity-by-lender", { pubkey: owner, limit: 100 }, parseLoanList, {
    refetchIntervalMs: 30_000,
  });
}

/** Builder route of a loan action for an NFT or token loan. */
export function loanRoute(
  isDefi: boolean,
  action: "repay-loan" | "extend-loan" | "liquidate-loan" | "refinance-loan",
): string {
  return `/${isDefi ? "defi" : "nft"}/${action}`;
}
