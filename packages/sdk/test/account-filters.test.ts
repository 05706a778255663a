import { getBase58Encoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  encodeBankAccount,
  encodeLoanAccount,
  encodePoolAccount,
  getBankFilters,
  getLoanFilters,
  getPoolFilters,
  type LoanAccount,
  type ProgramAccountsFilter,
} from "../src/index.ts";
import { testAddress } from "./helpers.ts";

/** What an RPC node does with the filters: dataSize and base58 memcmp. */
function matches(data: Uint8Array, filters: ProgramAccountsFilter[]): boolean {
  return filters.every((filter) => {
    if ("dataSize" in filter) return BigInt(data.length) === filter.dataSize;
    const bytes = getBase58Encoder().encode(filter.memcmp.bytes);
    const offset = Number(filter.memcmp.offset);
    return bytes.every((b, i) => data[offset + i] === b);
  });
}

const loan = (over: Partial<LoanAccount>): Uint8Array =>
  Uint8Array.from(
    encodeLoanAccount({
      bump: 1,
      escrowBump: 1,
      status: "Ongoing",
      kind: "ClassicLoan",
      isDefi: false,
      borrower: testAddress(1),
      pool: testAddress(2),
      bank: testAddress(3),
      currencyMint: testAddress(4),
      collateralMint: testAddress(5),
      collection: testAddress(6),
      escrow: testAddress(7),
      nonce: 0n,
      collateralAmount: 1n,
      principal: 1n,
      interest: 1n,
      aprBps: 1,
      durationSeconds: 86_400n,
      createdAt: 0n,
      expiredAt: 86_400n,
      repaidAt: 0n,
      liquidatedAt: 0n,
      soldAt: 0n,
      repaidAmount: 0n,
      protocolFeePaid: 0n,
      collateralValue: 1n,
      attestationSlot: 0n,
      extendedTo: null,
      closedBy: "Open",
      previousLoan: null,
      ...over,
    }),
  );

describe("getProgramAccounts filters", () => {
  it("select loans by type, borrower, pool, bank and status at the LAYOUT.md offsets", () => {
    const mine = loan({});
    const otherBorrower = loan({ borrower: testAddress(9) });
    const repaid = loan({ status: "Repaid" });
    expect(matches(mine, getLoanFilters())).toBe(true);
    expect(
      matches(mine, getLoanFilters({ borrower: testAddress(1), pool: testAddress(2), bank: testAddress(3) })),
    ).toBe(true);
    expect(matches(otherBorrower, getLoanFilters({ borrower: testAddress(1) }))).toBe(false);
    expect(matches(mine, getLoanFilters({ status: "Ongoing" }))).toBe(true);
    expect(matches(repaid, getLoanFilters({ status: "Ongoing" }))).toBe(false);
    expect(matches(repaid, getLoanFilters({ status: "Repaid" }))).toBe(true);
    expect(matches(mine, getLoanFilters({ pool: testAddress(3) }))).toBe(false);
  });

  it("tell account types apart", () => {
    const pool = Uint8Array.from(
      encodePoolAccount({
        bump: 1,
        poolType: "nft-pool",
        status: "Open",
        flags: { autoSell: false, mortgage: false, compounding: false },
        owner: testAddress(1),
        bank: testAddress(3),
        currencyMint: testAddress(4),
        seed: 0n,
        loanAprBps: 1,
        mortgageAprBps: 0,
        minDurationSeconds: 86_400n,
        maxDurationSeconds: 86_400n,
        minAmountMicroUsd: 0n,
        maxAmountMicroUsd: 1n,
        conditions: {
          isEnabled: false,
          whitelistEnabled: false,
          liquidationThresholdBps: 0,
          minAgeSeconds: 0n,
          minLoanCount: 0n,
          minVolumeMicroUsd: 0n,
          whitelist: null,
        },
        totalLoans: 0n,
        totalLiquidations: 0n,
        totalInterest: 0n,
        currentLoans: 0n,
        totalMortgages: 0n,
        createdAt: 0n,
        updatedAt: 0n,
        lastLoanAt: 0n,
        collectionsUpdatedAt: 0n,
        lastMortgageAt: 0n,
        borrowedAmount: 0n,
        migratedAt: 0n,
        collections: [
          { id: testAddress(6), ltvBps: 1, exposureBps: 1, borrowedAmount: 0n, ongoingLoans: 0n },
        ],
      }),
    );
    const bank = Uint8Array.from(
      encodeBankAccount({
        bump: 1,
        vaultBump: 1,
        bankType: "Standard",
        decimals: 6,
        owner: testAddress(1),
        mint: testAddress(4),
        vault: testAddress(8),
        totalLiquidity: 0n,
        availableLiquidity: 0n,
        delegatedLiquidity: 0n,
        cooldownLiquidity: 0n,
        cooldownPeriod: 0n,
        createdAt: 0n,
        depositedAt: 0n,
        withdrawnAt: 0n,
        borrowedAt: 0n,
        repaidAt: 0n,
        frozenUntil: 0n,
        ongoingLoans: 0n,
        delegationKeeper: testAddress(0),
        feesOwed: 0n,
      }),
    );
    expect(matches(pool, getPoolFilters({ owner: testAddress(1), bank: testAddress(3) }))).toBe(true);
    expect(matches(pool, getPoolFilters({ bank: testAddress(4) }))).toBe(false);
    expect(matches(bank, getBankFilters({ owner: testAddress(1), mint: testAddress(4) }))).toBe(true);
    expect(matches(bank, getBankFilters({ mint: testAddress(1) }))).toBe(false);
    expect(matches(bank, getPoolFilters())).toBe(false);
    expect(matches(pool, getLoanFilters())).toBe(false);
    expect(matches(loan({}), getBankFilters())).toBe(false);
  });
});
