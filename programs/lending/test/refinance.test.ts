/**
 * Refinance (19): an ongoing loan moves to another pool of the same currency in one instruction. The old lender
 * is paid exactly what a Repay at that moment pays, the borrower pays no more than the new terms, the
 * collateral stays in the program's escrow, and a loan past grace cannot move.
 */
import { fileURLToPath } from "node:url";
import { computeOwedInterest, computeProtocolFee, PROGRAM_ERROR_CODE as P } from "@cistern/protocol";
import {
  createBank,
  createLendingWorld,
  createMint,
  createPool,
  createWallet,
  getNow,
  getTokenBalance,
  type LendingWorld,
  mintTo,
  readBank,
  readLoan,
  readPool,
  refinanceLoan,
  setUnixTime,
  takeLoan,
  tokenAccountOf,
  type Wallet,
  type WorldPool,
} from "@cistern/sdk/testing";
import type { Address } from "@solana/kit";
import { beforeEach, describe, expect, it } from "vitest";
import { failureCode } from "./support/sale-world.ts";

const SO = fileURLToPath(new URL("../build/lending.so", import.meta.url));
const DAY = 86_400n;
const PRINCIPAL = 300_000_000n;

describe("Refinance to another pool (LiteSVM)", () => {
  let w: LendingWorld;
  let borrower: Wallet;
  let collateral: Address;
  let dear: WorldPool; // 20% APR, the first lender's bank
  let cheap: WorldPool; // 8% APR, another lender's bank of the same currency
  let loan: Address;
  const open = (pool: WorldPool) =>
    takeLoan(w, {
      pool,
      borrower,
      collateralMint: collateral,
      collection: collateral,
      collateralAmountBaseUnits: 1_000_000_000n,
      collateralValueBaseUnits: 1_000_000_000n,
      principalBaseUnits: PRINCIPAL,
      durationSeconds: 14n * DAY,
    });
  const refinance = (pool: WorldPool, principal = PRINCIPAL, from = loan, who = borrower) =>
    refinanceLoan(w, {
      pool,
      borrower: who,
      oldLoan: from,
      principalBaseUnits: principal,
      durationSeconds: 14n * DAY,
      collateralValueBaseUnits: 1_000_000_000n,
    });

  beforeEach(async () => {
    w = await createLendingWorld({ soPath: SO, depositBaseUnits: 1_000_000_000n });
    collateral = await createMint(w.svm, w.admin, 6);
    borrower = await createWallet(w.svm, w.admin, [collateral, w.currencyMint]);
    await mintTo(w.svm, w.admin, collateral, borrower.tokenAccounts.get(collateral)!, 10_000_000_000n);
    await mintTo(w.svm, w.admin, w.currencyMint, borrower.tokenAccounts.get(w.currencyMint)!, 100_000_000n);
    const other = await createBank(w, { currencyMint: w.currencyMint, depositBaseUnits: 1_000_000_000n });
    dear = await createPool(w, {
      poolType: "defi-pool",
      collectionIds: [collateral],
      loanAprBps: 2000,
      ltvBps: 5000,
    });
    cheap = await createPool(w, {
      poolType: "defi-pool",
      collectionIds: [collateral],
      loanAprBps: 800,
      ltvBps: 5000,
      bank: other,
    });
    loan = await open(dear);
    setUnixTime(w, getNow(w).unix + 3n * DAY);
  });

  it("pays the old lender exactly what a repay pays now, and the collateral moves escrow to escrow", async () => {
    const old = readLoan(w, loan);
    const owed = computeOwedInterest({
      aprBps: old.aprBps,
      principal: old.principal,
      durationSeconds: old.durationSeconds,
      createdAt: old.createdAt,
      now: getNow(w).unix,
    });
    const fee = computeProtocolFee(owed);
    const currency = await tokenAccountOf(w, borrower, w.currencyMint);
    const treasury = await tokenAccountOf(w, w.treasury, w.currencyMint);
    const before = {
      oldVault: getTokenBalance(w.svm, dear.bank.vault),
      newVault: getTokenBalance(w.svm, cheap.bank.vault),
      borrower: getTokenBalance(w.svm, currency),
      treasury: getTokenBalance(w.svm, treasury),
      oldBank: readBank(w, dear.bank),
    };
    const moved = await refinance(cheap);
    // the old lender: principal + its share of the interest owed now, as Repay would pay
    expect(getTokenBalance(w.svm, dear.bank.vault) - before.oldVault).toBe(PRINCIPAL + owed);
    expect(readBank(w, dear.bank).feesOwed - before.oldBank.feesOwed).toBe(fee);
    expect(getTokenBalance(w.svm, treasury) - before.treasury).toBe(0n);
    expect(readBank(w, dear.bank).totalLiquidity - before.oldBank.totalLiquidity).toBe(owed - fee);
    expect(readBank(w, dear.bank).ongoingLoans).toBe(before.oldBank.ongoingLoans - 1n);
    // the borrower: the same principal in, the old payoff out: exactly the interest owed on the old loan
    expect(before.borrower - getTokenBalance(w.svm, currency)).toBe(owed);
    expect(before.newVault - getTokenBalance(w.svm, cheap.bank.vault)).toBe(PRINCIPAL);
    // the old loan is Repaid, pointing at the new one, which runs on the cheaper pool's terms
    const was = readLoan(w, loan);
    expect(was.status).toBe("Repaid");
    expect(was.extendedTo).toBe(moved);
    expect(was.repaidAmount).toBe(PRINCIPAL + owed);
    const now = readLoan(w, moved);
    expect([now.status, now.pool, now.aprBps, now.principal]).toEqual([
      "Ongoing",
      cheap.address,
      800,
      PRINCIPAL,
    ]);
    expect(getTokenBalance(w.svm, now.escrow)).toBe(1_000_000_000n);
    expect(readPool(w, dear.address).currentLoans).toBe(0n);
    expect(readPool(w, cheap.address).currentLoans).toBe(1n);
  });

  it("refuses a loan past grace, the same pool, another borrower and a pool of another currency; nothing moves", async () => {
    const vaults = () => [getTokenBalance(w.svm, dear.bank.vault), getTokenBalance(w.svm, cheap.bank.vault)];
    const before = vaults();
    expect(await failureCode(refinance(dear))).toBe(P.AccountMismatch);
    const stranger = await createWallet(w.svm, w.admin, [collateral, w.currencyMint]);
    expect(await failureCode(refinance(cheap, PRINCIPAL, loan, stranger))).toBe(P.Unauthorized);
    const otherCurrency = await createMint(w.svm, w.admin, 6);
    const foreignBank = await createBank(w, {
      currencyMint: otherCurrency,
      depositBaseUnits: 1_000_000_000n,
    });
    const foreign = await createPool(w, {
      poolType: "defi-pool",
      collectionIds: [collateral],
      loanAprBps: 500,
      bank: foreignBank,
    });
    expect(await failureCode(refinance(foreign))).not.toBe("success");
    // past 14 days + 8 h of grace: only repay or liquidation remain
    setUnixTime(w, readLoan(w, loan).expiredAt + 8n * 3600n + 1n);
    expect(await failureCode(refinance(cheap))).toBe(P.LoanLiquidatable);
    expect(vaults()).toEqual(before);
    expect(readLoan(w, loan).status).toBe("Ongoing");
  });

  it("moves a loan between two pools of one bank without losing a unit of the bank's accounting", async () => {
    const sibling = await createPool(w, {
      poolType: "defi-pool",
      collectionIds: [collateral],
      loanAprBps: 1000,
      ltvBps: 5000,
    });
    const old = readLoan(w, loan);
    const owed = computeOwedInterest({
      aprBps: old.aprBps,
      principal: old.principal,
      durationSeconds: old.durationSeconds,
      createdAt: old.createdAt,
      now: getNow(w).unix,
    });
    const share = owed - computeProtocolFee(owed);
    const before = { bank: readBank(w, dear.bank), vault: getTokenBalance(w.svm, dear.bank.vault) };
    const moved = await refinance(sibling);
    const after = readBank(w, dear.bank);
    // the vault: + principal + owed (payoff) - principal (new loan) = + owed, of which the lenders' share is
    // available and the fee is owed to the treasury; the bank's figures agree
    expect(getTokenBalance(w.svm, dear.bank.vault) - before.vault).toBe(owed);
    expect(after.availableLiquidity - before.bank.availableLiquidity).toBe(share);
    expect(after.feesOwed - before.bank.feesOwed).toBe(owed - share);
    expect(after.totalLiquidity - before.bank.totalLiquidity).toBe(share);
    expect(after.ongoingLoans).toBe(before.bank.ongoingLoans);
    expect(getTokenBalance(w.svm, w.vault)).toBe(after.availableLiquidity + after.feesOwed);
    expect(readLoan(w, moved).pool).toBe(sibling.address);
  });

  it("checks the new loan like any loan (LTV of the new pool)", async () => {
    expect(await failureCode(refinance(cheap, 500_000_001n))).toBe(P.LtvExceeded);
  });
});
