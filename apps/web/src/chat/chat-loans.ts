import type { Loan } from "@cistern/protocol";
import { useBorrowerLoans, useLenderLoans } from "../features/loans/loan-data.ts";
import { describeLoan, useLoanLabels } from "../features/loans/loan-label.ts";
import type { RoomLoan } from "./chat-model.ts";

/**
 * The wallet's loans (borrowed and lent, as the Loans page reads them) in words for the chat's room titles: loan
 * pubkey -> the loan's subject and the other party's role.
 */
export function useChatRoomLoans(wallet: string | null): (loan: string | null) => RoomLoan | undefined {
  const borrowed = useBorrowerLoans(wallet ?? "");
  const lent = useLenderLoans(wallet ?? "");
  const loans: Loan[] = wallet === null ? [] : [...(borrowed.data?.loans ?? []), ...(lent.data?.loans ?? [])];
  const labels = useLoanLabels(loans);
  return (pubkey) => {
    const loan = pubkey === null ? undefined : loans.find((l) => l.pubkey === pubkey);
    if (loan === undefined) return undefined;
    return {
      subject: describeLoan(loan, labels(loan)),
      peerRole: loan.borrower === wallet ? "lender" : "borrower",
    };
  };
}
