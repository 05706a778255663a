import { describe, expect, it } from "vitest";
import { parseUnits } from "../amounts.ts";
import {
  checkPriorityFeeAmount,
  DEFAULT_PRIORITY_FEE_SETTINGS,
  MAX_PRIORITY_FEE_LAMPORTS,
  MAX_PRIORITY_FEE_SOL,
} from "../priority-fee.ts";

describe("priority fee cap", () => {
  it("is 0.01 SOL = 10,000,000 lamports, the API builder's default TX_MAX_PRIORITY_FEE_LAMPORTS", () => {
    expect(MAX_PRIORITY_FEE_SOL).toBe("0.01");
    expect(MAX_PRIORITY_FEE_LAMPORTS).toBe(10_000_000n);
    expect(parseUnits(MAX_PRIORITY_FEE_SOL, 9)).toBe(MAX_PRIORITY_FEE_LAMPORTS);
  });

  it("accepts positive amounts up to and including the cap, in lamports", () => {
    expect(checkPriorityFeeAmount(DEFAULT_PRIORITY_FEE_SETTINGS.amountSol)).toEqual({
      ok: true,
      lamports: 500_000n,
    });
    expect(checkPriorityFeeAmount("0.000000001")).toEqual({ ok: true, lamports: 1n });
    expect(checkPriorityFeeAmount("0.01")).toEqual({ ok: true, lamports: 10_000_000n });
    expect(checkPriorityFeeAmount("0.010000000")).toEqual({ ok: true, lamports: 10_000_000n });
  });

  it("says why an amount is refused", () => {
    expect(checkPriorityFeeAmount("0.010000001")).toEqual({ ok: false, problem: "aboveMax" });
    expect(checkPriorityFeeAmount("1")).toEqual({ ok: false, problem: "aboveMax" });
    expect(checkPriorityFeeAmount("99999999999999999999999")).toEqual({ ok: false, problem: "aboveMax" });
    expect(checkPriorityFeeAmount("0")).toEqual({ ok: false, problem: "zero" });
    expect(checkPriorityFeeAmount("0.000000000")).toEqual({ ok: false, problem: "zero" });
    expect(checkPriorityFeeAmount("0.0000000001")).toEqual({ ok: false, problem: "tooManyDecimals" });
    for (const text of ["", "abc", "-0.001", " 0.001", "1e-3", "0,001", ".5"]) {
      expect(checkPriorityFeeAmount(text)).toEqual({ ok: false, problem: "format" });
    }
  });

  it("takes another cap when the API is configured with one", () => {
    expect(checkPriorityFeeAmount("0.02", 20_000_000n)).toEqual({ ok: true, lamports: 20_000_000n });
    expect(checkPriorityFeeAmount("0.002", 1_000_000n)).toEqual({ ok: false, problem: "aboveMax" });
  });
});
