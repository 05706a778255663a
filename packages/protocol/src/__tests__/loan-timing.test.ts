import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../errors.ts";
import {
  assertLoanDuration,
  computeExpiredAt,
  computeGraceSeconds,
  getNearestExpiringLoan,
  hasLoanNearExpiry,
  isLiquidatable,
  isNearExpiry,
} from "../loan-timing.ts";

const DAY = 86_400;

describe("computeGraceSeconds", () => {
  it("gives one hour per whole loan day, at most 8 hours", () => {
    expect(computeGraceSeconds(DAY - 1)).toBe(0);
    expect(computeGraceSeconds(DAY)).toBe(3600);
    expect(computeGraceSeconds(2 * DAY - 1)).toBe(3600);
    expect(computeGraceSeconds(7 * DAY)).toBe(7 * 3600);
    expect(computeGraceSeconds(8 * DAY)).toBe(8 * 3600);
    expect(computeGraceSeconds(365 * DAY)).toBe(8 * 3600);
    expect(computeGraceSeconds(10n ** 15n)).toBe(28_800);
  });

  it("is within [0, 8 h] and never decreases with the duration", () => {
    fc.assert(
      fc.property(fc.nat(400 * DAY), fc.nat(10 * DAY), (d, extra) => {
        const g = computeGraceSeconds(d);
        expect(g).toBeGreaterThanOrEqual(0);
        expect(g).toBeLessThanOrEqual(28_800);
        expect(computeGraceSeconds(d + extra)).toBeGreaterThanOrEqual(g);
      }),
    );
  });
});

describe("isLiquidatable", () => {
  const loan = { createdAt: 1_000_000, durationSeconds: 3 * DAY };
  const expiredAt = computeExpiredAt(loan.createdAt, loan.durationSeconds);

  it("only strictly after expiry plus grace", () => {
    expect(expiredAt).toBe(1_259_200);
    expect(isLiquidatable({ ...loan, now: expiredAt })).toBe(false);
    expect(isLiquidatable({ ...loan, now: expiredAt + 3 * 3600 })).toBe(false);
    expect(isLiquidatable({ ...loan, now: expiredAt + 3 * 3600 + 1 })).toBe(true);
  });

  it("only for ongoing loans when a status is given", () => {
    expect(isLiquidatable({ ...loan, now: expiredAt + DAY, status: "Ongoing" })).toBe(true);
    expect(isLiquidatable({ ...loan, now: expiredAt + DAY, status: "Repaid" })).toBe(false);
  });
});

describe("near expiry", () => {
  const me = "Borrower1111111111111111111111111111111111";
  const now = 2_000_000;
  const mine = (expiredAt: number, status = "Ongoing") => ({ status, borrower: me, expiredAt });

  it("counts the borrower's ongoing loans expiring within 86400 s", () => {
    expect(isNearExpiry(mine(now), me, now)).toBe(true);
    expect(isNearExpiry(mine(now + DAY), me, now)).toBe(true);
    expect(isNearExpiry(mine(now + DAY + 1), me, now)).toBe(false);
    expect(isNearExpiry(mine(now - 1), me, now)).toBe(false);
    expect(isNearExpiry(mine(now + 10, "Repaid"), me, now)).toBe(false);
    expect(isNearExpiry({ ...mine(now + 10), borrower: "someone else" }, me, now)).toBe(false);
    expect(hasLoanNearExpiry([mine(now + 5 * DAY), mine(now + 100)], me, now)).toBe(true);
    expect(hasLoanNearExpiry([mine(now + 5 * DAY)], me, now)).toBe(false);
  });

  it("finds the nearest upcoming expiry among the borrower's ongoing loans", () => {
    const a = mine(now + 5 * DAY);
    const b = mine(now + 2 * DAY);
    const c = { ...mine(now + 60), borrower: "lender-view" };
    const d = mine(now - 10);
    const e = mine(now + 30, "Repaid");
    expect(getNearestExpiringLoan([a, b, c, d, e], me, now)).toBe(b);
    expect(getNearestExpiringLoan([c, d, e], me, now)).toBeUndefined();
  });
});

describe("assertLoanDuration", () => {
  it("accepts 1 day up to the pool maximum", () => {
    expect(() => assertLoanDuration(DAY, 7 * DAY)).not.toThrow();
    expect(() => assertLoanDuration(7 * DAY, 7 * DAY)).not.toThrow();
    expect(() => assertLoanDuration(DAY - 1, 7 * DAY)).toThrowError(
      expect.objectContaining({ code: ERROR_CODES.DURATION_TOO_SHORT }),
    );
    expect(() => assertLoanDuration(7 * DAY + 1, 7 * DAY)).toThrowError(
      expect.objectContaining({ code: ERROR_CODES.DURATION_TOO_LONG }),
    );
  });
});
