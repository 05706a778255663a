// Loans against compressed NFTs (CompressedNft, nftType 3, Bubblegum V1) through the real Bubblegum, SPL Account
// Compression and SPL Noop programs (the vendored binaries at their mainnet ids): the borrower transfers the leaf to
// the loan PDA at TakeLoan (Bubblegum Transfer, with the proof), the loan PDA transfers it back at Repay, or to the
// pool owner at Liquidate. The test keeps its own copy of each tree (leaves hashed as Bubblegum hashes them) and
// checks it against the root the chain holds after every step.
import { transferLeaf } from "@cistern/localnet";
import { LENDING_ERROR_CODE } from "@cistern/sdk";
import { generateKeyPairSigner, getAddressDecoder } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  cnftWorld,
  expectLeafRefused,
  expectRoot,
  expectUntouched,
  liquidateCnftIx,
  mintLeaf,
  moved,
  repayCnftIx,
  ro,
  SYSTEM,
  takeCnftIx,
  wr,
} from "./support/cnft-world.ts";
import { expectOk, kit, wireSize } from "./support/kit.ts";
import { DAY, loanOf, nftLoanIxFor, repayIx } from "./support/world.ts";

const dec = getAddressDecoder();
const E = LENDING_ERROR_CODE;

describe("compressed NFT custody (Bubblegum V1)", () => {
  it("takes a loan (the leaf goes to the loan PDA), repays and liquidates with fresh proofs after other leaves changed", async () => {
    const w = await cnftWorld();
    const a = await mintLeaf(w);
    const b = await mintLeaf(w);
    const take = await takeCnftIx(w, a);
    const size = await wireSize(w.h, [take], w.borrower);
    const out = expectOk(await w.h.trySend([take], w.borrower));
    console.log(`cNFT take-loan: ${out.computeUnits} CU, ${size} B (limit 1,232)`);
    expect(size).toBeLessThanOrEqual(1232);
    expect(out.computeUnits).toBeLessThanOrEqual(200_000n);
    moved(a, take.loan);
    expectRoot(w, w.tree);
    const loan = loanOf(w, take.loan);
    expect(w.h.data(take.loan)[7]).toBe(3); // nftType CompressedNft
    expect(loan.escrow).toBe(w.tree.address);
    expect(loan.collateralMint).toBe(a.asset);
    expect(loan.collection).toBe(w.glass);

    const takeB = await takeCnftIx(w, b);
    expectOk(await w.h.trySend([takeB], w.borrower));
    moved(b, takeB.loan);

    // other leaves of the tree change (a mint, a transfer by its owner): a's proof at TakeLoan is stale
    const stranger = await w.h.wallet();
    const c = await mintLeaf(w, { owner: stranger.address });
    const give = transferLeaf({
      tree: w.tree.address,
      owner: stranger.address,
      delegate: stranger.address,
      newOwner: w.borrower.address,
      root: dec.decode(w.tree.root),
      dataHash: dec.decode(c.dataHash),
      creatorHash: dec.decode(c.creatorHash),
      nonce: BigInt(c.nonce),
      index: c.nonce,
      proof: w.tree.proof(c.nonce),
    });
    expectOk(await w.h.trySend([kit(give, [stranger])], stranger));
    moved(c, w.borrower.address);
    expectRoot(w, w.tree);

    w.h.advance(DAY);
    // hashes the leaf does not commit to: Bubblegum refuses the transfer, nothing is repaid
    await expectLeafRefused(w, await repayCnftIx(w, take.loan, a, c.dataHash), w.borrower);
    expect(loanOf(w, take.loan).status).toBe("Ongoing");
    const repay = await repayCnftIx(w, take.loan, a);
    const repaid = expectOk(await w.h.trySend([repay], w.borrower));
    console.log(`cNFT repay: ${repaid.computeUnits} CU, ${await wireSize(w.h, [repay], w.borrower)} B`);
    moved(a, w.borrower.address);
    expectRoot(w, w.tree);
    expect(loanOf(w, take.loan).status).toBe("Repaid");

    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    const liq = await liquidateCnftIx(w, liquidator, takeB.loan, b);
    const liquidated = expectOk(await w.h.trySend([liq], liquidator));
    console.log(`cNFT liquidate: ${liquidated.computeUnits} CU, ${await wireSize(w.h, [liq], liquidator)} B`);
    moved(b, w.lender.address);
    expectRoot(w, w.tree);
    expect(loanOf(w, takeB.loan).status).toBe("Liquidated");
  }, 120_000);

  it("refuses a wrong proof, a proof of another tree, another tree's account and a leaf owned by someone else", async () => {
    const w = await cnftWorld();
    const a = await mintLeaf(w);
    await mintLeaf(w, { tree: w.otherTree });
    const other = await mintLeaf(w, { tree: w.otherTree });

    const junk = (await generateKeyPairSigner()).address;
    const wrongProof = await takeCnftIx(w, a, { proof: [junk, ...a.tree.proof(a.nonce).slice(1)] });
    await expectLeafRefused(w, wrongProof, w.borrower);
    expectUntouched(w, wrongProof.loan, a);

    const otherProof = await takeCnftIx(w, a, { proof: w.otherTree.proof(a.nonce) });
    await expectLeafRefused(w, otherProof, w.borrower);
    expectUntouched(w, otherProof.loan, a);

    // the other tree's account with this tree's asset id: the asset id is not that tree's
    await w.h.expectCode(
      [await takeCnftIx(w, a, { treeAccount: w.otherTree.address })],
      E.InvalidPda,
      w.borrower,
    );
    // this tree's asset id with the other tree's leaf data and proof: no such leaf in this tree
    const mixed = await takeCnftIx(w, { ...a, args: other.args }, { proof: w.otherTree.proof(other.nonce) });
    await expectLeafRefused(w, mixed, w.borrower);
    expectUntouched(w, mixed.loan, a);

    const stranger = await w.h.wallet();
    const theirs = await mintLeaf(w, { owner: stranger.address });
    const notOwned = await takeCnftIx(w, theirs);
    await expectLeafRefused(w, notOwned, w.borrower);
    expectUntouched(w, notOwned.loan, theirs);

    // the programs are checked by id
    await w.h.expectCode([await takeCnftIx(w, a, { bubblegum: junk })], E.InvalidProgramAccount, w.borrower);
  }, 120_000);

  it("refuses metadata claiming a verified collection the leaf does not commit to, and a collection outside the pool", async () => {
    const w = await cnftWorld();
    // minted naming the pool's collection unverified: the claim that it is verified hashes to another leaf
    const unverified = await mintLeaf(w, { verified: false });
    const claimed = Uint8Array.from(unverified.args);
    const at = claimed.length - 4 - 34 - 2 - 34; // collection Some { verified, key } before uses, version, creators
    expect(claimed[at]).toBe(1);
    claimed[at + 1] = 1;
    const lie = await takeCnftIx(w, unverified, { args: claimed });
    await expectLeafRefused(w, lie, w.borrower);
    expectUntouched(w, lie.loan, unverified);
    // as it is: not verified
    await w.h.expectCode([await takeCnftIx(w, unverified)], E.CollectionNotVerified, w.borrower);
    // no collection at all
    const loose = await mintLeaf(w, { collection: null });
    await w.h.expectCode([await takeCnftIx(w, loose)], E.CollectionNotVerified, w.borrower);
    // a verified collection the pool does not list, attested as itself or as the pool's
    const outside = await mintLeaf(w, { collection: w.otherCollection });
    await w.h.expectCode(
      [await takeCnftIx(w, outside, { attested: w.otherCollection })],
      E.CollectionNotInPool,
      w.borrower,
    );
    await w.h.expectCode([await takeCnftIx(w, outside)], E.CollectionNotInPool, w.borrower);
    // metadata that does not parse
    await w.h.expectCode(
      [await takeCnftIx(w, outside, { args: outside.args.slice(0, outside.args.length - 1) })],
      E.InvalidMetadata,
      w.borrower,
    );
  }, 120_000);

  it("refuses the same leaf in two loans", async () => {
    const w = await cnftWorld();
    const a = await mintLeaf(w);
    const first = await takeCnftIx(w, a);
    expectOk(await w.h.trySend([first], w.borrower));
    moved(a, first.loan);
    // a second loan with a fresh proof: the leaf is the first loan's now, the borrower cannot move it
    const second = await takeCnftIx(w, a);
    expect(second.loan).not.toBe(first.loan);
    await expectLeafRefused(w, second, w.borrower);
    expectUntouched(w, second.loan, a);
    expect(loanOf(w, first.loan).status).toBe("Ongoing");
    // a liquidation before expiry + grace is refused before anything moves
    const early = await liquidateCnftIx(w, await w.h.wallet(), first.loan, a);
    await w.h.expectCode([early], E.NotLiquidatable);
  }, 120_000);

  it("checks the endings' accounts and data against the loan before anything moves", async () => {
    const w = await cnftWorld();
    const a = await mintLeaf(w);
    const take = await takeCnftIx(w, a);
    expectOk(await w.h.trySend([take], w.borrower));
    moved(a, take.loan);
    const repay = await repayCnftIx(w, take.loan, a);
    const accounts = [...(repay.accounts ?? [])];
    // the tag alone: a compressed NFT's ending needs the root and the leaf's hashes
    await w.h.expectCode([{ ...repay, data: repay.data.slice(0, 1) }], E.InvalidInstruction, w.borrower);
    // another tree than the loan's
    const swapped = accounts.map((m, i) => (i === 6 || i === 7 ? wr(w.otherTree.address) : m));
    await w.h.expectCode([{ ...repay, accounts: swapped }], E.AccountMismatch, w.borrower);
    // another tree's config, and a program that is not Bubblegum
    const config = accounts.map((m, i) => (i === 10 ? ro(w.otherTree.config) : m));
    await w.h.expectCode([{ ...repay, accounts: config }], E.InvalidPda, w.borrower);
    const program = accounts.map((m, i) => (i === 11 ? ro(SYSTEM) : m));
    await w.h.expectCode([{ ...repay, accounts: program }], E.InvalidProgramAccount, w.borrower);
    // after expiry + grace: the leaf goes to the pool owner's wallet and nowhere else
    w.h.advance(30n * DAY);
    const liquidator = await w.h.wallet();
    const liq = await liquidateCnftIx(w, liquidator, take.loan, a);
    const elsewhere = (liq.accounts ?? []).map((m, i) => (i === 5 ? ro(liquidator.address) : m));
    await w.h.expectCode([{ ...liq, accounts: elsewhere }], E.AccountMismatch, liquidator);
    expectRoot(w, w.tree);
    expect(loanOf(w, take.loan).status).toBe("Ongoing");
    expectOk(await w.h.trySend([liq], liquidator));
    moved(a, w.lender.address);
    expectRoot(w, w.tree);
    // a classic loan's ending refuses the compressed NFT's 97 bytes
    const classic = await nftLoanIxFor(w, {
      mint: w.nft.mint,
      account: w.nft.account,
      collection: w.collection,
      pool: w.nftPool,
    });
    expectOk(await w.h.trySend([classic], w.borrower));
    const classicRepay = await repayIx(w, classic.loan);
    await w.h.expectCode(
      [{ ...classicRepay, data: new Uint8Array(97).fill(9, 0, 1) }],
      E.InvalidInstruction,
      w.borrower,
    );
  }, 120_000);
});
