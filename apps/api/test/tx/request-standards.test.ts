// Loan requests against a Metaplex Core asset, a compressed NFT and a programmable NFT through the API on the localnet
// (the real Core, Bubblegum, SPL Account Compression and Noop, Token Metadata and Token Auth Rules; DAS served from the
// localnet's chain): the request PDA owns the asset, the leaf or the pNFT (in its associated token account) while it is open, a second wallet's fill moves it to the loan PDA (a leaf with a proof read from DAS at
// build time), a cancel returns it.
// The chain (the asset's owner, the leaf's owner through DAS getAsset) is read after each step.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROGRAM_ERROR_CODE as P } from "@cistern/protocol";
import {
  decodeBankAccount,
  decodeCoreAsset,
  decodeLoanAccount,
  decodeRequestAccount,
  findAssociatedTokenPda,
  findBankPda,
  getPlaceBidInstruction,
} from "@cistern/sdk";
import { type Address, getAddressDecoder, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { createLiquidationKeeper } from "../../src/tx/keeper/liquidation-keeper.ts";
import { dasOwner as dasOwnerAt } from "../helpers/das-owner.ts";
import {
  ALL_STANDARDS_PRICES,
  DEMO_CORE_COLLECTION,
  DEMO_PNFT_COLLECTION,
  writeCatalogWithAllStandards,
} from "../helpers/nft-standards-catalog.ts";
import {
  advanceClock,
  buildSignSend,
  createNftPool,
  createWorldIndexer,
  fundedWallet,
  post,
  sendAsAdmin,
  signAll,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const quiet = { info: () => {}, warn: () => {} };
const wireBytes = (b64: string) => Buffer.from(b64, "base64").length;

describe("loan requests against a Core asset, a compressed NFT and a programmable NFT through the API", () => {
  let w: TxWorld;
  let dir: string;
  let lender: KeyPairSigner;
  const figures: string[] = [];

  const read = async (a: Address) => (await w.tx.state.getAccounts([a]))[0] ?? null;
  const coreOwner = async (asset: Address) => decodeCoreAsset((await read(asset))!.data)?.owner;
  const dasOwner = (assetId: string) => dasOwnerAt(w.net.rpcUrl, assetId);

  const postBody = (borrower: KeyPairSigner, nftMint: string) => ({
    borrower: borrower.address,
    nftMint,
    currency: USDC_MINT,
    amount: "20000000",
    duration: 7 * DAY,
    maxApr: 4000,
  });
  const requestOf = async (request: Address) => decodeRequestAccount((await read(request))!.data);
  /** The owner and amount of a token account, null when it does not exist. */
  const holder = async (account: Address) => {
    const a = await read(account);
    if (a === null) return null;
    return {
      owner: getAddressDecoder().decode(a.data.subarray(32, 64)),
      amount: Buffer.from(a.data).readBigUInt64LE(64),
    };
  };
  /** A new wallet posts a request of its demo pNFT (the request PDA's associated token account holds it). */
  const postPnft = async () => {
    const b = await fundedWallet(w.net);
    const mint = b.given.programmableNfts[0]!.mint as Address;
    const posted = await buildSignSend(w.app, "/nft/post-loan-request", postBody(b.signer, mint), [b.signer]);
    expect(posted.sent.error).toBeUndefined();
    const request = posted.built.metadata.request as Address;
    return { b, mint, request, posted };
  };
  /** `by` fills `request` from its pool `pool` (else its best one of the currency). */
  const fill = async (request: Address, by = lender, pool?: Address) => {
    const filled = await buildSignSend(
      w.app,
      "/loan-request/fill",
      { lender: by.address, request, ...(pool !== undefined ? { pool } : {}) },
      [by],
    );
    expect(filled.sent.error).toBeUndefined();
    return filled;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-requests-"));
    w = await startTxWorld({
      nftMarket: true,
      env: { CATALOG_FILE: writeCatalogWithAllStandards(dir) },
      prices: ALL_STANDARDS_PRICES,
    });
    lender = (await fundedWallet(w.net)).signer;
    // the lender's nft-pool lists the Core collection; a fill does not depend on the pool's offer
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "500000000",
        mint: USDC_MINT,
        seed: "3",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [
            { collection: DEMO_CORE_COLLECTION.collectionId, collectionLtv: 5000, exposure: 10000 },
          ],
        },
      },
      [lender],
    );
    expect(created.sent.error).toBeUndefined();
    // the demo rule set lets the lending program hold and receive pNFTs (its PDAs: a request's, a loan's) and the NFT
    // market sell them into a bid
    await w.net.setDemoRuleSetPrograms([w.programId, w.nftMarket!]);
    await ensureProtocolLookupTable(w.tx, lender);
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    console.log(figures.join("\n"));
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("Core: a stranger cannot cancel; a second wallet fills (the loan PDA owns the asset, CoreNft); repay returns it", async () => {
    const b = await fundedWallet(w.net);
    const asset = b.given.coreAssets[0]!.asset as Address;
    const posted = await buildSignSend(w.app, "/nft/post-loan-request", postBody(b.signer, asset), [
      b.signer,
    ]);
    expect(posted.sent.error).toBeUndefined();
    figures.push(`Core post-loan-request: ${wireBytes(posted.built.transactions[0]!)} B`);
    const request = posted.built.metadata.request as Address;
    expect(await coreOwner(asset)).toBe(request);
    const rq = await requestOf(request);
    expect([rq.status, rq.nftType, rq.escrow, rq.collection]).toEqual([
      "Open",
      "CoreNft",
      asset,
      DEMO_CORE_COLLECTION.collectionId,
    ]);
    const stranger = await post(w.app, "/loan-request/cancel", { borrower: lender.address, request });
    expect([stranger.status, stranger.body.code]).toEqual([422, P.Unauthorized]);

    const filled = await buildSignSend(w.app, "/loan-request/fill", { lender: lender.address, request }, [
      lender,
    ]);
    expect(filled.sent.error).toBeUndefined();
    figures.push(`Core fill-loan-request: ${wireBytes(filled.built.transactions[0]!)} B`);
    const loan = filled.built.metadata.loan as Address;
    expect(filled.built.metadata.loanType).toBe("CoreNft");
    expect(await coreOwner(asset)).toBe(loan);
    expect(decodeLoanAccount((await read(loan))!.data)).toMatchObject({
      kind: "RequestLoan",
      nftType: "CoreNft",
      escrow: asset,
      collateralMint: asset,
    });
    expect((await requestOf(request)).status).toBe("Filled");

    await w.net.fundWallet(b.signer.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000n }] });
    const repaid = await buildSignSend(
      w.app,
      "/nft/repay-loan",
      { borrower: b.signer.address, loans: [loan] },
      [b.signer],
    );
    expect(repaid.sent.error).toBeUndefined();
    expect(await coreOwner(asset)).toBe(b.signer.address);
  }, 240_000);

  it("programmable NFT: the request PDA's account holds it, a fill the loan PDA's (nftType 4, ProgrammableNft), repay returns it; another is cancelled; a third's loan the keeper liquidates to the lender", async () => {
    // post -> fill -> repay
    const one = await postPnft();
    figures.push(`pNFT post-loan-request: ${wireBytes(one.posted.built.transactions[0]!)} B`);
    const requestAta = await findAssociatedTokenPda(one.request, one.mint);
    expect(await holder(requestAta)).toEqual({ owner: one.request, amount: 1n });
    expect(await requestOf(one.request)).toMatchObject({
      status: "Open",
      nftType: "ProgrammableNft",
      pnftHeld: true,
      escrow: requestAta,
      collection: DEMO_PNFT_COLLECTION.collectionId,
    });
    const filled = await fill(one.request);
    figures.push(`pNFT fill-loan-request: ${wireBytes(filled.built.transactions[0]!)} B`);
    expect(filled.built.metadata.loanType).toBe("ProgrammableNft");
    const loan = filled.built.metadata.loan as Address;
    const loanAta = await findAssociatedTokenPda(loan, one.mint);
    expect(await holder(loanAta)).toEqual({ owner: loan, amount: 1n });
    expect(await read(requestAta)).toBeNull(); // the request's emptied account closed
    expect(decodeLoanAccount((await read(loan))!.data)).toMatchObject({
      kind: "RequestLoan",
      nftType: "ProgrammableNft",
      pnftHeld: true,
      escrow: loanAta,
    });
    // the indexer, reconciled with the chain, names the loan's standard ProgrammableNft
    await createWorldIndexer(w).reconcile();
    const listed = (
      await w.app.inject({ method: "GET", url: `/loan/user?pubkey=${one.b.signer.address}` })
    ).json() as { loans: { pubkey: string; loanType: string }[] };
    expect(listed.loans.find((l) => l.pubkey === loan)?.loanType).toBe("ProgrammableNft");
    await w.net.fundWallet(one.b.signer.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000n }] });
    const repaid = await buildSignSend(
      w.app,
      "/nft/repay-loan",
      { borrower: one.b.signer.address, loans: [loan] },
      [one.b.signer],
    );
    expect(repaid.sent.error).toBeUndefined();
    figures.push(`pNFT repay of a filled request: ${wireBytes(repaid.built.transactions[0]!)} B`);
    const borrowerAta = await findAssociatedTokenPda(one.b.signer.address, one.mint);
    expect(await holder(borrowerAta)).toEqual({ owner: one.b.signer.address, amount: 1n });
    expect(await read(loanAta)).toBeNull();

    // post -> cancel (a stranger first: refused with the program's code)
    const two = await postPnft();
    const stranger = await post(w.app, "/loan-request/cancel", {
      borrower: lender.address,
      request: two.request,
    });
    expect([stranger.status, stranger.body.code]).toEqual([422, P.Unauthorized]);
    const cancelled = await buildSignSend(
      w.app,
      "/loan-request/cancel",
      { borrower: two.b.signer.address, request: two.request },
      [two.b.signer],
    );
    expect(cancelled.sent.error).toBeUndefined();
    figures.push(`pNFT cancel-loan-request: ${wireBytes(cancelled.built.transactions[0]!)} B`);
    expect(await holder(await findAssociatedTokenPda(two.b.signer.address, two.mint))).toEqual({
      owner: two.b.signer.address,
      amount: 1n,
    });
    expect((await requestOf(two.request)).status).toBe("Cancelled");

    // post -> fill -> unpaid past expiry + grace: the keeper liquidates it to the lender
    const three = await postPnft();
    const third = (await fill(three.request)).built.metadata.loan as Address;
    await advanceClock(w, 7 * DAY + 2 * DAY);
    const keeper = (await fundedWallet(w.net)).signer;
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    expect(round.liquidated.map((l) => l.loan)).toContain(third);
    expect(await holder(await findAssociatedTokenPda(lender.address, three.mint))).toEqual({
      owner: lender.address,
      amount: 1n,
    });
    expect((await w.tx.state.getLoans([third]))[0]?.status).toBe("Liquidated");
  }, 360_000);

  it("compressed NFT: post, a fill built before other leaves changed lands (the loan PDA owns the leaf); another wallet's request cancels after the tree changed", async () => {
    const b = await fundedWallet(w.net);
    const leaf = b.given.compressedNfts[0]!.assetId;
    const posted = await buildSignSend(w.app, "/nft/post-loan-request", postBody(b.signer, leaf), [b.signer]);
    expect(posted.sent.error).toBeUndefined();
    figures.push(`cNFT post-loan-request: ${wireBytes(posted.built.transactions[0]!)} B`);
    const request = posted.built.metadata.request as Address;
    expect(await dasOwner(leaf)).toBe(request);
    expect((await requestOf(request)).nftType).toBe("CompressedNft");

    // the lender's fill is built, then other leaves of the tree change (new wallets' faucet mints) before it lands:
    // its root is still in the tree's change log, so SPL Account Compression fast-forwards its proof and it lands (a
    // proof that no longer verifies answers 5005 and the client builds again: compressed-nft-loans.test.ts)
    const early = await post(w.app, "/loan-request/fill", { lender: lender.address, request });
    expect(early.status).toBe(200);
    await fundedWallet(w.net);
    await fundedWallet(w.net);
    const built = early.body as unknown as Parameters<typeof signAll>[0];
    const [signed] = await signAll(built, [lender]);
    const sent = await post(w.app, "/send-transaction", {
      kind: built.kind,
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(sent.body.error).toBeUndefined();
    const filled = {
      built: built as unknown as { transactions: string[]; metadata: Record<string, unknown> },
    };
    const fillBytes = wireBytes(filled.built.transactions[0]!);
    figures.push(
      `cNFT fill-loan-request: ${fillBytes} B, CU limit ${(filled.built.metadata.computeUnits as number[] | undefined)?.[0]}`,
    );
    expect(fillBytes).toBeLessThanOrEqual(1232);
    const loan = filled.built.metadata.loan as Address;
    expect(await dasOwner(leaf)).toBe(loan);
    expect(decodeLoanAccount((await read(loan))!.data)).toMatchObject({
      kind: "RequestLoan",
      nftType: "CompressedNft",
      collateralMint: leaf,
    });

    // another wallet's request, cancelled after the tree changed again
    const c = await fundedWallet(w.net);
    const second = c.given.compressedNfts[0]!.assetId;
    const other = await buildSignSend(w.app, "/nft/post-loan-request", postBody(c.signer, second), [
      c.signer,
    ]);
    expect(other.sent.error).toBeUndefined();
    await fundedWallet(w.net);
    const cancelled = await buildSignSend(
      w.app,
      "/loan-request/cancel",
      { borrower: c.signer.address, request: other.built.metadata.request },
      [c.signer],
    );
    expect(cancelled.sent.error).toBeUndefined();
    figures.push(`cNFT cancel-loan-request: ${wireBytes(cancelled.built.transactions[0]!)} B`);
    expect(await dasOwner(second)).toBe(c.signer.address);
    expect((await requestOf(other.built.metadata.request as Address)).status).toBe("Cancelled");
  }, 300_000);

  describe("a filled pNFT request's loan (the loan PDA holds it, nftType 4) ends by extend, refinance or instant sell", () => {
    const PETL = DEMO_PNFT_COLLECTION.collectionId as Address;
    let first: KeyPairSigner;
    let second: KeyPairSigner;
    let firstPool: Address;
    let secondPool: Address;
    const loanOf = async (loan: Address) => decodeLoanAccount((await read(loan))!.data);
    const usdc = async (owner: Address) =>
      (await holder(await findAssociatedTokenPda(owner, USDC_MINT)))?.amount ?? 0n;
    /** What the indexer, reconciled with the chain, answers for `borrower`'s `loan`. */
    const listedLoan = async (borrower: Address, loan: Address) => {
      await createWorldIndexer(w).reconcile();
      const listed = (await w.app.inject({ method: "GET", url: `/loan/user?pubkey=${borrower}` })).json() as {
        loans: { pubkey: string; loanType: string; status: string }[];
      };
      return listed.loans.find((l) => l.pubkey === loan);
    };
    /** A posted pNFT request filled from the first lender's pool: its loan PDA holds the pNFT. */
    const filledLoan = async () => {
      const posted = await postPnft();
      const loan = (await fill(posted.request, first, firstPool)).built.metadata.loan as Address;
      expect(await holder(await findAssociatedTokenPda(loan, posted.mint))).toEqual({
        owner: loan,
        amount: 1n,
      });
      return { ...posted, loan };
    };
    const figure = (what: string, built: { transactions: string[]; metadata: Record<string, unknown> }) =>
      figures.push(
        `${what}: ${wireBytes(built.transactions[0]!)} B, CU limit ${(built.metadata.computeUnits as number[] | undefined)?.[0]}`,
      );

    beforeAll(async () => {
      const [a, b] = await Promise.all([fundedWallet(w.net), fundedWallet(w.net)]);
      [first, second] = [a.signer, b.signer];
      // two lenders whose pools lend against the pNFT collection (an extension and a refinance take the pool's terms)
      firstPool = await createNftPool(w, first, {
        seed: 1,
        mint: USDC_MINT,
        amountBaseUnits: 500_000_000n,
        collections: [PETL],
      });
      secondPool = await createNftPool(w, second, {
        seed: 1,
        mint: USDC_MINT,
        amountBaseUnits: 500_000_000n,
        collections: [PETL],
      });
    }, 120_000);

    it("extend: the new loan PDA's account holds the pNFT, the old loan ends Extended and its account closes", async () => {
      const { b, mint, loan } = await filledLoan();
      const extended = await buildSignSend(
        w.app,
        "/nft/extend-loan",
        { borrower: b.signer.address, loan, duration: 14 * DAY },
        [b.signer],
      );
      expect(extended.sent.error).toBeUndefined();
      figure("pNFT request loan extend", extended.built);
      expect(wireBytes(extended.built.transactions[0]!)).toBeLessThanOrEqual(1232);
      const next = extended.built.metadata.loan as Address;
      expect(extended.built.metadata.pool).toBe(firstPool);
      const nextAta = await findAssociatedTokenPda(next, mint);
      expect(await holder(nextAta)).toEqual({ owner: next, amount: 1n });
      expect(await read(await findAssociatedTokenPda(loan, mint))).toBeNull();
      expect(await loanOf(loan)).toMatchObject({ status: "Repaid", closedBy: "Extended", extendedTo: next });
      expect(await loanOf(next)).toMatchObject({
        status: "Ongoing",
        nftType: "ProgrammableNft",
        pnftHeld: true,
        escrow: nextAta,
        pool: firstPool,
        durationSeconds: BigInt(14 * DAY),
        previousLoan: loan,
      });
      expect(await listedLoan(b.signer.address, next)).toMatchObject({ loanType: "ProgrammableNft" });
    }, 240_000);

    it("refinance: the second lender's new loan PDA holds the pNFT, the old loan ends Refinanced, the first lender repaid", async () => {
      const { b, mint, loan } = await filledLoan();
      const [firstBank] = await findBankPda(w.programId, first.address, USDC_MINT);
      const available = async () => decodeBankAccount((await read(firstBank))!.data).availableLiquidity;
      const before = await available();
      const moved = await buildSignSend(
        w.app,
        "/nft/refinance-loan",
        { borrower: b.signer.address, loan, pool: secondPool },
        [b.signer],
      );
      expect(moved.sent.error).toBeUndefined();
      figure("pNFT request loan refinance", moved.built);
      const next = moved.built.metadata.loan as Address;
      const nextAta = await findAssociatedTokenPda(next, mint);
      expect(await holder(nextAta)).toEqual({ owner: next, amount: 1n });
      expect(await read(await findAssociatedTokenPda(loan, mint))).toBeNull();
      const old = await loanOf(loan);
      expect(old).toMatchObject({ status: "Repaid", closedBy: "Refinanced", extendedTo: next });
      expect(await available()).toBeGreaterThanOrEqual(before + old.principal);
      expect(await loanOf(next)).toMatchObject({
        status: "Ongoing",
        nftType: "ProgrammableNft",
        pnftHeld: true,
        escrow: nextAta,
        pool: secondPool,
        bank: (await findBankPda(w.programId, second.address, USDC_MINT))[0],
        previousLoan: loan,
      });
      expect(await listedLoan(b.signer.address, next)).toMatchObject({ loanType: "ProgrammableNft" });
    }, 240_000);

    it("instant sell: the bidder holds the pNFT, the loan ends Sold, the borrower keeps the bid less what was owed", async () => {
      const { b, mint, loan } = await filledLoan();
      const bidder = (await fundedWallet(w.net)).signer;
      const price = 30_000_000n; // 30 USDC against 20 lent
      await sendAsAdmin(w.app, w.tx, bidder, [
        await getPlaceBidInstruction({
          programAddress: w.nftMarket!,
          bidder: bidder.address,
          nonce: 1n,
          collection: PETL,
          currencyMint: USDC_MINT,
          bidderCurrencyAccount: await findAssociatedTokenPda(bidder.address, USDC_MINT),
          price,
        }),
      ]);
      const quote = await post(w.app, "/nft/instant-sell-quote", { borrower: b.signer.address, loan });
      expect(quote.status, JSON.stringify(quote.body)).toBe(200);
      expect(quote.body).toMatchObject({ bidPrice: price.toString(), collection: PETL });
      const before = await usdc(b.signer.address);
      const sold = await buildSignSend(
        w.app,
        "/nft/instant-sell",
        { borrower: b.signer.address, loan, minPrice: price.toString() },
        [b.signer],
      );
      expect(sold.sent.error).toBeUndefined();
      figure("pNFT request loan instant sell", sold.built);
      expect(wireBytes(sold.built.transactions[0]!)).toBeLessThanOrEqual(1232);
      expect(await holder(await findAssociatedTokenPda(bidder.address, mint))).toEqual({
        owner: bidder.address,
        amount: 1n,
      });
      expect(await read(await findAssociatedTokenPda(loan, mint))).toBeNull();
      const after = await loanOf(loan);
      expect(after).toMatchObject({ status: "Sold", closedBy: "Sold", nftType: "ProgrammableNft" });
      expect(after.repaidAmount).toBeGreaterThan(after.principal);
      expect(await usdc(b.signer.address)).toBe(before + price - after.repaidAmount);
      expect(await listedLoan(b.signer.address, loan)).toMatchObject({ loanType: "ProgrammableNft" });
    }, 240_000);
  });
});
