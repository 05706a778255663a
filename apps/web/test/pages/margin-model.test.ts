import { describe, expect, it } from "vitest";
import {
  getMarginDurations,
  getPrincipalAtLeverage,
  getTopLeverage,
  type MarginOffer,
  parseMarginOffers,
} from "../../src/features/margin/margin-model.ts";

const offer: MarginOffer = parseMarginOffers({
  quotes: [],
  margins: [
    {
      pool: "P",
      currency: "C",
      apr: 2000,
      leverage: 1.93,
      maxLeverage: 2,
      downPayment: "1000000000",
      principal: "930000123",
      expectedCollateral: "500",
      minimumCollateral: "495",
      interest: "1",
      priceImpactPct: "0.01",
      slippageBps: 100,
    },
  ],
})[0]!;

describe("margin model", () => {
  it("parses the multi-quote's margins into base units", () => {
    expect(offer).toMatchObject({ aprBps: 2000, principal: 930_000_123n, minimumCollateral: 495n });
  });

  it("tops the slider at the offer's leverage rounded down to a step, where it lends exactly the offer", () => {
    expect(getTopLeverage(offer)).toBe(190);
    expect(getPrincipalAtLeverage(offer, 190)).toBe(930_000_123n);
    expect(getPrincipalAtLeverage(offer, 150)).toBe(500_000_000n);
    expect(getPrincipalAtLeverage(offer, 105)).toBe(50_000_000n);
  });

  it("never lends more than the offer, and offers durations within the pools' longest", () => {
    expect(getPrincipalAtLeverage({ ...offer, principal: 10n }, 150)).toBe(10n);
    expect(getMarginDurations(7 * 86_400)).toEqual([1, 3, 7]);
    expect(getMarginDurations(3_600)).toEqual([]);
  });
});
