import { describe, expect, it } from "vitest";
import { parseAmountInput } from "../../src/kit/format.ts";

describe("amount inputs (every form that takes an amount)", () => {
  it("reads base units, and says in one sentence what is wrong", () => {
    expect(parseAmountInput(" 1.5 ", 6)).toEqual({ amount: 1_500_000n, error: "" });
    expect(parseAmountInput("", 6)).toEqual({ amount: null, error: "" });
    expect(parseAmountInput("-1", 6)).toEqual({ amount: null, error: "The amount must be positive." });
    expect(parseAmountInput("1.1234567", 6)).toEqual({
      amount: null,
      error: "Enter a number with at most 6 decimals.",
    });
    expect(parseAmountInput("abc", 9).error).toBe("Enter a number with at most 9 decimals.");
    expect(parseAmountInput("0.000", 9)).toEqual({
      amount: null,
      error: "The amount must be greater than zero.",
    });
  });
});
