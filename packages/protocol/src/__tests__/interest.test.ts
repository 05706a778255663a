import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  HOURS_PER_YEAR,
  INTEREST_DENOMINATOR,
  INTEREST_NET_OF_FEES_BPS,
  MIN_INTEREST_BPS,
  PROTOCOL_FEE_BPS,
  SECONDS_PER_DAY,
  SECONDS_PER_HOUR,
} from "../constants.ts";
import { ERROR_CODES, isCisternError } from "../errors.ts";
import {
  computeInterestNetOfFees,
  computeLenderInterest,
  computeOwedInterest,
  computeProtocolFee,
  computeRepayment,
  computeTotalInterest,
} from "../interest.ts";

const ONE_SOL = 1_000_000_000n;
const WEEK = 7 * SECONDS_PER_DAY;
const loan = { aprBps: 10_000, principal: ONE_SOL, durationSeconds: WEEK, createdAt: 1_700_000_000 };

describe("contract constants", () => {
  it("pins the spec's numbers", () => {
    expect(SECONDS_PER_HOUR).toBe(3600);
    expect(SECONDS_PER_DAY).toBe(86_400);
    expect(HOURS_PER_YEAR).toBe(8760);
    expect(INTEREST_DENOMINATOR).toBe(87_600_000);
    expect(PROTOCOL_FEE_BPS).toBe(2000);
    expect(MIN_INTEREST_BPS).toBe(3000);
    expect(INTEREST_NET_OF_FEES_BPS).toBe(9500);
  });
});

describe("computeTotalInterest", () => {
  it("bills started hours and rounds up", () => {
    // 100% APR on 1 SOL for 168 hours: 1e9 * 168 / 8760 = 19178082.19... -> 19178083 lamports
    expect(computeTotalInterest(loan)).toBe(19_178_083n);
    // 30 days + 1 s is 721 started hours: 1500 * 250_000_000 * 721 / 87_600_000 = 3086472.6 -> 3086473
    expect(
      computeTotalInterest({ aprBps: 1500, principal: 250_000_000n, durationSeconds: 30 * 86_400 + 1 }),
    ).toBe(3_086_473n);
  });

  it("is zero for a zero rate, amount or duration", () => {
    expect(computeTotalInterest({ ...loan, aprBps: 0 })).toBe(0n);
    expect(computeTotalInterest({ ...loan, principal: 0n })).toBe(0n);
    expect(computeTotalInterest({ ...loan, durationSeconds: 0 })).toBe(0n);
  });

  it("accepts bigint inputs with the same result", () => {
    expect(computeTotalInterest({ aprBps: 10_000n, principal: ONE_SOL, durationSeconds: BigInt(WEEK) })).toBe(
      19_178_083n,
    );
  });

  it("rejects negative, fractional and oversized inputs with code 2001", () => {
    for (const bad of [
      { ...loan, aprBps: -1 },
      { ...loan, aprBps: 1.5 },
      { ...loan, durationSeconds: Number.NaN },
      { ...loan, principal: -1n },
      { ...loan, principal: 2n ** 64n },
    ]) {
      expect(() => computeTotalInterest(bad)).toThrowError(expect.objectContaining({ code: 2001 }));
    }
  });
});

describe("computeOwedInterest", () => {
  const at = (offsetSeconds: number) => computeOwedInterest({ ...loan, now: loan.createdAt + offsetSeconds });

  it("charges at least 30% of the total early on", () => {
    // minimum = ceil(19178083 * 3000 / 10000) = 5753425; accrued for 1 hour is only 114156
    expect(at(0)).toBe(5_753_425n);
    expect(at(3599)).toBe(5_753_425n);
    expect(computeOwedInterest({ ...loan, now: loan.createdAt - 100 })).toBe(5_753_425n);
  });

  it("accrues elapsed hours plus one once above the minimum", () => {
    // 3 days: floor(259200 / 3600) + 1 = 73 hours -> ceil(1e13 * 73 / 87.6e6) = 8333334
    expect(at(3 * SECONDS_PER_DAY)).toBe(8_333_334n);
  });

  it("is capped at the total up to and including expiry", () => {
    expect(at(WEEK)).toBe(19_178_083n);
    expect(at(WEEK - 1)).toBe(19_178_083n);
  });

  it("adds overdue interest at twice the rate per started hour after expiry", () => {
    // 1 overdue hour: ceil(2 * 1e13 * 1 / 87.6e6) = 228311
    expect(at(WEEK + 1)).toBe(19_178_083n + 228_311n);
    expect(at(WEEK + 3600)).toBe(19_406_394n);
    expect(at(WEEK + 3601)).toBe(19_634_705n);
  });
});

describe("fees", () => {
  it("takes 20% for the treasury, rounded down, and leaves the rest to the bank", () => {
    expect(computeProtocolFee(19_178_083n)).toBe(3_835_616n);
    expect(computeLenderInterest(19_178_083n)).toBe(15_342_467n);
    expect(computeProtocolFee(4n)).toBe(0n);
    expect(computeProtocolFee(5n)).toBe(1n);
  });

  it("shows lenders interest net of a 5% deduction, rounded down", () => {
    expect(computeInterestNetOfFees(19_178_083n)).toBe(18_219_178n);
    expect(computeInterestNetOfFees(19n)).toBe(18n);
    expect(computeInterestNetOfFees(100n)).toBe(95n);
  });

  it("computes the repayment with its split", () => {
    expect(computeRepayment({ ...loan, now: loan.createdAt + WEEK })).toEqual({
      principal: ONE_SOL,
      owedInterest: 19_178_083n,
      protocolFee: 3_835_616n,
      lenderInterest: 15_342_467n,
      repayment: 1_019_178_083n,
    });
  });

  it("rejects negative interest", () => {
    try {
      computeProtocolFee(-1n);
      expect.unreachable();
    } catch (e) {
      expect(isCisternError(e, ERROR_CODES.INVALID_INTEREST_INPUT)).toBe(true);
    }
  });
});

const arbLoan = fc.record({
  aprBps: fc.integer({ min: 0, max: 100_000 }),
  principal: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  durationSeconds: fc.integer({ min: 86_400, max: 365 * 86_400 }),
  createdAt: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
});

describe("properties", () => {
  it("total interest rounds up: total * denominator >= exact numerator, by less than one denominator", () => {
    fc.assert(
      fc.property(arbLoan, (l) => {
        const total = computeTotalInterest(l);
        const hours = BigInt(Math.ceil(l.durationSeconds / 3600));
        const numerator = BigInt(l.aprBps) * l.principal * hours;
        const denominator = 87_600_000n;
        expect(total * denominator >= numerator).toBe(true);
        expect((total - 1n) * denominator < numerator || total === 0n).toBe(true);
      }),
    );
  });

  it("owed interest before expiry is within [30% of total, total], never negative", () => {
    fc.assert(
      fc.property(arbLoan, fc.double({ min: 0, max: 1, noNaN: true }), (l, fraction) => {
        const now = l.createdAt + Math.floor(l.durationSeconds * fraction);
        const owed = computeOwedInterest({ ...l, now });
        const total = computeTotalInterest(l);
        expect(owed >= 0n).toBe(true);
        expect(owed <= total).toBe(true);
        expect(owed * 10_000n >= total * 3000n).toBe(true);
      }),
    );
  });

  it("owed interest never decreases with time, and exceeds the total only after expiry", () => {
    fc.assert(
      fc.property(
        arbLoan,
        fc.integer({ min: -86_400, max: 800 * 86_400 }),
        fc.integer({ min: 0, max: 30 * 86_400 }),
        (l, offset, step) => {
          const t1 = Math.max(0, l.createdAt + offset);
          const a = computeOwedInterest({ ...l, now: t1 });
          const b = computeOwedInterest({ ...l, now: t1 + step });
          expect(b >= a).toBe(true);
          if (t1 + step <= l.createdAt + l.durationSeconds) {
            expect(b <= computeTotalInterest(l)).toBe(true);
          }
        },
      ),
    );
  });

  it("after expiry the total is owed plus at least one overdue hour at twice the rate", () => {
    fc.assert(
      fc.property(arbLoan, fc.integer({ min: 1, max: 100 * 86_400 }), (l, overdue) => {
        const now = l.createdAt + l.durationSeconds + overdue;
        const owed = computeOwedInterest({ ...l, now });
        const total = computeTotalInterest(l);
        const hours = BigInt(Math.ceil(overdue / 3600));
        const extra = owed - total;
        // extra = ceil(2 * apr * principal * hours / 87.6e6): rounded up, by less than one unit
        const numerator = 2n * BigInt(l.aprBps) * l.principal * hours;
        expect(extra * 87_600_000n >= numerator).toBe(true);
        expect(extra === 0n || (extra - 1n) * 87_600_000n < numerator).toBe(true);
      }),
    );
  });

  it("owed interest never decreases with the amount or the rate", () => {
    fc.assert(
      fc.property(
        arbLoan,
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 400 * 86_400 }),
        (l, extra, extraApr, elapsed) => {
          const now = l.createdAt + elapsed;
          const base = computeOwedInterest({ ...l, now });
          const principal = l.principal + extra > 2n ** 64n - 1n ? l.principal : l.principal + extra;
          expect(computeOwedInterest({ ...l, principal, now }) >= base).toBe(true);
          expect(computeOwedInterest({ ...l, aprBps: l.aprBps + extraApr, now }) >= base).toBe(true);
        },
      ),
    );
  });

  it("repayment = principal + owed, and the split adds up, at any instant", () => {
    fc.assert(
      fc.property(arbLoan, fc.integer({ min: 0, max: 400 * 86_400 }), (l, elapsed) => {
        const r = computeRepayment({ ...l, now: l.createdAt + elapsed });
        expect(r.repayment).toBe(l.principal + r.owedInterest);
        expect(r.protocolFee + r.lenderInterest).toBe(r.owedInterest);
        expect(r.lenderInterest >= r.protocolFee * 4n).toBe(true);
      }),
    );
  });

  it("fee + lender share == owed; fee rounds down; net of fees rounds down", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 96n }), (interest) => {
        const fee = computeProtocolFee(interest);
        expect(fee + computeLenderInterest(interest)).toBe(interest);
        expect(fee * 10_000n <= interest * 2000n).toBe(true);
        expect((fee + 1n) * 10_000n > interest * 2000n).toBe(true);
        const net = computeInterestNetOfFees(interest);
        expect(net * 10_000n <= interest * 9500n).toBe(true);
        expect((net + 1n) * 10_000n > interest * 9500n).toBe(true);
        expect(net <= interest).toBe(true);
      }),
    );
  });
});
