import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../errors.ts";
import {
  assertLoanRequest,
  computeExposureCapacity,
  computeLoanQuote,
  computeMaxBorrowAmount,
  computeUsdValue,
  type LoanRequest,
  toScaledUsdPrice,
} from "../loan-quote.ts";

const SOL = 1_000_000_000n;
const request: LoanRequest = {
  amount: 5n * SOL,
  durationSeconds: 7 * 86_400,
  collateralValue: 20n * SOL,
  ltvBps: 5000,
  exposureBps: 3000,
  collateralBorrowed: 10n * SOL,
  poolTotalLiquidity: 100n * SOL,
  poolAvailableLiquidity: 60n * SOL,
  maxDurationSeconds: 14 * 86_400,
  minAmountUsd: 10,
  maxAmountUsd: 5000,
  decimals: 9,
  priceUsd: "150",
};
const code = (c: number) => expect.objectContaining({ code: c });

describe("loan limits", () => {
  it("LTV and exposure caps round down", () => {
    expect(computeMaxBorrowAmount(20n * SOL, 5000)).toBe(10n * SOL);
    expect(computeMaxBorrowAmount(3n, 5000)).toBe(1n);
    expect(computeExposureCapacity(100n * SOL, 3000, 10n * SOL)).toBe(20n * SOL);
    expect(computeExposureCapacity(100n * SOL, 3000, 40n * SOL)).toBe(0n);
  });

  it("accepts a request within every limit", () => {
    expect(() => assertLoanRequest(request)).not.toThrow();
  });

  it("rejects each broken rule with its code", () => {
    const bad = (patch: Partial<LoanRequest>) => () => assertLoanRequest({ ...request, ...patch });
    expect(bad({ amount: 0n })).toThrowError("Loan amount must be greater than zero");
    expect(bad({ durationSeconds: 3600 })).toThrowError(code(ERROR_CODES.DURATION_TOO_SHORT));
    expect(bad({ durationSeconds: 15 * 86_400 })).toThrowError(code(ERROR_CODES.DURATION_TOO_LONG));
    expect(bad({ amount: 10n * SOL + 1n })).toThrowError(code(ERROR_CODES.LOAN_AMOUNT_ABOVE_LTV));
    expect(bad({ collateralBorrowed: 26n * SOL })).toThrowError(code(ERROR_CODES.LOAN_EXPOSURE_EXCEEDED));
    expect(bad({ poolAvailableLiquidity: 4n * SOL })).toThrowError(
      code(ERROR_CODES.LOAN_INSUFFICIENT_LIQUIDITY),
    );
    // 0.05 SOL at 150 USD = 7.5 USD < 10
    expect(bad({ amount: 50_000_000n })).toThrowError("Loan amount is below the pool minimum of 10 USD");
    expect(bad({ maxAmountUsd: 700 })).toThrowError("Loan amount is above the pool maximum of 700 USD");
    // exactly at the limits is allowed: 5 SOL x 150 = 750 USD
    expect(() => assertLoanRequest({ ...request, maxAmountUsd: 750, minAmountUsd: 750 })).not.toThrow();
  });

  it("never allows more than collateral x LTV", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.integer({ min: 0, max: 10_000 }),
        (value, ltv) => {
          const max = computeMaxBorrowAmount(value, ltv);
          expect(max * 10_000n <= value * BigInt(ltv)).toBe(true);
          expect((max + 1n) * 10_000n > value * BigInt(ltv)).toBe(true);
        },
      ),
    );
  });
});

describe("computeLoanQuote", () => {
  it("quotes interest, Cistern's fee and repayment", () => {
    expect(
      computeLoanQuote({
        amount: SOL,
        durationSeconds: 7 * 86_400,
        aprBps: 10_000,
        decimals: 9,
        priceUsd: 150,
      }),
    ).toEqual({
      amount: SOL,
      duration: 604_800,
      interest: 19_178_083n,
      cisternFees: 3_835_616n,
      apr: 10_000,
      requiredRepayment: 1_019_178_083n,
      netBorrowAmount: SOL,
      amountInUsd: 150,
      interestInUsd: 2.87671245,
      cisternFeesInUsd: 0.5753424,
    });
  });

  it("USD values use the price truncated to 12 decimals", () => {
    expect(toScaledUsdPrice("1.0000000000019")).toBe(1_000_000_000_001n);
    expect(toScaledUsdPrice(0.5)).toBe(500_000_000_000n);
    expect(computeUsdValue(2_500_000n, 6, "1")).toBe(2.5);
  });
});
