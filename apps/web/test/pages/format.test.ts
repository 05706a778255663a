import { describe, expect, it } from "vitest";
import { formatAmount, formatMoney } from "../../src/kit/format.ts";
import { SOL_MINT, USDC_MINT } from "./fixtures.ts";

describe("one amount format for every screen (the spec's formatNumber2, exact in base units)", () => {
  it("shows 0 decimals from 10,000, up to 8 at 0.1 and below, otherwise up to 2, grouped by thousands", () => {
    expect(formatMoney(100_074_201n, SOL_MINT)).toBe("0.1 SOL"); // 0.100074201 SOL
    expect(formatMoney(194_387_000n, SOL_MINT)).toBe("0.19 SOL");
    expect(formatMoney(12_345_678_900_000n, SOL_MINT)).toBe("12,345 SOL");
    expect(formatMoney(1_234_560_000n, USDC_MINT)).toBe("1,234.56 USDC");
    expect(formatMoney(5_000n, SOL_MINT)).toBe("0.000005 SOL");
    expect(formatAmount(1_000_000_000_000_000n, 5)).toBe("10B"); // 10 billion BONK, not 1000000000...
    expect(formatMoney(2_345_678_000_000n, USDC_MINT)).toBe("2.34M USDC");
    expect(formatMoney(2_345_678_000_000n, USDC_MINT, "up")).toBe("2.35M USDC");
    expect(formatAmount(999_999n, 0)).toBe("999,999");
    expect(formatAmount(0n, 9)).toBe("0");
  });

  it("rounds what the user must pay up (to 4 decimals in the middle band), and everything else down", () => {
    expect(formatMoney(150_759_100n, USDC_MINT, "up")).toBe("150.7591 USDC");
    expect(formatMoney(150_759_101n, USDC_MINT, "up")).toBe("150.7592 USDC");
    expect(formatMoney(150_759_100n, USDC_MINT)).toBe("150.75 USDC");
    expect(formatMoney(100_074_201n, SOL_MINT, "up")).toBe("0.1001 SOL");
    expect(formatMoney(100_000_000n, SOL_MINT, "up")).toBe("0.1 SOL");
  });
});
