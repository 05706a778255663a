/**
 * Anyone can send tokens to any token account. Every ending must still work when someone paid into a
 * program-owned token account (a loan's or a request's escrow, a bank's vault, a bid's vault) before it: 1 base
 * unit and a large amount. Where the surplus goes (LAYOUT.md "Tokens paid into program-owned accounts"): with the
 * collateral to whoever receives it; a vault keeps what was paid into it, counted nowhere in the books.
 */
import { fileURLToPath } from "node:url";
import { PROGRAM_ERROR_CODE as E } from "@cistern/protocol";
import { getLiquidateSellInstruction, getWithdrawInstruction } from "@cistern/sdk";
import {
  cancelRequest,
  createLendingWorld,
  createMint,
  createPool,
  createWallet,
  extendLoan,
  fillRequest,
  getNow,
  getTokenBalance,
  type LendingWorld,
  liquidate,
  mintTo,
  postRequest,
  readBank,
  readLoan,
  readRequest,
  refinanceLoan,
  repay,
  sendWithLiteSvm,
  setUnixTime,
  takeLoan,
  tokenAccountOf,
  type Wallet,
  type WorldPool,
  withdraw,
} from "@cistern/sdk/testing";
import type { Address } from "@solana/kit";
import { getTransferInstruction } from "@solana-program/token";
import { describe, expect, it } from "vitest";
import {
  createNftSale,
  instantSell,
  openNftLoan,
  placeBid,
  sellLoanToBid,
  USDC,
} from "./support/nft-sale-world.ts";
import {
  COLLATERAL,
  createSale,
  failureCode,
  marketSell,
  openLoan as openSaleLoan,
  PRINCIPAL as SALE_PRINCIPAL,
  venueSwap,
} from "./support/sale-world.ts";

const SO = fileURLToPath(new URL("../build/lending.so", import.meta.url));
const DAY = 86_400n;
const DONATIONS = [
  ["1 base unit", 1n],
  ["a large amount", 10n ** 15n],
] as const;

/** What the bank's books say its vault holds: available liquidity and the protocol fees owed to the treasury. */
const booked = (w: LendingWorld) => readBank(w).availableLiquidity + readBank(w).feesOwed;

/** A stranger pays `amount` of `mint` into `target` with a plain SPL Token transfer. */
async function donate(world: LendingWorld, mint: Address, target: Address, amount: bigint): Promise<void> {
  const stranger = await createWallet(world.svm, world.admin, [mint]);
  const source = stranger.tokenAccounts.get(mint)!;
  await mintTo(world.svm, world.admin, mint, source, amount);
  await sendWithLiteSvm(
    world.svm,
    [getTransferInstruction({ source, destination: target, authority: stranger.signer, amount })],
    stranger.signer,
  );
  expect(getTokenBalance(world.svm, source)).toBe(0n);
}

const gone = (w: LendingWorld, account: Address) => !(w.svm.getAccount(account)?.exists ?? false);

/** A world with a defi-pool lending against a 9-decimal token the borrower holds. */
async function tokenWorld() {
  const w = await createLendingWorld({ soPath: SO, depositBaseUnits: 10_000_000_000n });
  const mint = await createMint(w.svm, w.admin, 9);
  const borrower = await createWallet(w.svm, w.admin, [w.currencyMint, mint]);
  await mintTo(w.svm, w.admin, w.currencyMint, borrower.tokenAccounts.get(w.currencyMint)!, 10n ** 12n);
  await mintTo(w.svm, w.admin, mint, borrower.tokenAccounts.get(mint)!, 10n ** 12n);
  const pool = await createPool(w, { poolType: "defi-pool", collectionIds: [mint], loanAprBps: 2000 });
  const other = await createPool(w, { poolType: "defi-pool", collectionIds: [mint], loanAprBps: 1000 });
  const open = () =>
    takeLoan(w, {
      pool,
      borrower,
      collateralMint: mint,
      collection: mint,
      collateralAmountBaseUnits: 4_000_000_000n,
      collateralValueBaseUnits: 400_000_000n,
      principalBaseUnits: 100_000_000n,
      durationSeconds: 7n * DAY,
    });
  const collateral = () => getTokenBalance(w.svm, borrower.tokenAccounts.get(mint)!);
  return { w, mint, borrower, pool, other, open, collateral };
}

/** What a moved loan (Extend, Refinance) needs; its new escrow holds the collateral and the surplus. */
function moveInput(pool: WorldPool, borrower: Wallet, oldLoan: Address) {
  return {
    pool,
    borrower,
    oldLoan,
    principalBaseUnits: 100_000_000n,
    durationSeconds: 7n * DAY,
    collateralValueBaseUnits: 400_000_000n,
  };
}

describe.each(DONATIONS)("every ending after a donation of %s", (_label, amount) => {
  it("token loan: Repay returns the collateral and the surplus to the borrower", async () => {
    const t = await tokenWorld();
    const loan = await t.open();
    const { escrow } = readLoan(t.w, loan);
    await donate(t.w, t.mint, escrow, amount);
    const before = t.collateral();
    await repay(t.w, t.borrower, loan);
    expect(readLoan(t.w, loan).status).toBe("Repaid");
    expect(t.collateral()).toBe(before + 4_000_000_000n + amount);
    expect(gone(t.w, escrow)).toBe(true);
  });

  it("token loan: Liquidate after expiry + grace gives the pool owner the collateral and the surplus", async () => {
    const t = await tokenWorld();
    const loan = await t.open();
    const { escrow, expiredAt } = readLoan(t.w, loan);
    await donate(t.w, t.mint, escrow, amount);
    setUnixTime(t.w, expiredAt + 8n * 3_600n + 1n);
    await liquidate(t.w, t.w.admin, loan);
    expect(readLoan(t.w, loan).status).toBe("Liquidated");
    const owner = await tokenAccountOf(t.w, t.pool.bank.owner, t.mint);
    expect(getTokenBalance(t.w.svm, owner)).toBe(4_000_000_000n + amount);
    expect(gone(t.w, escrow)).toBe(true);
  });

  for (const move of ["Extend", "Refinance"] as const) {
    it(`token loan: ${move} carries the surplus into the new escrow, and the next ending pays it out`, async () => {
      const t = await tokenWorld();
      const loan = await t.open();
      const { escrow } = readLoan(t.w, loan);
      await donate(t.w, t.mint, escrow, amount);
      setUnixTime(t.w, getNow(t.w).unix + DAY);
      const next =
        move === "Extend"
          ? await extendLoan(t.w, moveInput(t.pool, t.borrower, loan))
          : await refinanceLoan(t.w, moveInput(t.other, t.borrower, loan));
      expect(readLoan(t.w, loan).status).toBe("Repaid");
      expect(gone(t.w, escrow)).toBe(true);
      const moved = readLoan(t.w, next);
      expect(moved.collateralAmount).toBe(4_000_000_000n);
      expect(getTokenBalance(t.w.svm, moved.escrow)).toBe(4_000_000_000n + amount);
      const before = t.collateral();
      await repay(t.w, t.borrower, next);
      expect(t.collateral()).toBe(before + 4_000_000_000n + amount);
    });
  }

  it("loan request: a stranger's donation blocks neither CancelRequest nor FillRequest", async () => {
    const t = await tokenWorld();
    const request = () =>
      postRequest(t.w, {
        borrower: t.borrower,
        collateralMint: t.mint,
        isDefi: true,
        collateralAmountBaseUnits: 2_000_000_000n,
        principalBaseUnits: 100_000_000n,
        durationSeconds: 7n * DAY,
        maxAprBps: 3000,
      });
    const cancelled = await request();
    const cancelledEscrow = readRequest(t.w, cancelled).escrow;
    await donate(t.w, t.mint, cancelledEscrow, amount);
    const before = t.collateral();
    await cancelRequest(t.w, t.borrower, cancelled);
    expect(readRequest(t.w, cancelled).status).toBe("Cancelled");
    expect(t.collateral()).toBe(before + 2_000_000_000n + amount);
    expect(gone(t.w, cancelledEscrow)).toBe(true);

    const filled = await request();
    const filledEscrow = readRequest(t.w, filled).escrow;
    await donate(t.w, t.mint, filledEscrow, amount);
    const loan = await fillRequest(t.w, { pool: t.pool, request: filled, borrower: t.borrower });
    expect(readRequest(t.w, filled).status).toBe("Filled");
    expect(gone(t.w, filledEscrow)).toBe(true);
    const l = readLoan(t.w, loan);
    expect(getTokenBalance(t.w.svm, l.escrow)).toBe(2_000_000_000n + amount);
    setUnixTime(t.w, l.expiredAt + 8n * 3_600n + 1n);
    await liquidate(t.w, t.w.admin, loan);
    const owner = await tokenAccountOf(t.w, t.pool.bank.owner, t.mint);
    expect(getTokenBalance(t.w.svm, owner)).toBe(2_000_000_000n + amount);
  });

  it("bank: the vault keeps what was paid into it, Withdraw of all that is available still works", async () => {
    const t = await tokenWorld();
    await t.open();
    await donate(t.w, t.w.currencyMint, t.w.vault, amount);
    const available = readBank(t.w).availableLiquidity;
    expect(getTokenBalance(t.w.svm, t.w.vault)).toBe(available + amount);
    await withdraw(t.w, available);
    expect(readBank(t.w).availableLiquidity).toBe(0n);
    expect(getTokenBalance(t.w.svm, t.w.vault)).toBe(amount);
  });

  it("MarketSell: the sale is measured by what moved, the surplus comes back with the unsold collateral", async () => {
    const s = await createSale();
    const loan = await openSaleLoan(s);
    const { escrow } = readLoan(s.world, loan);
    await donate(s.world, s.collateralMint, escrow, amount);
    await donate(s.world, s.world.currencyMint, s.world.vault, amount);
    const collateral = await tokenAccountOf(s.world, s.borrower, s.collateralMint);
    const before = getTokenBalance(s.world.svm, collateral);
    const sell = 60_000_000_000n;
    await sendWithLiteSvm(
      s.world.svm,
      [await marketSell(s, loan, await venueSwap(s, loan, sell, 0n))],
      s.borrower.signer,
    );
    expect(readLoan(s.world, loan).status).toBe("Sold");
    expect(getTokenBalance(s.world.svm, collateral)).toBe(before + COLLATERAL - sell + amount);
    expect(gone(s.world, escrow)).toBe(true);
    expect(getTokenBalance(s.world.svm, s.world.vault)).toBe(booked(s.world) + amount);
  });

  it("LiquidateSell: the proceeds are what reached the vault; what the sale left goes to the pool owner", async () => {
    const s = await createSale();
    const auto = await createPool(s.world, {
      poolType: "defi-pool",
      collectionIds: [s.collateralMint],
      loanAprBps: 2000,
      ltvBps: 6000,
      autoSell: true,
    });
    const loan = await takeLoan(s.world, {
      pool: auto,
      borrower: s.borrower,
      collateralMint: s.collateralMint,
      collection: s.collateralMint,
      collateralAmountBaseUnits: COLLATERAL,
      collateralValueBaseUnits: 200_000_000n,
      principalBaseUnits: SALE_PRINCIPAL,
      durationSeconds: 7n * DAY,
    });
    const { escrow, expiredAt } = readLoan(s.world, loan);
    await donate(s.world, s.collateralMint, escrow, amount);
    await donate(s.world, s.world.currencyMint, s.world.vault, amount);
    setUnixTime(s.world, expiredAt + 8n * 3_600n + 1n);
    const vaultBefore = getTokenBalance(s.world.svm, s.world.vault);
    const owner = await tokenAccountOf(s.world, auto.bank.owner, s.collateralMint);
    const ix = await getLiquidateSellInstruction({
      programAddress: s.world.programAddress,
      liquidator: s.world.admin,
      pool: auto.address,
      bank: auto.bank.address,
      loan,
      poolOwnerCollateralTokenAccount: owner,
      swap: await venueSwap(s, loan, COLLATERAL, 0n, { destination: s.world.vault }),
    });
    await sendWithLiteSvm(s.world.svm, [ix], s.world.admin);
    const l = readLoan(s.world, loan);
    expect(l.status).toBe("Liquidated");
    expect(l.repaidAmount).toBe(getTokenBalance(s.world.svm, s.world.vault) - vaultBefore);
    expect(getTokenBalance(s.world.svm, owner)).toBe(amount);
    expect(gone(s.world, escrow)).toBe(true);
    expect(getTokenBalance(s.world.svm, s.world.vault)).toBe(booked(s.world) + amount);
  });

  it("instant sell and auto-sell of NFT loans: donations to the bank's vault and the bid's vault block neither", async () => {
    const s = await createNftSale();
    const sold = await openNftLoan(s, 50n * USDC);
    const overdue = await openNftLoan(s, 50n * USDC);
    const first = await placeBid(s, 90n * USDC, 1n);
    const second = await placeBid(s, 90n * USDC, 2n);
    for (const vault of [s.world.vault, first.vault, second.vault])
      await donate(s.world, s.world.currencyMint, vault, amount);
    const proceeds = await tokenAccountOf(s.world, s.borrower, s.world.currencyMint);
    await sendWithLiteSvm(
      s.world.svm,
      [await instantSell(s, sold.loan, await sellLoanToBid(s, sold.loan, first, proceeds))],
      s.borrower.signer,
    );
    expect(readLoan(s.world, sold.loan).status).toBe("Sold");
    // the bid's vault paid out all it held: the price and the donation, to the seller's proceeds
    expect(gone(s.world, first.vault)).toBe(true);

    setUnixTime(s.world, readLoan(s.world, overdue.loan).expiredAt + 8n * 3_600n + 1n);
    const vaultBefore = getTokenBalance(s.world.svm, s.world.vault);
    const ix = await getLiquidateSellInstruction({
      programAddress: s.world.programAddress,
      liquidator: s.world.admin,
      pool: s.pool.address,
      bank: s.pool.bank.address,
      loan: overdue.loan,
      poolOwnerCollateralTokenAccount: await tokenAccountOf(s.world, s.pool.bank.owner, overdue.nft),
      swap: await sellLoanToBid(s, overdue.loan, second, s.world.vault),
    });
    await sendWithLiteSvm(s.world.svm, [ix], s.world.admin);
    const l = readLoan(s.world, overdue.loan);
    expect(l.status).toBe("Liquidated");
    expect(l.repaidAmount).toBe(90n * USDC + amount);
    expect(getTokenBalance(s.world.svm, s.world.vault) - vaultBefore).toBe(90n * USDC + amount);
    expect(getTokenBalance(s.world.svm, s.world.vault)).toBe(booked(s.world) + amount);
  });
});

describe("a token transfer from an account to itself", () => {
  it("Withdraw into the bank's own vault is refused with SameAccount and nothing moves", async () => {
    const t = await tokenWorld();
    const before = { bank: readBank(t.w), vault: getTokenBalance(t.w.svm, t.w.vault) };
    const owner = t.w.defaultBank.owner;
    const ix = await getWithdrawInstruction({
      programAddress: t.w.programAddress,
      owner: owner.signer,
      mint: t.w.currencyMint,
      destinationTokenAccount: t.w.vault,
      amountBaseUnits: 1_000_000n,
    });
    expect(await failureCode(sendWithLiteSvm(t.w.svm, [ix], owner.signer))).toBe(E.SameAccount);
    expect(readBank(t.w)).toEqual(before.bank);
    expect(getTokenBalance(t.w.svm, t.w.vault)).toBe(before.vault);
  });
});
