import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  computeExposureCapacity,
  computeLoanQuote,
  computeMaxBorrowAmount,
  computeUsdValue,
  toScaledUsdPrice,
} from "../loan-quote.ts";

const SOL = 1_000_000_000n;
describe("loan limits", () => {
  it("LTV and exposure caps round down", () => {
    expect(computeMaxBorrowAmount(20n * SOL, 5000)).toBe(10n * SOL);
    expect(computeMaxBorrowAmount(3n, 5000)).toBe(1n);
    expect(computeExposureCapacity(100n * SOL, 3000, 10n * SOL)).toBe(20n * SOL);
    expect(computeExposureCapacity(100n * SOL, 3000, 40n * SOL)).toBe(0n);
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
