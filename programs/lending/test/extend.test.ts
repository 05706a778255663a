import { computeRepayment, computeTotalInterest } from "@cistern/protocol";
import { getExtendInstruction, LENDING_ERROR_CODE, type LoanTerms } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { tokenBalance } from "./support/tokens.ts";
import {
  APR_BPS,
  attestation,
  bankOf,
  buildWorld,
  DAY,
  DEPOSIT,
  loanOf,
  nftLoanIx,
  nftTerms,
  ONE,
  poolOf,
  type World,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;

function extendIx(w: World, oldLoan: Address, terms: LoanTerms) {
  return getExtendInstruction({
    programAddress: w.program,
    borrower: w.borrower,
    oracle: w.oracle,
    pool: w.nftPool,
    bank: w.bank,
    collateralMint: w.nft.mint,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    oldLoan,
    ...terms,
  });
}

describe("extend", () => {
  for (const [label, newPrincipal] of [
    ["a larger principal (vault pays the difference)", 150n * ONE],
    ["a smaller principal (borrower pays the difference)", 40n * ONE],
  ] as const) {
    it(`repays the old loan and reopens it with ${label}, moving the NFT escrow to escrow`, async () => {
      const w = await buildWorld();
      const old = await nftLoanIx(w);
      await w.h.send([old]);
      w.h.advance(3n * DAY, 20n);
      const oldLoan = loanOf(w, old.loan);
      const r = computeRepayment({
        aprBps: oldLoan.aprBps,
        principal: oldLoan.principal,
        durationSeconds: oldLoan.durationSeconds,
        createdAt: oldLoan.createdAt,
        now: w.h.now,
      });
      const borrowerBefore = tokenBalance(w.h, w.borrowerAta);
      const vaultBefore = tokenBalance(w.h, w.vault);
      const ix = await extendIx(
        w,
        old.loan,
        nftTerms(w, { principalBaseUnits: newPrincipal, durationSeconds: 10n * DAY }),
      );
      await w.h.send([ix], w.borrower);

      expect(w.h.exists(old.escrow)).toBe(false);
      expect(tokenBalance(w.h, ix.escrow)).toBe(1n);
      expect(tokenBalance(w.h, w.nft.account)).toBe(0n);
      expect(tokenBalance(w.h, w.treasuryAta)).toBe(0n);
      expect(bankOf(w).feesOwed).toBe(r.protocolFee);
      expect(tokenBalance(w.h, w.borrowerAta)).toBe(borrowerBefore - r.repayment + newPrincipal);
      expect(tokenBalance(w.h, w.vault)).toBe(vaultBefore + r.repayment - newPrincipal);

      expect(loanOf(w, old.loan)).toMatchObject({
        status: "Repaid",
        repaidAt: w.h.now,
        repaidAmount: r.repayment,
        protocolFeePaid: r.protocolFee,
        extendedTo: ix.loan,
      });
      expect(loanOf(w, ix.loan)).toMatchObject({
        status: "Ongoing",
        principal: newPrincipal,
        durationSeconds: 10n * DAY,
        createdAt: w.h.now,
        expiredAt: w.h.now + 10n * DAY,
        collateralMint: w.nft.mint,
        interest: computeTotalInterest({
          aprBps: APR_BPS,
          principal: newPrincipal,
          durationSeconds: 10n * DAY,
        }),
      });
      const b = bankOf(w);
      expect(b.totalLiquidity).toBe(DEPOSIT + r.lenderInterest);
      expect(b.availableLiquidity).toBe(DEPOSIT + r.lenderInterest - newPrincipal);
      expect(b.ongoingLoans).toBe(1n);
      const p = poolOf(w);
      expect(p).toMatchObject({
        totalLoans: 2n,
        currentLoans: 1n,
        borrowedAmount: newPrincipal,
        totalInterest: r.owedInterest,
      });
      expect(p.collections[0]).toMatchObject({ borrowedAmount: newPrincipal, ongoingLoans: 1n });
    });
  }

  it("checks the new loan like a new one and refuses a finished loan", async () => {
    const w = await buildWorld();
    const old = await nftLoanIx(w);
    await w.h.send([old]);
    // LTV 50% of 1000
    await w.h.expectCode(
      [await extendIx(w, old.loan, nftTerms(w, { principalBaseUnits: 500n * ONE + 1n }))],
      E.LtvExceeded,
    );
    await w.h.expectCode(
      [await extendIx(w, old.loan, nftTerms(w, { attestation: attestation(w, { slot: w.h.slot + 1n }) }))],
      E.FutureAttestation,
    );
    await w.h.expectCode(
      [await extendIx(w, old.loan, nftTerms(w, { collateralAmountBaseUnits: 2n }))],
      E.InvalidCollateral,
    );
    const first = await extendIx(w, old.loan, nftTerms(w));
    await w.h.send([first]);
    await w.h.expectCode([await extendIx(w, old.loan, nftTerms(w))], E.LoanNotOngoing);
    // the extended loan can itself be extended
    await w.h.send([await extendIx(w, first.loan, nftTerms(w))]);
  });
});
