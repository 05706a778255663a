import { describe, expect, it } from "vitest";
import {
  getCheapestMarginOffer,
  getMarginDurations,
  getPrincipalAtLeverage,
  getTopLeverage,
  getTopLeverageOf,
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

describe("#36 margin pool choice", () => {
  const at = (pool: string, aprBps: number, leverage: number): MarginOffer => ({
    ...offer,
    pool,
    aprBps,
    leverage,
    principal: BigInt(Math.round((leverage - 1) * 1e9)),
  });
  const wide = at("wide", 4000, 2.0); // the most leverage, dear
  const cheap = at("cheap", 1000, 1.5); // cheaper, up to 1.5x
  const same = at("same", 2500, 2.0); // the same leverage as `wide`, cheaper

  it("defaults to the cheapest pool that lends the leverage asked, not the one with the most leverage", () => {
    const offers = [wide, cheap, same];
    expect(getTopLeverageOf(offers)).toBe(200);
    expect(getCheapestMarginOffer(offers, 200)?.pool).toBe("same");
    expect(getCheapestMarginOffer(offers, 150)?.pool).toBe("cheap");
    expect(getCheapestMarginOffer(offers, 120)?.pool).toBe("cheap");
    // asked more than any lends: the one lending the most
    expect(getCheapestMarginOffer([cheap, wide], 300)?.pool).toBe("wide");
    expect(getCheapestMarginOffer([], 150)).toBeUndefined();
  });
});
