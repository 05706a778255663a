/**
 * Interest maths of the shared protocol contract. The on-chain program computes the same numbers.
 *
 * Units: amounts (`principal`, results) are bigint base units; `aprBps` is basis points (10000 =
 * 100% a year); times (`durationSeconds`, `createdAt`, `now`) are seconds (epoch seconds for
 * instants) given as a safe-integer `number` or a `bigint`.
 *
 * Rounding favours the pool: interest owed rounds UP (ceil), the protocol fee and the lender's
 * display figure round DOWN (floor); the bank keeps the remainder of the fee split.
 */
import { bigintMax, bigintMin, ceilDiv, floorDiv } from "./amounts.ts";
import {
  BPS,
  HOURS_PER_YEAR,
  INTEREST_NET_OF_FEES_BPS,
  MIN_INTEREST_BPS,
  OVERDUE_RATE_MULTIPLIER,
  PROTOCOL_FEE_BPS,
  SECONDS_PER_HOUR,
  U64_MAX,
} from "./constants.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";

/** Seconds or an integer count, as a safe-integer number or a bigint. */
export type IntegerInput = number | bigint;

const HOUR = BigInt(SECONDS_PER_HOUR);
const BPS_BIG = BigInt(BPS);
/** HOURS_PER_YEAR * BPS = 87_600_000. */
const YEAR_HOURS_BPS = BigInt(HOURS_PER_YEAR) * BPS_BIG;

/**
 * Convert a non-negative integer input to bigint; throws CisternError INVALID_INTEREST_INPUT (2001)
 * for negatives, fractions, NaN, unsafe numbers or a principal above u64.
 */
export function toNonNegativeInteger(field: string, value: IntegerInput): bigint {
  if (typeof value === "bigint") {
    if (value < 0n) throw new CisternError(ERROR_CODES.INVALID_INTEREST_INPUT, { field, value });
    return value;
  }
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new CisternError(ERROR_CODES.INVALID_INTEREST_INPUT, { field, value: String(value) });
  }
  return BigInt(value);
}

function toPrincipal(principal: bigint): bigint {
  const value = toNonNegativeInteger("principal", principal);
  if (value > U64_MAX)
    throw new CisternError(ERROR_CODES.INVALID_INTEREST_INPUT, { field: "principal", value });
  return value;
}

/** Inputs of {@link computeTotalInterest}. */
export interface TotalInterestInput {
  /** Annual rate in basis points. */
  aprBps: IntegerInput;
  /** Loan amount, base units. */
  principal: bigint;
  /** Loan duration, seconds. */
  durationSeconds: IntegerInput;
}

/** Inputs of {@link computeOwedInterest} and {@link computeRepayment}. */
export interface OwedInterestInput extends TotalInterestInput {
  /** Loan start, epoch seconds. */
  createdAt: IntegerInput;
  /** Evaluation instant, epoch seconds. */
  now: IntegerInput;
}

/**
 * Interest due at expiry, base units, ROUNDED UP:
 * `ceilDiv(aprBps * principal * ceilDiv(durationSeconds, 3600), 8760 * 10000)`.
 * Durations are billed per started hour.
 */
export function computeTotalInterest({ aprBps, principal, durationSeconds }: TotalInterestInput): bigint {
  const apr = toNonNegativeInteger("aprBps", aprBps);
  const amount = toPrincipal(principal);
  const hours = ceilDiv(toNonNegativeInteger("durationSeconds", durationSeconds), HOUR);
  return ceilDiv(apr * amount * hours, YEAR_HOURS_BPS);
}

/**
 * Interest owed at `now`, base units, ROUNDED UP. With `expiredAt = createdAt + durationSeconds`:
 * - at or before expiry: elapsed started hours plus one (`floor(max(0, now - createdAt) / 3600) + 1`)
 *   at the loan rate, at least 30% of the total (ceil), at most the total;
 * - after expiry: the total plus `ceilDiv(2 * aprBps * principal * ceilDiv(now - expiredAt, 3600), 87_600_000)`.
 */
export function computeOwedInterest(input: OwedInterestInput): bigint {
  const apr = toNonNegativeInteger("aprBps", input.aprBps);
  const amount = toPrincipal(input.principal);
  const duration = toNonNegativeInteger("durationSeconds", input.durationSeconds);
  const createdAt = toNonNegativeInteger("createdAt", input.createdAt);
  const now = toNonNegativeInteger("now", input.now);
  const total = computeTotalInterest({ aprBps: apr, principal: amount, durationSeconds: duration });
  const expiredAt = createdAt + duration;
  if (now <= expiredAt) {
    const elapsedSeconds = now > createdAt ? now - createdAt : 0n;
    const elapsedHours = elapsedSeconds / HOUR + 1n;
    const accrued = ceilDiv(apr * amount * elapsedHours, YEAR_HOURS_BPS);
    const minimum = ceilDiv(total * BigInt(MIN_INTEREST_BPS), BPS_BIG);
    return bigintMin(bigintMax(accrued, minimum), total);
  }
  const overdueHours = ceilDiv(now - expiredAt, HOUR);
  return total + ceilDiv(BigInt(OVERDUE_RATE_MULTIPLIER) * apr * amount * overdueHours, YEAR_HOURS_BPS);
}

/**
 * Protocol fee on interest paid, base units, ROUNDED DOWN: `floor(interest * 2000 / 10000)`.
 * It goes to the treasury; the bank keeps `interest - fee`, so rounding favours the pool.
 */
export function computeProtocolFee(interest: bigint): bigint {
  return floorDiv(toNonNegativeInteger("interest", interest) * BigInt(PROTOCOL_FEE_BPS), BPS_BIG);
}

/** The lender's (bank's) share of interest paid: `interest - computeProtocolFee(interest)`. */
export function computeLenderInterest(interest: bigint): bigint {
  return toNonNegativeInteger("interest", interest) - computeProtocolFee(interest);
}

/**
 * Interest shown to lenders net of fees, base units, ROUNDED DOWN: `floor(interest * 9500 / 10000)`
 * (a 5% deduction; a display figure).
 */
export function computeInterestNetOfFees(interest: bigint): bigint {
  return floorDiv(toNonNegativeInteger("interest", interest) * BigInt(INTEREST_NET_OF_FEES_BPS), BPS_BIG);
}

/** What repaying a loan at `now` costs and where the interest goes (all base units). */
export interface Repayment {
  principal: bigint;
  /** Interest owed at `now` (rounded up). */
  owedInterest: bigint;
  /** Treasury part of the interest (rounded down). */
  protocolFee: bigint;
  /** Bank part of the interest: owedInterest - protocolFee. */
  lenderInterest: bigint;
  /** principal + owedInterest: what the borrower pays. */
  repayment: bigint;
}

/** Repayment at `now`: principal + owed interest, with the fee split. */
export function computeRepayment(input: OwedInterestInput): Repayment {
  const principal = toPrincipal(input.principal);
  const owedInterest = computeOwedInterest(input);
  const protocolFee = computeProtocolFee(owedInterest);
  return {
    principal,
    owedInterest,
    protocolFee,
    lenderInterest: owedInterest - protocolFee,
    repayment: principal + owedInterest,
  };
}
