import type { Loan } from "@cistern/protocol";
import { formatDateTime, formatDuration, formatMoney } from "@cistern/protocol";
import { type ChainPerformance, getChainSlowness } from "../data/chain-status.ts";
import { describeEndingForBorrower, getLoanEnding, type LoanEnding } from "../features/loans/loan-ending.ts";
import { closedAt, type LoanRowView } from "../features/loans/loan-model.ts";
import type { LoanRequestView } from "../features/requests/request-data.ts";

/** What a notification is about. */
export type NotificationKind =
  | "due-soon"
  | "past-due"
  | "liquidatable"
  | "lender-liquidatable"
  | LoanEnding
  | "request-filled"
  | "degraded";

export interface AppNotification {
  /** Stable per event (loan and kind), so one event notifies once. */
  id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  /** Epoch seconds it refers to (for ordering). */
  at: number;
  /** The urgent ones (the borrower can still act) come first and are shown in red. */
  urgent: boolean;
  /** The loan it is about (clicking opens it on Loans, in `tab`); absent for the cluster's slowness. */
  loan?: { pubkey: string; tab: "borrowed" | "lent"; subject: string };
}

/** How long a closed loan stays in the notification centre. */
const RECENT_SECONDS = 7 * 86_400;

/**
 * The wallet's notifications at `now`: as a borrower, loans due within a day, past due (in grace) and past grace,
 * loans repaid, liquidated or sold and loan requests a lender filled in the last 7 days; as a lender, loans on
 * its pools it may liquidate; and a degraded cluster while the wallet has loans running.
 */
export function getNotifications(input: {
  borrowed: readonly LoanRowView[];
  lent: readonly LoanRowView[];
  /** The wallet's loan requests (any status). */
  requests?: readonly LoanRequestView[];
  now: number;
  performance?: ChainPerformance;
  /** Names a loan ("20 USDC loan on Aqua Ape #12"); without it, by its amount alone. */
  describe?: (loan: Loan) => string;
}): AppNotification[] {
  const out: AppNotification[] = [];
  const describe = input.describe ?? ((loan: Loan) => `${formatMoney(loan.amount, loan.currency)} loan`);
  // a loan an extension or a refinance closed is shown as the loan continuing it: that one is opened
  const latest = (loan: Loan): string => {
    let pubkey = loan.pubkey;
    for (let next = loan.extendedTo, hops = 0; next !== undefined && hops < 100; hops++) {
      pubkey = next;
      next = input.borrowed.find((r) => r.loan.pubkey === next)?.loan.extendedTo;
    }
    return pubkey;
  };
  const about = (loan: Loan, tab: "borrowed" | "lent") => ({
    loan: { pubkey: latest(loan), tab, subject: describe(loan) },
  });
  for (const request of input.requests ?? []) {
    if (request.status !== "Filled" || input.now - request.closedAt > RECENT_SECONDS) continue;
    const loan = input.borrowed.find((r) => r.loan.pubkey === request.loan)?.loan;
    out.push({
      id: `${request.pubkey}:request-filled`,
      kind: "request-filled",
      title: "Your loan request was filled",
      body:
        loan === undefined
          ? `A lender filled your request: ${formatMoney(request.principal, request.currency)} is in your wallet.`
          : `A lender filled your request: ${formatMoney(request.principal, request.currency)} is in your wallet, repay by ${formatDateTime(loan.createdAt + loan.duration)}.`,
      at: request.closedAt,
      urgent: false,
      ...(loan === undefined ? {} : about(loan, "borrowed")),
    });
  }
  for (const row of input.borrowed) {
    const { loan } = row;
    const owed = row.owedNow === undefined ? "" : formatMoney(row.owedNow, loan.currency, "up");
    const due = loan.createdAt + loan.duration;
    if (row.phase === "near-expiry")
      out.push({
        id: `${loan.pubkey}:due-soon`,
        kind: "due-soon",
        title: "A loan is due soon",
        body: `Repay ${owed} by ${formatDateTime(due)} (in ${formatDuration(row.secondsToExpiry)}) to keep your collateral.`,
        at: due,
        urgent: true,
        ...about(loan, "borrowed"),
      });
    else if (row.phase === "grace")
      out.push({
        id: `${loan.pubkey}:past-due`,
        kind: "past-due",
        title: "A loan is past due",
        body: `Repay ${owed} before ${formatDateTime(row.liquidatableAt)}: after that the lender may take the collateral.`,
        at: due,
        urgent: true,
        ...about(loan, "borrowed"),
      });
    else if (row.phase === "liquidatable")
      out.push({
        id: `${loan.pubkey}:liquidatable`,
        kind: "liquidatable",
        title: "A loan is past its grace period",
        body: `The lender may now liquidate it. Repaying ${owed} still works until they do.`,
        at: row.liquidatableAt,
        urgent: true,
        ...about(loan, "borrowed"),
      });
    else if (row.loan.status !== "Ongoing" && input.now - closedAt(row) <= RECENT_SECONDS) {
      // how it closed, in its own words: an extension or a refinance is no repayment, an auto-sale no plain seizure
      const ending = getLoanEnding(loan);
      const next =
        loan.extendedTo === undefined
          ? undefined
          : input.borrowed.find((r) => r.loan.pubkey === loan.extendedTo)?.loan;
      const words = describeEndingForBorrower(loan, next);
      if (ending !== null && words !== null)
        out.push({
          id: `${loan.pubkey}:${ending}`,
          kind: ending,
          ...words,
          at: closedAt(row),
          urgent: false,
          ...about(loan, "borrowed"),
        });
    }
  }
  for (const row of input.lent)
    if (row.phase === "liquidatable")
      out.push({
        id: `${row.loan.pubkey}:lender-liquidatable`,
        kind: "lender-liquidatable",
        title: "A loan on your pool can be liquidated",
        body: `The borrower of ${formatMoney(row.loan.amount, row.loan.currency)} is past the grace period: you may liquidate it from Loans on my pools.`,
        at: row.liquidatableAt,
        urgent: false,
        ...about(row.loan, "lent"),
      });
  const running = input.borrowed.some((r) => ["active", "near-expiry", "grace"].includes(r.phase));
  // the one slowness rule (slot time, not throughput) the Loans page's warning reads too
  const slowness = getChainSlowness(input.performance);
  if (running && slowness !== null)
    out.push({
      id: `degraded:${Math.floor(input.now / 3600)}`,
      kind: "degraded",
      title: "Solana is running slow",
      body: `Right now ${slowness}. Repay early: the on-chain grace period does not change during an outage.`,
      at: input.now,
      urgent: true,
    });
  return out.sort((a, b) => Number(b.urgent) - Number(a.urgent) || b.at - a.at);
}
