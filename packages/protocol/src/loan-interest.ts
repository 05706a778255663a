/**
 * Interest figures of a loan for display, from its parsed view and its currency.
 */
import { formatUnits } from "./amounts.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";
import { computeInterestNetOfFees, computeOwedInterest } from "./interest.ts";

/** What the loan interest display needs; any missing field is an error. */
export interface LoanInterestInput {
  /** Principal, base units. */
  amount?: bigint | null;
  /** Interest due at expiry, base units. */
  interest?: bigint | null;
  /** Loan rate, basis points (for interest owed now). */
  aprBps?: number | null;
  duration?: number | null;
  createdAt?: number | null;
}

/** Interest figures in whole units (decimal strings) plus base units. */
export interface LoanInterestSummary {
  interest: string;
  /** amount + interest. */
  totalRepayment: string;
  /** Interest net of the 5% deduction, for lenders. */
  interestNetOfFees: string;
  /** Interest owed at `now` (when the rate and times are known), base units. */
  owedInterestNow: bigint | undefined;
  interestBaseUnits: bigint;
  totalRepaymentBaseUnits: bigint;
}

/**
 * Interest of a loan for display. Needs the amount, the interest and the currency's decimals,
 * else CisternError MISSING_LOAN_OR_CURRENCY_DATA (2000) 'Missing required loan or currency data'.
 */
export function getLoanInterestSummary(
  loan: LoanInterestInput | null | undefined,
  currency: { decimals?: number | null } | null | undefined,
  now?: number,
): LoanInterestSummary {
  const decimals = currency?.decimals;
  const amount = loan?.amount;
  const interest = loan?.interest;
  if (
    typeof amount !== "bigint" ||
    typeof interest !== "bigint" ||
    typeof decimals !== "number" ||
    !Number.isInteger(decimals)
  ) {
    throw new CisternError(ERROR_CODES.MISSING_LOAN_OR_CURRENCY_DATA);
  }
  const canComputeOwed =
    now !== undefined &&
    typeof loan?.aprBps === "number" &&
    typeof loan.duration === "number" &&
    typeof loan.createdAt === "number";
  const owedInterestNow = canComputeOwed
    ? computeOwedInterest({
        aprBps: loan.aprBps!,
        principal: amount,
        durationSeconds: loan.duration!,
        createdAt: loan.createdAt!,
        now: now!,
      })
    : undefined;
  return {
    interest: formatUnits(interest, decimals),
    totalRepayment: formatUnits(amount + interest, decimals),
    interestNetOfFees: formatUnits(computeInterestNetOfFees(interest), decimals),
    owedInterestNow,
    interestBaseUnits: interest,
    totalRepaymentBaseUnits: amount + interest,
  };
}
