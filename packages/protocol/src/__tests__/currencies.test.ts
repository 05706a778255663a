import { describe, expect, it } from "vitest";
import { CURRENCIES, getCurrencyByMint, listCurrencies, requireCurrencyByMint } from "../currencies.ts";
import { ERROR_CODES } from "../errors.ts";

describe("currency table", () => {
  it("has SOL with the spec's numbers", () => {
    const sol = getCurrencyByMint("So11111111111111111111111111111111111111112");
    expect(sol).toMatchObject({
      symbol: "SOL",
      decimals: 9,
      minAmount: "10",
      minDefiAmount: "0.01",
      simulationAmount: "60",
      minAmountBaseUnits: 10_000_000_000n,
      minDefiAmountBaseUnits: 10_000_000n,
      simulationAmountBaseUnits: 60_000_000_000n,
    });
  });

  it("has USDC with the spec's numbers", () => {
    const usdc = getCurrencyByMint("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    expect(usdc).toMatchObject({
      symbol: "USDC",
      decimals: 6,
      minAmount: "20",
      minDefiAmount: "0.1",
      simulationAmount: "1000",
      minAmountBaseUnits: 20_000_000n,
      minDefiAmountBaseUnits: 100_000n,
      simulationAmountBaseUnits: 1_000_000_000n,
    });
  });

  it("holds exactly those two, keyed by mint", () => {
    expect(Object.keys(CURRENCIES)).toEqual([
      "So11111111111111111111111111111111111111112",
      "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    ]);
    expect(listCurrencies().map((c) => c.symbol)).toEqual(["SOL", "USDC"]);
    for (const [mint, currency] of Object.entries(CURRENCIES)) expect(currency.mint).toBe(mint);
  });

  it("returns undefined or throws 1005 for unknown mints", () => {
    expect(getCurrencyByMint("toString")).toBeUndefined();
    expect(getCurrencyByMint("nope")).toBeUndefined();
    expect(() => requireCurrencyByMint("nope")).toThrowError(
      expect.objectContaining({ code: ERROR_CODES.UNKNOWN_CURRENCY, message: "Unknown currency nope" }),
    );
  });
});
