import {
  computeGraceSeconds,
  computeRepayment,
  isLiquidatable,
  isNearExpiry,
  LOAN_STATUS_ONGOING,
  type Loan,
} from "@cistern/protocol";

/** Where a loan stands at `now`. */
export type LoanPhase =
  | "active"
  | "near-expiry"
  | "grace"
  | "liquidatable"
  | "repaid"
  | "liquidated"
  | "sold";

/** A loan with what the borrower or lender needs to see now. */
export interface LoanRowView {
  loan: Loan;
  phase: LoanPhase;
  /** Seconds until expiry (negative after it). */
  secondsToExpiry: number;
  /** Seconds until the lender may liquidate (negative once liquidatable). */
  secondsToLiquidation: number;
  /** Epoch seconds from which the lender may liquidate (expiry + grace). */
  liquidatableAt: number;
  /** Repayment owed now (principal + interest owed now), base units; ongoing loans only. */
  owedNow: bigint | undefined;
}

/** Phase, countdowns and the amount owed now of a loan seen by `wallet` at `now`. */
export function viewLoan(loan: Loan, wallet: string, now: number): LoanRowView {
  const expiredAt = loan.createdAt + loan.duration;
  const grace = computeGraceSeconds(loan.duration);
  const ongoing = loan.status === LOAN_STATUS_ONGOING;
  let phase: LoanPhase;
  if (!ongoing) phase = loan.status.toLowerCase() as LoanPhase;
  else if (
    isLiquidatable({ createdAt: loan.createdAt, durationSeconds: loan.duration, now, status: loan.status })
  )
    phase = "liquidatable";
  else if (now > expiredAt) phase = "grace";
  else if (isNearExpiry({ status: loan.status, borrower: loan.borrower, expiredAt }, wallet, now))
    phase = "near-expiry";
  else phase = "active";
  const apr = loan.aprBps;
  const owedNow =
    ongoing && apr !== undefined
      ? computeRepayment({
          aprBps: apr,
          principal: loan.amount,
          durationSeconds: loan.duration,
          createdAt: loan.createdAt,
          now,
        }).repayment
      : undefined;
  return {
    loan,
    phase,
    secondsToExpiry: expiredAt - now,
    secondsToLiquidation: expiredAt + grace - now,
    liquidatableAt: expiredAt + grace,
    owedNow,
  };
}

/**
 * True when the lender may liquidate the loan now: ongoing and strictly past expiry + grace at `now`
 * (the chain's clock). The API re-checks against the cluster clock before building.
 */
export function canLiquidate(row: LoanRowView): boolean {
  return row.phase === "liquidatable";
}

/** When a closed loan closed (repaid, liquidated or sold), epoch seconds. */
export function closedAt(row: LoanRowView): number {
  return Math.max(row.loan.repaidAt, row.loan.liquidatedAt, row.loan.soldAt);
}

/** Label shown for a phase. */
export const PHASE_LABEL: Record<LoanPhase, string> = {
  active: "Active",
  "near-expiry": "Expires soon",
  grace: "In grace period",
  liquidatable: "Past grace",
  repaid: "Repaid",
  liquidated: "Liquidated",
  sold: "Sold",
};

/** Totals per currency of several repayments (a multiple repay may mix SOL and USDC loans). */
export function sumByCurrency(rows: readonly LoanRowView[]): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const row of rows) {
    if (row.owedNow === undefined) continue;
    totals.set(row.loan.currency, (totals.get(row.loan.currency) ?? 0n) + row.owedNow);
  }
  return totals;
}

/** How a loan continues earlier ones that extensions or refinances closed: how many, and when the first was taken. */
export interface ExtensionChain {
  /** Links closed by Extend (same pool). */
  extensions: number;
  /** Links closed by Refinance (moved to another pool). */
  refinances: number;
  firstTakenAt: number;
}

/** "extended once", "refinanced twice", "extended once, refinanced once". */
export function describeChain(chain: ExtensionChain): string {
  const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);
  return [
    chain.extensions > 0 ? `extended ${times(chain.extensions)}` : "",
    chain.refinances > 0 ? `refinanced ${times(chain.refinances)}` : "",
  ]
    .filter((part) => part !== "")
    .join(", ");
}

/** True when an Extend or Refinance closed the loan: Refinance by the chain's closedBy, or a move to another pool. */
function isRefinanced(prev: Loan, next: Loan): boolean {
  return prev.closedBy === "Refinanced" || (prev.closedBy === undefined && prev.pool !== next.pool);
}

/**
 * One loan per extension chain: the loans an extension or a refinance closed (Repaid with `extendedTo`) leave the list, and the
 * loan that continues them carries how many extensions it has had and when the first loan was taken.
 */
export function foldExtensions(rows: readonly LoanRowView[]): {
  rows: LoanRowView[];
  chains: Map<string, ExtensionChain>;
} {
  const closedBy = new Map<string, LoanRowView>();
  for (const row of rows) if (row.loan.extendedTo !== undefined) closedBy.set(row.loan.extendedTo, row);
  const chains = new Map<string, ExtensionChain>();
  const kept = rows.filter((row) => row.loan.extendedTo === undefined);
  for (const row of kept) {
    let extensions = 0;
    let refinances = 0;
    let firstTakenAt = row.loan.createdAt;
    let next = row.loan;
    for (
      let prev = closedBy.get(row.loan.pubkey);
      prev !== undefined;
      prev = closedBy.get(prev.loan.pubkey)
    ) {
      if (isRefinanced(prev.loan, next)) refinances++;
      else extensions++;
      firstTakenAt = prev.loan.createdAt;
      next = prev.loan;
      if (extensions + refinances > rows.length) break;
    }
    if (extensions + refinances > 0) chains.set(row.loan.pubkey, { extensions, refinances, firstTakenAt });
  }
  return { rows: kept, chains };
}
