import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SOL_MINT, USDC_MINT } from "../currencies.ts";
import { ERROR_CODES } from "../errors.ts";
import {
  createPoolCreationPayload,
  createPoolUpdatePayload,
  dedupeCollateral,
  type PoolForm,
  percentToBpsFloor,
  toLiquidationThresholdBps,
} from "../pool-payload.ts";

const OWNER = "Owner111111111111111111111111111111111111111";
const BANK = "Bank1111111111111111111111111111111111111111";
const POOL = "Pool1111111111111111111111111111111111111111";
const WL = "WhiteList1111111111111111111111111111111111";

const nftForm: PoolForm = {
  owner: OWNER,
  pubkey: POOL,
  type: "nft-pool",
  bank: BANK,
  poolName: "Blue chips",
  poolCurrency: SOL_MINT,
  poolAmount: "12.3456789019",
  apy: 25.5,
  loanDuration: 14,
  isMortgageEnabled: true,
  isAutoSellEnabled: false,
  maxAmountUsd: 5000,
  minAmountUsd: "",
  withConditions: true,
  minAge: 30,
  minLoan: 2,
  minVolume: "150.5",
  liquidationThreshold: 80.555,
  isPrivateLoanEnabled: true,
  lookupTable: WL,
  lookupTableAddresses: ["A", "B"],
  collections: [
    { id: "colA", ltv: 50, exposure: 20 },
    { id: "colB", ltv: 40.129, exposure: "10.5" },
    { id: "colA", ltv: 60, exposure: 30 },
  ],
};

const defiForm: PoolForm = {
  owner: OWNER,
  pubkey: POOL,
  type: "defi-pool",
  bank: BANK,
  poolCurrency: USDC_MINT,
  poolAmount: 1000.1234567,
  apy: "0.29",
  loanDuration: "7",
  isAutoSellEnabled: true,
  maxAmountUsd: "100000",
  minAmountUsd: 50,
  tokens: [{ id: SOL_MINT, ltv: 70, exposure: 100 }],
};

describe("createPoolCreationPayload", () => {
  it("builds the nft-pool payload of spec section 7", () => {
    expect(createPoolCreationPayload(nftForm)).toEqual({
      bank: BANK,
      owner: OWNER,
      // 12.3456789019 SOL floored to 9 decimals
      amount: "12345678901",
      mint: SOL_MINT,
      param: {
        apr: 2550,
        limits: { minDuration: 86_400, maxDuration: 14 * 86_400, maxAmountUsd: 5000, minAmountUsd: 10 },
        collections: [
          { collection: "colB", collectionLtv: 4012, exposure: 1050 },
          { collection: "colA", collectionLtv: 6000, exposure: 3000 },
        ],
      },
    });
  });

  it("builds the defi-pool payload with currencies", () => {
    expect(createPoolCreationPayload(defiForm)).toEqual({
      bank: BANK,
      owner: OWNER,
      amount: "1000123456",
      mint: USDC_MINT,
      param: {
        apr: 29,
        limits: { minDuration: 86_400, maxDuration: 7 * 86_400, maxAmountUsd: 100_000, minAmountUsd: 50 },
        currencies: [{ currency: SOL_MINT, currencyLtv: 7000, exposure: 10_000 }],
      },
    });
  });

  it("rejects an unknown pool type with 'Unknown pool type'", () => {
    expect(() => createPoolCreationPayload({ ...nftForm, type: "mystery-pool" })).toThrowError(
      expect.objectContaining({ code: ERROR_CODES.UNKNOWN_POOL_TYPE, message: "Unknown pool type" }),
    );
    expect(() => createPoolUpdatePayload({ ...defiForm, type: "" })).toThrowError("Unknown pool type");
  });

  it("rejects bad values with a clear error", () => {
    const bad = (patch: Partial<PoolForm>) => () => createPoolCreationPayload({ ...nftForm, ...patch });
    expect(bad({ poolAmount: "" })).toThrowError("Invalid pool form field poolAmount: is required");
    expect(bad({ poolAmount: "abc" })).toThrowError(expect.objectContaining({ code: 3001 }));
    expect(bad({ apy: -1 })).toThrowError("Invalid pool form field apy: must not be negative");
    expect(bad({ loanDuration: 0.5 })).toThrowError(
      "Invalid pool form field loanDuration: must be at least 1 day",
    );
    expect(bad({ minAmountUsd: 6000 })).toThrowError(expect.objectContaining({ code: 3001 }));
    expect(bad({ poolCurrency: "unknownMint" })).toThrowError(
      expect.objectContaining({ code: ERROR_CODES.UNKNOWN_CURRENCY }),
    );
    expect(
      createPoolCreationPayload({ ...nftForm, poolCurrency: "unknownMint" }, { decimals: 2 }).amount,
    ).toBe("1234");
  });
});

describe("createPoolUpdatePayload", () => {
  it("builds the nft-pool update payload with conditions, whitelist and flags", () => {
    expect(createPoolUpdatePayload(nftForm)).toEqual({
      pool: POOL,
      owner: OWNER,
      disableAutoSell: true,
      enableMortgage: true,
      param: {
        apr: 2550,
        loanApr: 2550,
        mortgageApr: 2550,
        limits: { minDuration: 86_400, maxDuration: 1_209_600, maxAmountUsd: 5000, minAmountUsd: 10 },
        conditions: {
          minAge: String(30 * 86_400),
          minLoan: "2",
          minVolume: "150.5",
          liquidationThreshold: 8055,
          isEnabled: 1,
          isWhitelistEnabled: 1,
          whitelist: WL,
          whitelistAddresses: ["A", "B"],
        },
        liquidation: { isAutoSellEnabled: false, loanLiquidation: 1000, mortgageLiquidation: 2000 },
        collections: [
          { collection: "colB", collectionLtv: 4012, exposure: 1050 },
          { collection: "colA", collectionLtv: 6000, exposure: 3000 },
        ],
      },
    });
  });

  it("builds the defi-pool update payload without mortgage fields", () => {
    const payload = createPoolUpdatePayload(defiForm);
    expect(payload).toEqual({
      pool: POOL,
      owner: OWNER,
      enableAutoSell: true,
      param: {
        apr: 29,
        loanApr: 29,
        limits: { minDuration: 86_400, maxDuration: 604_800, maxAmountUsd: 100_000, minAmountUsd: 50 },
        conditions: {
          minAge: "0",
          minLoan: "0",
          minVolume: "0",
          liquidationThreshold: 0,
          isEnabled: 0,
          isWhitelistEnabled: 0,
          whitelist: "11111111111111111111111111111111",
          whitelistAddresses: [],
        },
        liquidation: { isAutoSellEnabled: true, loanLiquidation: 1000, mortgageLiquidation: 2000 },
        currencies: [{ currency: SOL_MINT, currencyLtv: 7000, exposure: 10_000 }],
      },
    });
    expect("enableMortgage" in payload || "disableMortgage" in payload).toBe(false);
  });

  it("treats the all-ones whitelist as disabled, and mortgage off as disableMortgage", () => {
    const payload = createPoolUpdatePayload({
      ...nftForm,
      isMortgageEnabled: false,
      lookupTable: "11111111111111111111111111111111",
    });
    expect(payload.disableMortgage).toBe(true);
    expect(payload.enableMortgage).toBeUndefined();
    expect(payload.param.conditions.isWhitelistEnabled).toBe(0);
    expect(payload.param.conditions.whitelist).toBe("11111111111111111111111111111111");
    expect(payload.param.conditions.whitelistAddresses).toEqual([]);
    const privateOff = createPoolUpdatePayload({ ...nftForm, isPrivateLoanEnabled: false });
    expect(privateOff.param.conditions.isWhitelistEnabled).toBe(0);
  });

  it("needs the pool address", () => {
    expect(() => createPoolUpdatePayload({ ...nftForm, pubkey: undefined })).toThrowError(
      expect.objectContaining({ code: ERROR_CODES.INVALID_POOL_FORM_FIELD }),
    );
  });
});

describe("scaling rules", () => {
  it("percent x100 floored with decimal maths", () => {
    expect(percentToBpsFloor(0.29)).toBe(29);
    expect(percentToBpsFloor(1.005)).toBe(100);
    expect(percentToBpsFloor(0.57)).toBe(57); // 0.57 * 100 = 56.99999999999999 in floats
    expect(percentToBpsFloor("33.339")).toBe(3333);
    expect(percentToBpsFloor(100)).toBe(10_000);
  });

  it("liquidation threshold: x100 floored, capped at 10000, 0 if not positive", () => {
    expect(toLiquidationThresholdBps(80.555)).toBe(8055);
    expect(toLiquidationThresholdBps(100)).toBe(10_000);
    expect(toLiquidationThresholdBps(150)).toBe(10_000);
    expect(toLiquidationThresholdBps(0)).toBe(0);
    expect(toLiquidationThresholdBps(-5)).toBe(0);
    expect(toLiquidationThresholdBps("-5")).toBe(0);
    expect(toLiquidationThresholdBps("")).toBe(0);
    expect(toLiquidationThresholdBps(undefined)).toBe(0);
    expect(() => toLiquidationThresholdBps("x")).toThrowError(expect.objectContaining({ code: 3001 }));
  });

  it("liquidation threshold stays within [0, 10000] for any number", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const bps = toLiquidationThresholdBps(x);
        expect(bps).toBeGreaterThanOrEqual(0);
        expect(bps).toBeLessThanOrEqual(10_000);
        expect(Number.isInteger(bps)).toBe(true);
      }),
    );
  });

  it("x100 floored matches the exact decimal value", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (n) => {
        // n / 1000 has at most 3 decimals; floor(n / 1000 * 100) = floor(n / 10)
        expect(percentToBpsFloor(n / 1000)).toBe(Math.floor(n / 10));
      }),
    );
  });

  it("dedupes collections by id keeping the last", () => {
    expect(
      dedupeCollateral([
        { id: "a", ltv: 1, exposure: 1 },
        { id: "b", ltv: 2, exposure: 2 },
        { id: "a", ltv: 3, exposure: 3 },
        { id: "b", ltv: 4, exposure: 4 },
        { id: "c", ltv: 5, exposure: 5 },
      ]),
    ).toEqual([
      { id: "a", ltv: 3, exposure: 3 },
      { id: "b", ltv: 4, exposure: 4 },
      { id: "c", ltv: 5, exposure: 5 },
    ]);
  });
});
