import { describe, expect, it } from "vitest";
import {
  computeRentExemptLamports,
  computeTransactionCosts,
  computeTransactionFee,
  parseTransactionCosts,
  transactionCostsToJson,
} from "../network-costs.ts";

describe("what one transaction costs the wallet (#44)", () => {
  it("charges 5000 lamports a signature and the priority fee rounded up, as the runtime does", () => {
    // the mortgage of #44: two signatures, 0.00001026 SOL
    expect(
      computeTransactionFee({
        signatures: 2,
        computeUnitLimit: 260_000,
        microLamportsPerComputeUnit: 1_000n,
      }),
    ).toEqual({ baseFeeLamports: 10_000n, priorityFeeLamports: 260n });
    // 1 micro-lamport over 1 unit is still a lamport
    expect(
      computeTransactionFee({ signatures: 1, computeUnitLimit: 1, microLamportsPerComputeUnit: 1n }),
    ).toEqual({
      baseFeeLamports: 5_000n,
      priorityFeeLamports: 1n,
    });
  });

  it("sums fee, tip and the rent of what the transaction opens, less the rent that comes back", () => {
    const loan = { account: "L", label: "the loan", bytes: 424, lamports: computeRentExemptLamports(424n) };
    const nftAccount = { account: "A", label: "the loan's NFT account", bytes: 165, lamports: 2_039_280n };
    const ownerAccount = {
      account: "O",
      label: "the pool owner's NFT account",
      bytes: 165,
      lamports: 2_039_280n,
    };
    const costs = computeTransactionCosts({
      baseFeeLamports: 10_000n,
      priorityFeeLamports: 260n,
      rent: [loan, nftAccount, ownerAccount],
      rentBack: [],
    });
    // #44: 0.72 SOL down payment, 0.72793074 SOL left the wallet
    expect(loan.lamports).toBe(3_841_920n);
    expect(costs.totalLamports).toBe(7_930_740n);
    expect(720_000_000n + costs.totalLamports).toBe(727_930_740n);
    const back = computeTransactionCosts({
      baseFeeLamports: 5_000n,
      priorityFeeLamports: 0n,
      tipLamports: 1_000n,
      rent: [],
      rentBack: [nftAccount],
    });
    expect(back.totalLamports).toBe(6_000n - 2_039_280n);
  });

  it("reads the API's answer back, summing the total again; refuses a malformed one", () => {
    const costs = computeTransactionCosts({
      baseFeeLamports: 5_000n,
      priorityFeeLamports: 7n,
      rent: [{ account: "A", label: "the bidder's NFT account", bytes: 165, lamports: 2_039_280n }],
      rentBack: [{ account: "R", label: "a token record", bytes: 0, lamports: 1_447_680n }],
    });
    const json = transactionCostsToJson(costs);
    expect(json.totalLamports).toBe("596607");
    expect(parseTransactionCosts(json)).toEqual(costs);
    expect(parseTransactionCosts({ ...json, totalLamports: "1" })).toEqual(costs);
    expect(parseTransactionCosts({ ...json, baseFeeLamports: -1 })).toBeNull();
    expect(
      parseTransactionCosts({ ...json, rent: [{ account: "A", label: "x", lamports: "1.5" }] }),
    ).toBeNull();
    expect(parseTransactionCosts(null)).toBeNull();
  });
});
