/**
 * Loan quotes (spec section 3 "Loan quote"). Whether an offer can be taken is decided by offer-rules.ts.
 * Credits to the borrower round down.
 */
import { bigintMax, floorDiv, formatUnits, toPlainDecimalString } from "./amounts.ts";
import { BPS } from "./constants.ts";
import {
  computeProtocolFee,
  computeTotalInterest,
  type IntegerInput,
  toNonNegativeInteger,
} from "./interest.ts";

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
