/**
 * Loan limits and quotes (architecture "Loan limits"; spec section 3 "Loan quote").
 *
 * A loan must: last from 1 day to the pool's maximum duration; be within the pool's USD limits;
 * not exceed collateral value x LTV; keep the collateral's borrowed total within exposure x pool
 * liquidity; fit the pool's available liquidity. Credits to the borrower round down.
 */
import { bigintMax, floorDiv, formatUnits, toPlainDecimalString } from "./amounts.ts";
import { BPS } from "./constants.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";
import {
  computeProtocolFee,
  computeTotalInterest,
  type IntegerInput,
  toNonNegativeInteger,
} from "./interest.ts";
import { assertLoanDuration } from "./loan-timing.ts";

/** USD prices are applied with 12 decimals (truncated). */
export const USD_PRICE_DECIMALS = 12;

const BPS_BIG = BigInt(BPS);

/** A USD price ("152.34" or a number) as an integer scaled by 10^12, truncated. */
export function toScaledUsdPrice(priceUsd: number | string): bigint {
  const [whole = "0", fraction = ""] = toPlainDecimalString(priceUsd).split(".");
  return BigInt(whole + fraction.padEnd(USD_PRICE_DECIMALS, "0").slice(0, USD_PRICE_DECIMALS));
}

/** USD value (display number) of `amount` base units at `priceUsd` per whole unit. */
export function computeUsdValue(amount: bigint, decimals: number, priceUsd: number | string): number {
  return Number(formatUnits(amount * toScaledUsdPrice(priceUsd), decimals + USD_PRICE_DECIMALS));
}

/** Most a collateral lets one borrow: floor(collateralValue x ltvBps / 10000), base units. */
export function computeMaxBorrowAmount(collateralValue: bigint, ltvBps: IntegerInput): bigint {
  return floorDiv(
    toNonNegativeInteger("collateralValue", collateralValue) * toNonNegativeInteger("ltvBps", ltvBps),
    BPS_BIG,
  );
}

/**
 * What a pool still lends against one collateral: floor(poolTotalLiquidity x exposureBps / 10000)
 * minus what is already borrowed against it, never below 0.
 */
export function computeExposureCapacity(
  poolTotalLiquidity: bigint,
  exposureBps: IntegerInput,
  collateralBorrowed: bigint,
): bigint {
  const cap = floorDiv(
    toNonNegativeInteger("poolTotalLiquidity", poolTotalLiquidity) *
      toNonNegativeInteger("exposureBps", exposureBps),
    BPS_BIG,
  );
  return bigintMax(0n, cap - toNonNegativeInteger("collateralBorrowed", collateralBorrowed));
}

/** Everything a loan request is checked against. Amounts in base units of the loan currency. */
export interface LoanRequest {
  amount: bigint;
  durationSeconds: number;
  /** Value of the collateral in the loan currency, base units. */
  collateralValue: bigint;
  /** Collateral LTV, basis points. */
  ltvBps: number;
  /** Collateral exposure, basis points of pool liquidity. */
  exposureBps: number;
  /** Already borrowed against this collateral in this pool, base units. */
  collateralBorrowed: bigint;
  poolTotalLiquidity: bigint;
  poolAvailableLiquidity: bigint;
  maxDurationSeconds: number;
  minAmountUsd: number;
  maxAmountUsd: number;
  /** Loan currency decimals and USD price per whole unit. */
  decimals: number;
  priceUsd: number | string;
}

/**
 * Throw the first rule a loan request breaks (CisternError 2002..2009); return nothing when it
 * may be opened. Order: amount > 0, duration, LTV, exposure, available liquidity, USD limits.
 */
export function assertLoanRequest(request: LoanRequest): void {
  const amount = toNonNegativeInteger("amount", request.amount);
  if (amount === 0n) throw new CisternError(ERROR_CODES.LOAN_AMOUNT_ZERO);
  assertLoanDuration(request.durationSeconds, request.maxDurationSeconds);
  const maxAmount = computeMaxBorrowAmount(request.collateralValue, request.ltvBps);
  if (amount > maxAmount) throw new CisternError(ERROR_CODES.LOAN_AMOUNT_ABOVE_LTV, { amount, maxAmount });
  const capacity = computeExposureCapacity(
    request.poolTotalLiquidity,
    request.exposureBps,
    request.collateralBorrowed,
  );
  if (amount > capacity) throw new CisternError(ERROR_CODES.LOAN_EXPOSURE_EXCEEDED, { amount, capacity });
  if (amount > request.poolAvailableLiquidity) {
    throw new CisternError(ERROR_CODES.LOAN_INSUFFICIENT_LIQUIDITY, {
      amount,
      available: request.poolAvailableLiquidity,
    });
  }
  // USD limits compared exactly: amount x price(12 decimals) vs limit(12 decimals) x 10^decimals
  const value = amount * toScaledUsdPrice(request.priceUsd);
  const decimalsScale = 10n ** BigInt(request.decimals);
  if (value < toScaledUsdPrice(request.minAmountUsd) * decimalsScale) {
    throw new CisternError(ERROR_CODES.LOAN_AMOUNT_BELOW_MIN_USD, { minAmountUsd: request.minAmountUsd });
  }
  if (value > toScaledUsdPrice(request.maxAmountUsd) * decimalsScale) {
    throw new CisternError(ERROR_CODES.LOAN_AMOUNT_ABOVE_MAX_USD, { maxAmountUsd: request.maxAmountUsd });
  }
}

/** A loan quote (spec section 3). Amounts in base units; `*InUsd` are display numbers. */
export interface LoanQuote {
  amount: bigint;
  /** Seconds. */
  duration: number;
  /** Interest due at expiry (rounded up). */
  interest: bigint;
  /** Cistern's fee: its share of the interest (rounded down). */
  cisternFees: bigint;
  /** Basis points. */
  apr: number;
  /** amount + interest. */
  requiredRepayment: bigint;
  /** What the borrower receives. */
  netBorrowAmount: bigint;
  amountInUsd?: number;
  interestInUsd?: number;
  cisternFeesInUsd?: number;
}

/** Quote a loan: total interest at the pool rate, Cistern's fee on it, repayment at expiry. */
export function computeLoanQuote(input: {
  amount: bigint;
  durationSeconds: number;
  aprBps: number;
  decimals?: number;
  priceUsd?: number | string;
}): LoanQuote {
  const interest = computeTotalInterest({
    aprBps: input.aprBps,
    principal: input.amount,
    durationSeconds: input.durationSeconds,
  });
  const cisternFees = computeProtocolFee(interest);
  const quote: LoanQuote = {
    amount: input.amount,
    duration: input.durationSeconds,
    interest,
    cisternFees,
    apr: input.aprBps,
    requiredRepayment: input.amount + interest,
    netBorrowAmount: input.amount,
  };
  if (input.decimals !== undefined && input.priceUsd !== undefined) {
    quote.amountInUsd = computeUsdValue(input.amount, input.decimals, input.priceUsd);
    quote.interestInUsd = computeUsdValue(interest, input.decimals, input.priceUsd);
    quote.cisternFeesInUsd = computeUsdValue(cisternFees, input.decimals, input.priceUsd);
  }
  return quote;
}
