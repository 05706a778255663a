import {
  getExtendInstruction,
  getLiquidateInstruction,
  getRefinanceInstruction,
  LENDING_ERROR_CODE,
} from "@cistern/sdk";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  type CnftWorld,
  changeOtherLeaves,
  cnftWorld,
  custodyOf,
  expectLeafRefused,
  expectRoot,
  type Leaf,
  mintLeaf,
  moved,
  takeCnftIx,
} from "./support/cnft-world.ts";
import { computeLimit, expectOk, wireSize } from "./support/kit.ts";
import {
  attestation,
  bankOf,
  DAY,
  loanOf,
  moveLoanIx,
  nftLoanIxFor,
  nftTerms,
  otherLenderPool,
  poolOf,
} from "./support/world.ts";

const E = LENDING_ERROR_CODE;

/** A loan against a fresh leaf of the world's tree. */
async function openLoan(w: CnftWorld): Promise<{ loan: Address; leaf: Leaf }> {
  const leaf = await mintLeaf(w);
  const take = await takeCnftIx(w, leaf);
  expectOk(await w.h.trySend([take], w.borrower));
  moved(leaf, take.loan);
  return { loan: take.loan, leaf };
}

/** Extend of `oldLoan` (in the cnft pool), or Refinance into `target`, built by the SDK from the leaf's custody now. */
async function moveIx(w: CnftWorld, oldLoan: Address, leaf: Leaf, target?: { pool: Address; bank: Address }) {
  const input = {
    programAddress: w.program,
    borrower: w.borrower,
    oracle: w.oracle,
    pool: target?.pool ?? w.cnftPool,
    bank: target?.bank ?? w.bank,
    collateralMint: leaf.asset,
    borrowerCurrencyTokenAccount: w.borrowerAta,
    oldLoan,
    custody: await custodyOf(leaf),
    ...nftTerms(w, { attestation: attestation(w, { collection: w.glass }) }),
  };
  return target
    ? getRefinanceInstruction({ ...input, oldPool: w.cnftPool, oldBank: w.bank })
    : getExtendInstruction(input);
}

/** Nothing was written: no new loan, the old one Ongoing, the leaf still the old loan's. */
function expectNothingMoved(w: CnftWorld, oldLoan: Address, newLoan: Address): void {
  expect(w.h.exists(newLoan)).toBe(false);
  expect(loanOf(w, oldLoan).status).toBe("Ongoing");
  expectRoot(w, w.tree);
}

async function liquidateIx(
  w: CnftWorld,
  liquidator: KeyPairSigner,
  loan: Address,
  leaf: Leaf,
  pool: { pool: Address; bank: Address; owner: Address },
) {
  return getLiquidateInstruction({
    programAddress: w.program,
    liquidator,
    pool: pool.pool,
    bank: pool.bank,
    loan,
    poolOwnerCollateralTokenAccount: pool.owner,
    custody: { custody: await custodyOf(leaf), borrower: w.borrower.address, poolOwner: pool.owner },
  });
}

describe("Extend and Refinance of a compressed NFT loan (Bubblegum V1)", { timeout: 120_000 }, () => {
  it("refuses a wrong proof, a stale proof and a missing leaf: nothing is written", async () => {
    const w = await cnftWorld();
    const { loan, leaf } = await openLoan(w);
    w.h.advance(DAY);
    const fresh = await moveIx(w, loan, leaf);
    const proofAt = (fresh.accounts ?? []).length - 3;
    // a wrong proof node
    const junk = (await generateKeyPairSigner()).address;
    const wrong = (fresh.accounts ?? []).map((m, i) => (i === proofAt ? { ...m, address: junk } : m));
    await expectLeafRefused(w, { ...fresh, accounts: wrong }, w.borrower);
    expectNothingMoved(w, loan, fresh.loan);
    // hashes of another leaf (the data hash the old loan's leaf does not commit to)
    const other = await mintLeaf(w);
    const afterMint = await moveIx(w, loan, leaf); // a proof fresh again after the mint
    const lie = Uint8Array.from(afterMint.data ?? []);
    lie.set(other.dataHash, 124 + 32);
    await expectLeafRefused(w, { ...afterMint, data: lie }, w.borrower);
    expectNothingMoved(w, loan, afterMint.loan);
    // a proof taken before a sibling leaf changed, sent with the current root
    const before = await moveIx(w, loan, leaf);
    await changeOtherLeaves(w);
    const now = await moveIx(w, loan, leaf);
    const stale = Uint8Array.from(before.data ?? []);
    stale.set(w.tree.root, 124);
    const beforeProof = (before.accounts ?? []).slice(-3);
    const nowProof = (now.accounts ?? []).slice(-3);
    expect(beforeProof.some((m, i) => m.address !== nowProof[i]!.address)).toBe(true);
    await expectLeafRefused(w, { ...before, data: stale }, w.borrower);
    expectNothingMoved(w, loan, before.loan);
    // the terms alone (no root, no hashes): refused before anything moves; a classic loan's Extend with them too
    await w.h.expectCode(
      [{ ...now, data: (now.data ?? new Uint8Array()).slice(0, 124) }],
      E.InvalidInstruction,
      w.borrower,
    );
    expectNothingMoved(w, loan, now.loan);
    const classic = await nftLoanIxFor(w, {
      mint: w.nft.mint,
      account: w.nft.account,
      collection: w.collection,
      pool: w.nftPool,
    });
    expectOk(await w.h.trySend([classic], w.borrower));
    const classicExtend = await moveLoanIx(w, {
      mint: w.nft.mint,
      collection: w.collection,
      oldLoan: classic.loan,
      oldPool: w.nftPool,
    });
    const padded = Uint8Array.from([...(classicExtend.data ?? []), ...new Uint8Array(96)]);
    await w.h.expectCode([{ ...classicExtend, data: padded }], E.InvalidInstruction, w.borrower);
    expect(loanOf(w, classic.loan).status).toBe("Ongoing");
    // the proof cut short: the leaf does not verify
    const short = { ...now, accounts: (now.accounts ?? []).slice(0, -1) };
    await expectLeafRefused(w, short, w.borrower);
    expectNothingMoved(w, loan, now.loan);
  });

  it("extends after other leaves of the tree changed (a fresh proof), then refinances to another lender; the leaf passes loan to loan and ends with the last pool's owner", async () => {
    const w = await cnftWorld();
    const { loan, leaf } = await openLoan(w);
    await changeOtherLeaves(w);
    w.h.advance(DAY);
    const bankBefore = bankOf(w);
    const extend = await moveIx(w, loan, leaf);
    const size = await wireSize(w.h, [extend], w.borrower);
    const extended = expectOk(await w.h.trySend([extend], w.borrower));
    console.log(`cNFT extend: ${extended.computeUnits} CU, ${size} B (limit 1,232)`);
    expect(size).toBeLessThanOrEqual(1232);
    moved(leaf, extend.loan);
    expectRoot(w, w.tree); // the leaf's owner and delegate are the new loan PDA
    const old = loanOf(w, loan);
    expect([old.status, old.closedBy, old.extendedTo]).toEqual(["Repaid", "Extended", extend.loan]);
    const next = loanOf(w, extend.loan);
    expect([next.status, next.nftType, next.escrow, next.collateralMint, next.collection]).toEqual([
      "Ongoing",
      "CompressedNft",
      w.tree.address,
      leaf.asset,
      w.glass,
    ]);
    expect(next.previousLoan).toBe(loan);
    // the new loan records the leaf's nonce and the PDA bumps (bytes 385-391) as TakeLoan did
    expect(Array.from(w.h.data(extend.loan).subarray(385, 392))).toEqual(
      Array.from(w.h.data(loan).subarray(385, 392)),
    );
    expect(poolOf(w, w.cnftPool).currentLoans).toBe(1n);
    expect(bankOf(w).ongoingLoans).toBe(bankBefore.ongoingLoans);
    // the old loan can end no more
    const again = await moveIx(w, loan, leaf);
    await w.h.expectCode([again], E.LoanNotOngoing, w.borrower);

    // to another lender's pool listing the collection, after more leaves changed
    const other = await otherLenderPool(w, w.glass);
    await changeOtherLeaves(w);
    w.h.advance(DAY);
    const refinance = await moveIx(w, extend.loan, leaf, other);
    const refinanceSize = await wireSize(w.h, [computeLimit(400_000), refinance], w.borrower);
    const refinanced = expectOk(await w.h.trySend([refinance], w.borrower));
    console.log(
      `cNFT refinance: ${refinanced.computeUnits} CU, ${refinanceSize} B with a compute-unit limit`,
    );
    expect(refinanceSize).toBeLessThanOrEqual(1232);
    moved(leaf, refinance.loan);
    expectRoot(w, w.tree);
    expect(loanOf(w, extend.loan).closedBy).toBe("Refinanced");
    expect(loanOf(w, refinance.loan).pool).toBe(other.pool);

    // unpaid past expiry + grace: the leaf goes to the new pool's owner
    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    const liq = await liquidateIx(w, liquidator, refinance.loan, leaf, {
      pool: other.pool,
      bank: other.bank,
      owner: other.lender.address,
    });
    expectOk(await w.h.trySend([liq], liquidator));
    moved(leaf, other.lender.address);
    expectRoot(w, w.tree);
    expect(loanOf(w, refinance.loan).status).toBe("Liquidated");
  });
});
