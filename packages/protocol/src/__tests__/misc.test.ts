import { describe, expect, it } from "vitest";
import { parseLiabilitiesSeries, sortAssetsByFloorPrice } from "../assets.ts";
import { SOL_MINT, USDC_MINT } from "../currencies.ts";
import { ERROR_CODES } from "../errors.ts";
import { createHttpError, getHttpErrorMessage } from "../http-errors.ts";
import { computeLiquiditySummary, median } from "../liquidity-summary.ts";
import { getLoanInterestSummary } from "../loan-interest.ts";
import { parseBank } from "../parse-bank.ts";
import { parsePool } from "../parse-pool.ts";
import { computeAveragePrioritizationFee, getPriorityFeeOptions } from "../priority-fee.ts";

describe("HTTP errors", () => {
  it("maps 400/404/422 to the server's message", () => {
    const e400 = createHttpError(400, { message: "Bad amount" });
    expect(e400.code).toBe(ERROR_CODES.HTTP_BAD_REQUEST);
    expect(e400.message).toBe("Bad amount");
    expect(createHttpError(422, { message: ["amount is required", "owner is invalid"] }).message).toBe(
      "amount is required, owner is invalid",
    );
    expect(createHttpError(404, { error: "Not Found" }).message).toBe("Not Found");
    expect(createHttpError(404, {}).code).toBe(ERROR_CODES.HTTP_NOT_FOUND);
    expect(createHttpError(400, null).message).toBe("Unknown error 400");
    expect(getHttpErrorMessage(422, "")).toBe("Unknown error 422");
    expect(createHttpError(500, { message: "secret" }).message).toBe("Request failed with status 500");
  });
});

describe("priority fee", () => {
  it("caps at amount x 1e9 lamports and tips the same in jito mode", () => {
    expect(getPriorityFeeOptions()).toEqual({
      level: "fast",
      type: "maxCap",
      broadcastMode: "priorityFees",
      maxCapLamports: 500_000n,
      jitoTipLamports: 0n,
    });
    const jito = getPriorityFeeOptions({
      level: "ultra",
      amountSol: "0.001",
      type: "maxCap",
      broadcastMode: "jito",
    });
    expect(jito.maxCapLamports).toBe(1_000_000n);
    expect(jito.jitoTipLamports).toBe(1_000_000n);
  });

  it("averages recent fees rounding up", () => {
    expect(
      computeAveragePrioritizationFee([
        { slot: 1, prioritizationFee: 0 },
        { slot: 2, prioritizationFee: 10 },
        { slot: 3, prioritizationFee: "11" },
      ]),
    ).toBe(7n);
    expect(computeAveragePrioritizationFee([])).toBe(0n);
  });
});

describe("loan interest summary", () => {
  it("formats interest with the currency decimals", () => {
    expect(
      getLoanInterestSummary({ amount: 1_000_000_000n, interest: 19_178_083n }, { decimals: 9 }),
    ).toEqual({
      interest: "0.019178083",
      totalRepayment: "1.019178083",
      interestNetOfFees: "0.018219178",
      owedInterestNow: undefined,
      interestBaseUnits: 19_178_083n,
      totalRepaymentBaseUnits: 1_019_178_083n,
    });
    const withOwed = getLoanInterestSummary(
      { amount: 1_000_000_000n, interest: 19_178_083n, aprBps: 10_000, duration: 604_800, createdAt: 0 },
      { decimals: 9 },
      0,
    );
    expect(withOwed.owedInterestNow).toBe(5_753_425n);
  });

  it("needs amount, interest and decimals", () => {
    const missing = expect.objectContaining({
      code: ERROR_CODES.MISSING_LOAN_OR_CURRENCY_DATA,
      message: "Missing required loan or currency data",
    });
    expect(() => getLoanInterestSummary({ interest: 1n }, { decimals: 9 })).toThrowError(missing);
    expect(() => getLoanInterestSummary({ amount: 1n }, { decimals: 9 })).toThrowError(missing);
    expect(() => getLoanInterestSummary({ amount: 1n, interest: 1n }, {})).toThrowError(missing);
    expect(() => getLoanInterestSummary(undefined, undefined)).toThrowError(missing);
  });
});

describe("assets and liabilities", () => {
  it("sorts by floor price descending, NaN first, infinite last", () => {
    const sorted = sortAssetsByFloorPrice([
      { id: "a", floorPrice: 2 },
      { id: "b", floorPrice: Number.POSITIVE_INFINITY },
      { id: "c", floorPrice: Number.NaN },
      { id: "d", floorPrice: 10 },
      { id: "e" },
      { id: "f", floorPrice: 5 },
    ]);
    expect(sorted.map((a) => a.id)).toEqual(["c", "e", "d", "f", "a", "b"]);
  });

  it("divides liabilities and assets by 10000", () => {
    expect(parseLiabilitiesSeries([{ date: "2024-01-01", liabilities: 250_000, assets: "1000000" }])).toEqual(
      [{ date: "2024-01-01", liabilities: 25, assets: 100 }],
    );
    expect(parseLiabilitiesSeries(null)).toEqual([]);
  });
});

describe("liquidity summary", () => {
  const pool = (pubkey: string, bank: string, apr: number, collections: string[], currency = SOL_MINT) =>
    parsePool({
      pubkey,
      owner: "O",
      type: "nft-pool",
      bank,
      currency,
      totalLiquidity: 0,
      availableLiquidity: 0,
      loanCurve: { apr },
      collections: collections.map((c) => ({ collection: c, collectionLtv: 5000, exposure: 5000 })),
    });
  const bank = (pubkey: string, total: number, available: number) =>
    parseBank({ pubkey, owner: "O", mint: SOL_MINT, totalLiquidity: total, availableLiquidity: available });

  it("summarises pools of one currency, counting shared banks once", () => {
    const pools = [
      pool("P1", "B1", 1000, ["ColA"]),
      pool("P2", "B1", 3000, ["ColA", "ColB"]),
      pool("P3", "B2", 2000, ["ColC"]),
      pool("P4", "B3", 9000, ["ColD"], USDC_MINT),
    ];
    const banks = [bank("B1", 100_000_000_000, 60_000_000_000), bank("B2", 300_000_000_000, 200_000_000_000)];
    const summary = computeLiquiditySummary(pools, banks, {
      currency: SOL_MINT,
      decimals: 9,
      priceUsd: 150,
      largestBankCount: 1,
    });
    expect(summary).toMatchObject({
      totalPools: 3,
      averageApr: 2000,
      medianApr: 2000,
      availableLiquidity: 260_000_000_000n,
      availableLiquidityUsd: 39_000,
      totalBorrowed: 140_000_000_000n,
      utilizationRatio: 0.35,
      mints: ["ColA", "ColB", "ColC"],
      pairsSupported: 3,
    });
    expect(summary.largestPools.map((p) => p.pubkey)).toEqual(["P3"]);
  });

  it("is empty for a currency without pools", () => {
    const summary = computeLiquiditySummary([], [], { currency: USDC_MINT, decimals: 6, priceUsd: 1 });
    expect(summary).toMatchObject({
      totalPools: 0,
      averageApr: 0,
      medianApr: 0,
      availableLiquidity: 0n,
      utilizationRatio: 0,
      largestPools: [],
    });
  });

  it("median of even and odd lists", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });
});
