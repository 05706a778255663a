import { describe, expect, it } from "vitest";
import { SOL_MINT, USDC_MINT } from "../currencies.ts";
import { computeBorrowedLiquidity, parseBank } from "../parse-bank.ts";
import { parsePool } from "../parse-pool.ts";
import { computeUtilisationPercent, getPoolFormFromPool } from "../pool-form.ts";
import { createPoolUpdatePayload } from "../pool-payload.ts";

const nftPoolView = {
  owner: "Owner1",
  pubkey: "Pool1",
  type: "nft-pool",
  bank: "Bank1",
  metadata: { name: "Blue chips", thumbnail: "https://img/x.png" },
  currency: SOL_MINT,
  totalLiquidity: "10000000000",
  availableLiquidity: "6000000000",
  delegatedLiquidity: "1000000000",
  loanCurve: { apr: 2550 },
  mortgageCurve: { apr: 3000 },
  limits: { minDuration: 86400, maxDuration: 1209600, minAmountUsd: 10, maxAmountUsd: 5000 },
  liquidation: { isAutoSellEnabled: true },
  isMortgageEnabled: true,
  isCompoundingEnabled: false,
  conditions: {
    isEnabled: 1,
    minAge: 2592000,
    minLoan: 2,
    minVolume: "150.5",
    liquidationThreshold: 8055,
    whitelist: "11111111111111111111111111111111",
  },
  collections: [{ collection: "ColA", collectionLtv: 6000, exposure: 3000, borrowedAmount: "2000000000" }],
  nftLocked: 3,
  totalMortgages: 1,
  createdAt: "2024-01-02T03:04:05.000Z",
};

describe("parsePool", () => {
  it("parses an nft-pool server view", () => {
    const pool = parsePool(nftPoolView);
    expect(pool.type).toBe("nft-pool");
    if (pool.type !== "nft-pool") throw new Error("type");
    expect(pool).toMatchObject({
      bank: "Bank1",
      metadata: { name: "Blue chips", thumbnail: "https://img/x.png", banks: ["Bank1"] },
      currency: SOL_MINT,
      totalLiquidity: 10_000_000_000n,
      availableLiquidity: 6_000_000_000n,
      delegatedLiquidity: 1_000_000_000n,
      borrowedLiquidity: 3_000_000_000n,
      loanCurve: { apr: 2550 },
      mortgageCurve: { apr: 3000 },
      nftLocked: 3,
      currentLoan: 3,
      totalLoans: 3,
      totalMortgages: 1,
      isMortgageEnabled: true,
      isAutoSellEnabled: true,
      conditions: {
        isEnabled: true,
        minAge: 2_592_000,
        minLoan: 2,
        minVolume: 150.5,
        liquidationThreshold: 8055,
        whitelist: "11111111111111111111111111111111",
      },
      collections: [
        { collection: "ColA", collectionLtv: 6000, exposure: 3000, borrowedAmount: 2_000_000_000n },
      ],
      createdAt: 1_704_164_645,
    });
  });

  it("parses a defi-pool with currencies as collections and a banks list", () => {
    const pool = parsePool({
      owner: "Owner2",
      pubkey: "Pool2",
      type: "defi-pool",
      metadata: { name: "Stable", thumbnail: "", banks: ["Bank2", "Bank9"] },
      bank: { pubkey: "Bank2", mint: USDC_MINT },
      totalLiquidity: 5_000_000,
      borrowedLiquidity: 1_000_000,
      loanCurve: { apr: 1200 },
      currencies: [{ currency: SOL_MINT, currencyLtv: 7000, exposure: 10000, borrowedAmount: 1_000_000 }],
      currentLoan: 2,
      currenciesUpdatedAt: 1000,
    });
    expect(pool).toMatchObject({
      type: "defi-pool",
      bank: "Bank2",
      metadata: { banks: ["Bank2", "Bank9"] },
      currency: USDC_MINT,
      availableLiquidity: 4_000_000n,
      borrowedLiquidity: 1_000_000n,
      collections: [
        { collection: SOL_MINT, collectionLtv: 7000, exposure: 10_000, borrowedAmount: 1_000_000n },
      ],
      currentLoan: 2,
      currenciesUpdatedAt: 1000,
    });
  });

  it("says whether the pool awaits its upgrade to the program's account layout (absent: it does not)", () => {
    expect(parsePool(nftPoolView).needsMigration).toBe(false);
    expect(parsePool({ ...nftPoolView, layoutVersion: 1, needsMigration: true }).needsMigration).toBe(true);
    expect(() => parsePool({ ...nftPoolView, needsMigration: "soon" })).toThrow(/needsMigration/);
  });

  it("rejects unknown pool types and missing banks", () => {
    expect(() => parsePool({ ...nftPoolView, type: "amm" })).toThrowError("Unknown pool type");
    expect(() => parsePool({ ...nftPoolView, bank: undefined })).toThrowError(
      expect.objectContaining({ code: 9000 }),
    );
  });

  it("round-trips through the form view into an update payload", () => {
    const form = getPoolFormFromPool(parsePool(nftPoolView));
    expect(form).toMatchObject({
      poolName: "Blue chips",
      poolAmount: "10",
      borrowedAmount: "3",
      apy: 25.5,
      loanDuration: 14,
      utilisationRate: 30,
      minAge: 30,
      liquidationThreshold: 80.55,
      isPrivateLoanEnabled: false,
      collections: [{ id: "ColA", ltv: 60, exposure: 30 }],
      tokens: [],
    });
    const payload = createPoolUpdatePayload(form);
    expect(payload.param.apr).toBe(2550);
    expect(payload.param.limits.maxDuration).toBe(1_209_600);
    expect(payload.param.conditions.liquidationThreshold).toBe(8055);
    expect(payload.param.conditions.minAge).toBe("2592000");
    expect(payload.param.collections).toEqual([{ collection: "ColA", collectionLtv: 6000, exposure: 3000 }]);
    expect(payload.enableAutoSell).toBe(true);
    expect(payload.enableMortgage).toBe(true);
  });

  it("computes utilisation in percent", () => {
    expect(computeUtilisationPercent(1n, 3n)).toBe(33.33);
    expect(computeUtilisationPercent(0n, 0n)).toBe(0);
  });
});

describe("parseBank", () => {
  it("derives borrowed liquidity = total - available - delegated", () => {
    const bank = parseBank({
      pubkey: "Bank1",
      owner: "Owner1",
      mint: SOL_MINT,
      vault: "Vault1",
      authority: "Auth1",
      bankType: { lender: {} },
      totalLiquidity: "10000",
      availableLiquidity: 6000,
      delegatedLiquidity: "1500",
      cooldownLiquidity: 0,
      cooldownPeriod: 3600,
      delegators: ["D1"],
      createdAt: 1,
      frozenUntil: "5",
    });
    expect(bank).toMatchObject({
      bankType: "lender",
      totalLiquidity: 10_000n,
      availableLiquidity: 6000n,
      delegatedLiquidity: 1500n,
      borrowedLiquidity: 2500n,
      cooldownPeriod: 3600,
      delegators: ["D1"],
      frozenUntil: 5,
      repaidAt: 0,
    });
  });

  it("never reports negative borrowed liquidity", () => {
    expect(computeBorrowedLiquidity(10n, 8n, 5n)).toBe(0n);
    expect(computeBorrowedLiquidity(10n, 3n, 2n)).toBe(5n);
  });
});
