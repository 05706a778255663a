import { computeGraceSeconds, computeRepayment } from "@cistern/protocol";
import { LENDING_ERROR_CODE } from "@cistern/sdk";
import { AccountRole, type Address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { setMeta, swapAccount } from "./support/mutate.ts";
import { createTokenAccount, tokenBalance } from "./support/tokens.ts";
import {
  APR_BPS,
  bankOf,
  buildWorld,
  DAY,
  DEPOSIT,
  liquidateIx,
  loanOf,
  nftLoanIx,
  nftTerms,
  ONE,
  poolOf,
  repayIx,
  tokenLoanIx,
  type World,
  withFreshNft,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;

async function openLoan(w: World, principal = 100n * ONE, duration = 7n * DAY) {
  const ix = await nftLoanIx(w, nftTerms(w, { principalBaseUnits: principal, durationSeconds: duration }));
  await w.h.send([ix]);
  return ix;
}

/** Expected repayment of a loan at the harness clock, from @cistern/protocol. */
function expected(w: World, loan: Address) {
  const l = loanOf(w, loan);
  return computeRepayment({
    aprBps: l.aprBps,
    principal: l.principal,
    durationSeconds: l.durationSeconds,
    createdAt: l.createdAt,
    now: w.h.now,
  });
}

describe("repay", () => {
  for (const [label, elapsed] of [
    ["early (30% minimum)", 3_600n],
    ["mid-term (accrued hours)", 5n * DAY + 1_234n],
    ["at expiry", 7n * DAY],
    ["overdue (2x rate per hour)", 7n * DAY + 5n * 3_600n + 1n],
  ] as const) {
    it(`pays principal + owed interest ${label} into the vault (the fee as the bank's feesOwed) and returns the NFT`, async () => {
      const w = await buildWorld();
      const { loan, escrow } = await openLoan(w);
      w.h.advance(elapsed, 10n);
      const r = expected(w, loan);
      const borrowerBefore = tokenBalance(w.h, w.borrowerAta);
      const vaultBefore = tokenBalance(w.h, w.vault);
      const escrowRent = w.h.lamports(escrow);
      const solBefore = w.h.lamports(w.borrower.address);
      const out = await w.h.send([await repayIx(w, loan)], w.borrower);
      expect(out.computeUnits).toBeLessThanOrEqual(15_000n);

      expect(tokenBalance(w.h, w.borrowerAta)).toBe(borrowerBefore - r.repayment);
      // one transfer: the fee waits in the vault, counted as feesOwed (not available to lend or withdraw)
      expect(tokenBalance(w.h, w.treasuryAta)).toBe(0n);
      expect(tokenBalance(w.h, w.vault)).toBe(vaultBefore + r.principal + r.lenderInterest + r.protocolFee);
      expect(bankOf(w).feesOwed).toBe(r.protocolFee);
      expect(tokenBalance(w.h, w.nft.account)).toBe(1n);
      expect(w.h.exists(escrow)).toBe(false);
      // escrow rent back to the borrower (who also paid the 5000-lamport fee)
      expect(w.h.lamports(w.borrower.address)).toBe(solBefore + escrowRent - 5_000n);

      const l = loanOf(w, loan);
      expect(l).toMatchObject({
        status: "Repaid",
        repaidAt: w.h.now,
        repaidAmount: r.repayment,
        protocolFeePaid: r.protocolFee,
      });
      const b = bankOf(w);
      expect(b.totalLiquidity).toBe(DEPOSIT + r.lenderInterest);
      expect(b.availableLiquidity).toBe(DEPOSIT + r.lenderInterest);
      expect(b.ongoingLoans).toBe(0n);
      expect(b.repaidAt).toBe(w.h.now);
      const p = poolOf(w);
      expect(p).toMatchObject({ currentLoans: 0n, borrowedAmount: 0n, totalInterest: r.owedInterest });
      expect(p.collections[0]).toMatchObject({ borrowedAmount: 0n, ongoingLoans: 0n });
    });
  }

  it("repays a token loan and several loans in one transaction", async () => {
    const w = await buildWorld();
    const tokenLoan = await tokenLoanIx(w, 7_000n);
    await w.h.send([tokenLoan]);
    const a = await openLoan(w);
    const w2 = await withFreshNft(w);
    const b = await openLoan(w2, 50n * ONE);
    w.h.advance(2n * DAY);
    const collateralBefore = tokenBalance(w.h, w.borrowerCollateralAta);
    const out = await w.h.send(
      [
        await repayIx(w, a.loan),
        await repayIx(w2, b.loan),
        await repayIx(w, tokenLoan.loan, w.defiPool, w.borrowerCollateralAta),
      ],
      w.borrower,
    );
    expect(out.computeUnits).toBeLessThanOrEqual(3n * 15_000n);
    for (const loan of [a.loan, b.loan, tokenLoan.loan]) expect(loanOf(w, loan).status).toBe("Repaid");
    expect(tokenBalance(w.h, w.borrowerCollateralAta)).toBe(collateralBefore + 7_000n);
    expect(tokenBalance(w.h, w2.nft.account)).toBe(1n);
    expect(bankOf(w).ongoingLoans).toBe(0n);
  });

  it("refuses a double repay, a stranger, another loan's escrow, a wrong vault and token program", async () => {
    const w = await buildWorld();
    const { loan } = await openLoan(w);
    const ix = await repayIx(w, loan);
    const stranger = await w.h.wallet();
    await w.h.expectCode(
      [setMeta(ix, 0, { address: stranger.address, role: AccountRole.WRITABLE_SIGNER, signer: stranger })],
      E.Unauthorized,
    );
    const strangerCurrency = await createTokenAccount(w.h, w.currency, stranger.address);
    // the escrow of another loan
    const w2 = await withFreshNft(w);
    const other = await openLoan(w2);
    await w.h.expectCode([swapAccount(ix, 6, other.escrow)], E.AccountMismatch);
    // a loan of another pool
    await w.h.expectCode([swapAccount(ix, 2, w.defiPool)], E.AccountMismatch);
    // a token program that is not Tokenkeg, a vault that is not the bank's
    await w.h.expectCode([swapAccount(ix, 9, stranger.address)], E.InvalidTokenProgram);
    await w.h.expectCode([swapAccount(ix, 4, strangerCurrency)], E.AccountMismatch);
    // the collateral must come back to the borrower's own token account
    const strangerNft = await createTokenAccount(w.h, w.nft.mint, stranger.address);
    await w.h.expectCode([swapAccount(ix, 7, strangerNft)], E.InvalidTokenAccount);
    await w.h.send([ix]);
    await w.h.expectCode([await repayIx(w, loan)], E.LoanNotOngoing);
  });
});

describe("liquidate", () => {
  it("only after expiry + grace; the collateral goes to the pool owner", async () => {
    const w = await buildWorld();
    const { loan, escrow } = await openLoan(w, 100n * ONE, 5n * DAY);
    const ownerNft = await createTokenAccount(w.h, w.nft.mint, w.lender.address);
    const keeper = await w.h.wallet();
    const ix = await liquidateIx(w, keeper, loan, ownerNft);
    const grace = BigInt(computeGraceSeconds(5n * DAY));
    expect(grace).toBe(5n * 3_600n);
    const l = loanOf(w, loan);
    w.h.setClock(w.h.slot + 1n, l.expiredAt + grace);
    await w.h.expectCode([ix], E.NotLiquidatable);
    w.h.advance(1n);
    // not to someone else's token account
    const strangerNft = await createTokenAccount(w.h, w.nft.mint, keeper.address);
    await w.h.expectCode([await liquidateIx(w, keeper, loan, strangerNft)], E.InvalidTokenAccount);
    await w.h.expectCode([swapAccount(ix, 6, keeper.address)], E.InvalidTokenProgram);
    await w.h.expectCode([swapAccount(ix, 2, w.defiPool)], E.InvalidDiscriminator);
    const rent = w.h.lamports(escrow);
    const keeperBefore = w.h.lamports(keeper.address);
    const out = await w.h.send([ix], keeper);
    expect(out.computeUnits).toBeLessThanOrEqual(12_000n);
    expect(tokenBalance(w.h, ownerNft)).toBe(1n);
    expect(w.h.exists(escrow)).toBe(false);
    expect(w.h.lamports(keeper.address)).toBe(keeperBefore + rent - 5_000n);
    expect(loanOf(w, loan)).toMatchObject({ status: "Liquidated", liquidatedAt: w.h.now, repaidAt: 0n });
    const b = bankOf(w);
    expect(b.totalLiquidity).toBe(DEPOSIT - 100n * ONE);
    expect(b.availableLiquidity).toBe(DEPOSIT - 100n * ONE);
    expect(b.ongoingLoans).toBe(0n);
    expect(poolOf(w)).toMatchObject({ totalLiquidations: 1n, currentLoans: 0n, borrowedAmount: 0n });
    // final status: neither repay nor liquidate again
    await w.h.expectCode([ix], E.LoanNotOngoing);
    await w.h.expectCode([await repayIx(w, loan)], E.LoanNotOngoing);
  });

  it("caps the grace period at 8 hours and refuses a repaid loan", async () => {
    const w = await buildWorld();
    const { loan } = await openLoan(w, 100n * ONE, 20n * DAY);
    const ownerNft = await createTokenAccount(w.h, w.nft.mint, w.lender.address);
    const ix = await liquidateIx(w, w.lender, loan, ownerNft);
    const l = loanOf(w, loan);
    w.h.setClock(w.h.slot + 1n, l.expiredAt + 8n * 3_600n);
    await w.h.expectCode([ix], E.NotLiquidatable);
    await w.h.send([await repayIx(w, loan)]);
    w.h.advance(1n);
    await w.h.expectCode([ix], E.LoanNotOngoing);
    expect(APR_BPS).toBe(loanOf(w, loan).aprBps);
  });
});
