import { USDC_MINT_ADDRESS, WRAPPED_SOL_MINT_ADDRESS } from "@cistern/localnet";
import { isCisternError } from "@cistern/protocol";
import { describe, expect, it } from "vitest";
import { getPoolCreationPlan } from "../src/index.ts";

const OWNER = "8dDxiYcMEehhuiQz1muWYnq1vTXDF6cvfVTBrNER3Fk1";
const BANK = "HtUmVvqXf5MaJ8Fq8c1nx5q81N4UGjY1JUhubo7Q6Yk1";
const COLLECTION = "DMRNzqaFoaoaVmVnzTv4YsCHM8rVUrymgtyv2MYeebsL";
const ALT = "JDvPohwprgrxyXxAkbSSUoGNmu5g2T2dTLm81Pz5qHFg";

describe("getPoolCreationPlan (pool form -> CreatePool params)", () => {
  it("scales percent, days and USD with the protocol's payload rules", () => {
    const plan = getPoolCreationPlan({
      owner: OWNER,
      bank: BANK,
      type: "nft-pool",
      poolCurrency: WRAPPED_SOL_MINT_ADDRESS,
      poolAmount: "12.3456789019",
      apy: "0.29",
      loanDuration: 1.5,
      maxAmountUsd: "2500.5",
      isMortgageEnabled: true,
      isAutoSellEnabled: true,
      withConditions: true,
      minAge: 2,
      minLoan: 3,
      minVolume: "1000.25",
      liquidationThreshold: 85.555,
      isPrivateLoanEnabled: true,
      lookupTable: ALT,
      collections: [
        { id: COLLECTION, ltv: 55.559, exposure: 10 },
        { id: COLLECTION, ltv: 60, exposure: 20 },
      ],
    });
    expect(plan.poolType).toBe("nft-pool");
    // 9 decimals, floored: 12.3456789019 SOL -> 12345678901 lamports.
    expect(plan.amountBaseUnits).toBe(12_345_678_901n);
    expect(plan.params).toEqual({
      flags: { autoSell: true, mortgage: true, compounding: false },
      loanAprBps: 29,
      mortgageAprBps: 29,
      maxDurationSeconds: 129_600n,
      minAmountMicroUsd: 10_000_000n,
      maxAmountMicroUsd: 2_500_500_000n,
      conditions: {
        isEnabled: true,
        whitelistEnabled: true,
        liquidationThresholdBps: 8555,
        minAgeSeconds: 172_800n,
        minLoanCount: 3n,
        minVolumeMicroUsd: 1_000_250_000n,
        whitelist: ALT,
      },
      // Duplicate ids: the last entry wins (protocol rule).
      collections: [{ id: COLLECTION, ltvBps: 6000, exposureBps: 2000 }],
    });
  });

  it("gives defi-pools no mortgage and no whitelist when private loans are off", () => {
    const plan = getPoolCreationPlan({
      owner: OWNER,
      bank: BANK,
      type: "defi-pool",
      poolCurrency: USDC_MINT_ADDRESS,
      poolAmount: 1000,
      apy: 12,
      loanDuration: 7,
      maxAmountUsd: 100,
      isMortgageEnabled: true,
      tokens: [{ id: COLLECTION, ltv: 50, exposure: 50 }],
    });
    expect(plan.amountBaseUnits).toBe(1_000_000_000n);
    expect(plan.params.mortgageAprBps).toBe(0);
    expect(plan.params.flags.mortgage).toBe(false);
    expect(plan.params.conditions).toMatchObject({
      isEnabled: false,
      whitelistEnabled: false,
      whitelist: null,
    });
  });

  it("rejects bad form values with the protocol's error", () => {
    const error = (() => {
      try {
        getPoolCreationPlan({
          owner: OWNER,
          bank: BANK,
          type: "nft-pool",
          poolCurrency: USDC_MINT_ADDRESS,
          poolAmount: 10,
          apy: 10,
          loanDuration: 0.5,
          maxAmountUsd: 100,
          collections: [{ id: COLLECTION, ltv: 50, exposure: 50 }],
        });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(isCisternError(error)).toBe(true);
    expect((error as Error).message).toMatch(/loanDuration/);
  });
});
