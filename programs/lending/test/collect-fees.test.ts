/**
 * The protocol fee accrues in the bank (feesOwed) with the repayment and reaches the treasury by CollectFees:
 * Repay makes one transfer, the fee is never lendable or withdrawable, and what anyone pays into the vault is not
 * collected as fees.
 */
import { computeRepayment } from "@cistern/protocol";
import { getWithdrawInstruction, LENDING_ERROR_CODE } from "@cistern/sdk";
import { describe, expect, it } from "vitest";
import { swapAccount } from "./support/mutate.ts";
import { createTokenAccount, mintTo, tokenBalance } from "./support/tokens.ts";
import {
  bankOf,
  buildWorld,
  collectFeesIx,
  DAY,
  loanOf,
  nftLoanIx,
  nftTerms,
  ONE,
  repayIx,
  type World,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;

/** Opens a 100-unit NFT loan, lets 3 days pass and repays it; returns the fee the repayment carried. */
async function repaidLoan(w: World): Promise<bigint> {
  const ix = await nftLoanIx(w, nftTerms(w, { principalBaseUnits: 100n * ONE, durationSeconds: 7n * DAY }));
  await w.h.send([ix]);
  w.h.advance(3n * DAY, 10n);
  const l = loanOf(w, ix.loan);
  const { protocolFee } = computeRepayment({
    aprBps: l.aprBps,
    principal: l.principal,
    durationSeconds: l.durationSeconds,
    createdAt: l.createdAt,
    now: w.h.now,
  });
  await w.h.send([await repayIx(w, ix.loan)], w.borrower);
  return protocolFee;
}

function withdrawIx(w: World, amountBaseUnits: bigint) {
  return getWithdrawInstruction({
    programAddress: w.program,
    owner: w.lender,
    mint: w.currency,
    destinationTokenAccount: w.lenderAta,
    amountBaseUnits,
  });
}

describe("CollectFees", () => {
  it("moves what repayments left as feesOwed to the treasury, once; anyone may send it", async () => {
    const w = await buildWorld();
    const fee = await repaidLoan(w);
    expect(fee).toBeGreaterThan(0n);
    expect(bankOf(w).feesOwed).toBe(fee);
    const vaultBefore = tokenBalance(w.h, w.vault);
    const { availableLiquidity, totalLiquidity } = bankOf(w);

    const stranger = await w.h.wallet();
    const out = await w.h.send([await collectFeesIx(w)], stranger);
    expect(tokenBalance(w.h, w.treasuryAta)).toBe(fee);
    expect(tokenBalance(w.h, w.vault)).toBe(vaultBefore - fee);
    expect(bankOf(w)).toMatchObject({ feesOwed: 0n, availableLiquidity, totalLiquidity });
    expect(out.computeUnits).toBeLessThanOrEqual(5_000n);

    await w.h.expectCode([await collectFeesIx(w)], E.NoFeesOwed);
    expect(tokenBalance(w.h, w.treasuryAta)).toBe(fee);
  });

  it("refuses a destination the config does not name, another vault and another token program", async () => {
    const w = await buildWorld();
    const fee = await repaidLoan(w);
    const stranger = await w.h.wallet();
    const strangerAccount = await createTokenAccount(w.h, w.currency, stranger.address);
    await w.h.expectCode([await collectFeesIx(w, strangerAccount)], E.InvalidTreasury);
    const ix = await collectFeesIx(w);
    await w.h.expectCode([swapAccount(ix, 2, strangerAccount)], E.AccountMismatch);
    await w.h.expectCode([swapAccount(ix, 4, stranger.address)], E.InvalidTokenProgram);
    // the treasury's account of another mint
    const otherMint = await createTokenAccount(w.h, w.collateralMint, w.treasury.address);
    await w.h.expectCode([await collectFeesIx(w, otherMint)], E.InvalidMint);
    expect(bankOf(w).feesOwed).toBe(fee);
    expect(tokenBalance(w.h, w.treasuryAta)).toBe(0n);
  });

  it("keeps the fees out of the lender's reach: Withdraw stops at available, the fees stay for the treasury", async () => {
    const w = await buildWorld();
    const fee = await repaidLoan(w);
    const { availableLiquidity } = bankOf(w);
    await w.h.expectCode([await withdrawIx(w, availableLiquidity + 1n)], E.InsufficientLiquidity);
    await w.h.send([await withdrawIx(w, availableLiquidity)], w.lender);
    expect(tokenBalance(w.h, w.vault)).toBe(fee);
    await w.h.send([await collectFeesIx(w)]);
    expect(tokenBalance(w.h, w.treasuryAta)).toBe(fee);
    expect(tokenBalance(w.h, w.vault)).toBe(0n);
  });

  it("collects the books' fees, not what a stranger paid into the vault", async () => {
    const w = await buildWorld();
    const fee = await repaidLoan(w);
    await mintTo(w.h, w.currency, w.vault, 5n * ONE); // tokens arriving in the vault from outside the books
    await w.h.send([await collectFeesIx(w)]);
    expect(tokenBalance(w.h, w.treasuryAta)).toBe(fee);
    expect(bankOf(w).feesOwed).toBe(0n);
  });
});
