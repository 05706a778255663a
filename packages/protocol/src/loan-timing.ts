/**
 * Loan timing rules: expiry, grace period, liquidation eligibility, near expiry and duration limits.
 * Seconds and epoch seconds are numbers (or bigints, accepted and compared exactly).
 */
import {
  GRACE_SECONDS_PER_LOAN_DAY,
  MAX_GRACE_LOAN_DAYS,
  MIN_LOAN_DURATION_SECONDS,
  NEAR_EXPIRY_WINDOW_SECONDS,
  SECONDS_PER_DAY,
} from "./constants.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";
import { type IntegerInput, toNonNegativeInteger } from "./interest.ts";

/** Ongoing status of a parsed loan (status with its first letter capitalised). */
export const LOAN_STATUS_ONGOING = "Ongoing";

/**
 * Grace period after expiry, seconds: 1 hour per whole loan day, at most 8 hours.
 * `min(floor(durationSeconds / 86400), 8) * 3600`.
 */
export function computeGraceSeconds(durationSeconds: IntegerInput): number {
  const days = toNonNegativeInteger("durationSeconds", durationSeconds) / BigInt(SECONDS_PER_DAY);
  const cappedDays = days > BigInt(MAX_GRACE_LOAN_DAYS) ? MAX_GRACE_LOAN_DAYS : Number(days);
  return cappedDays * GRACE_SECONDS_PER_LOAN_DAY;
}

/** Expiry instant, epoch seconds: createdAt + durationSeconds. */
export function computeExpiredAt(createdAt: IntegerInput, durationSeconds: IntegerInput): number {
  return Number(
    toNonNegativeInteger("createdAt", createdAt) + toNonNegativeInteger("durationSeconds", durationSeconds),
  );
}

/** Inputs of {@link isLiquidatable}. */
export interface LiquidationCheckInput {
  createdAt: IntegerInput;
  durationSeconds: IntegerInput;
  now: IntegerInput;
  /** When given, only an "Ongoing" loan can be liquidated. */
  status?: string;
}

/** True when anyone may liquidate: now > expiredAt + grace (strictly after the grace period). */
export function isLiquidatable({ createdAt, durationSeconds, now, status }: LiquidationCheckInput): boolean {
  if (status !== undefined && status !== LOAN_STATUS_ONGOING) return false;
  const expiredAt =
    toNonNegativeInteger("createdAt", createdAt) + toNonNegativeInteger("durationSeconds", durationSeconds);
  const grace = BigInt(computeGraceSeconds(durationSeconds));
  return toNonNegativeInteger("now", now) > expiredAt + grace;
}

/** The loan facts that near-expiry needs. */
export interface ExpiringLoan {
  status: string;
  borrower: string;
  /** Epoch seconds. */
  expiredAt: IntegerInput;
}

/**
 * True for the user's own ongoing loan (as borrower) expiring within the next 86400 s:
 * `0 <= expiredAt - now <= 86400`. A lender's loans never count.
 */
export function isNearExpiry(loan: ExpiringLoan, wallet: string, now: IntegerInput): boolean {
  if (loan.status !== LOAN_STATUS_ONGOING || loan.borrower !== wallet) return false;
  const left = toNonNegativeInteger("expiredAt", loan.expiredAt) - toNonNegativeInteger("now", now);
  return left >= 0n && left <= BigInt(NEAR_EXPIRY_WINDOW_SECONDS);
}

/**
 * The user's ongoing loan (as borrower) that expires next, not yet expired (`expiredAt >= now`);
 * undefined when there is none. Ties keep the first in input order.
 */
export function getNearestExpiringLoan<L extends ExpiringLoan>(
  loans: readonly L[],
  wallet: string,
  now: IntegerInput,
): L | undefined {
  const nowBig = toNonNegativeInteger("now", now);
  let best: L | undefined;
  let bestAt = 0n;
  for (const loan of loans) {
    if (loan.status !== LOAN_STATUS_ONGOING || loan.borrower !== wallet) continue;
    const at = toNonNegativeInteger("expiredAt", loan.expiredAt);
    if (at < nowBig) continue;
    if (best === undefined || at < bestAt) {
      best = loan;
      bestAt = at;
    }
  }
  return best;
}

/** True when any of the user's loans is near expiry (the "isExpireSoon" flag). */
export function hasLoanNearExpiry(
  loans: readonly ExpiringLoan[],
  wallet: string,
  now: IntegerInput,
): boolean {
  return loans.some((loan) => isNearExpiry(loan, wallet, now));
}

/**
 * Throws unless 86400 <= durationSeconds <= maxDurationSeconds (CisternError DURATION_TOO_SHORT 2002
 * or DURATION_TOO_LONG 2003).
 */
export function assertLoanDuration(durationSeconds: IntegerInput, maxDurationSeconds: IntegerInput): void {
  const duration = toNonNegativeInteger("durationSeconds", durationSeconds);
  const max = toNonNegativeInteger("maxDurationSeconds", maxDurationSeconds);
  if (duration < BigInt(MIN_LOAN_DURATION_SECONDS)) {
    throw new CisternError(ERROR_CODES.DURATION_TOO_SHORT, { durationSeconds: duration });
  }
  if (duration > max) {
    throw new CisternError(ERROR_CODES.DURATION_TOO_LONG, {
      durationSeconds: duration,
      maxDurationSeconds: max,
    });
  }
}
