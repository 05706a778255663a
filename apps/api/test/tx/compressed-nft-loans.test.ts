// Loans against a compressed NFT (Bubblegum V1 leaf of the demo "Cistern Shells" tree) through the API on the
// localnet (the real Bubblegum, SPL Account Compression and Noop): quote and take-loan resolve the asset id through
// the localnet's DAS, the builder takes a fresh proof at build time, the loan is visible as CompressedNft, extend moves
// the leaf to the new loan, repay returns it, and the keeper's liquidation moves another one to the pool owner; ownership read with DAS getAsset.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findBankPda, findPoolPda } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { createLiquidationKeeper } from "../../src/tx/keeper/liquidation-keeper.ts";
import { dasOwner as dasOwnerAt } from "../helpers/das-owner.ts";
import { DEMO_PRICES } from "../helpers/fixed-valuation.ts";
import { DEMO_COMPRESSED_COLLECTION, writeCatalogWithShells } from "../helpers/nft-standards-catalog.ts";
import {
  advanceClock,
  buildSignSend,
  createWorldIndexer,
  fundedWallet,
  post,
  signAll,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const SHELLS = DEMO_COMPRESSED_COLLECTION;
const quiet = { info: () => {}, warn: () => {} };
const wireBytes = (b64: string) => Buffer.from(b64, "base64").length;

describe("loans against a compressed NFT through the API (real Bubblegum, DAS from the localnet's chain)", () => {
  let w: TxWorld;
  let dir: string;
  let lender: KeyPairSigner;
  let pool: Address;
  const figures: string[] = [];

  const dasOwner = (assetId: string) => dasOwnerAt(w.net.rpcUrl, assetId);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-cnft-"));
    w = await startTxWorld({
      env: { CATALOG_FILE: writeCatalogWithShells(dir) },
      prices: {
        tokens: DEMO_PRICES.tokens,
        collections: { ...DEMO_PRICES.collections, [SHELLS.collectionId]: 10_000_000_000n },
      },
    });
    lender = (await fundedWallet(w.net)).signer;
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "5000000000",
        mint: USDC_MINT,
        seed: "9",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [{ collection: SHELLS.collectionId, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(created.sent.error).toBeUndefined();
    pool = (await findPoolPda(w.programId, lender.address, 9n))[0];
    // the protocol's lookup table (Bubblegum, Compression and Noop among its addresses)
    await ensureProtocolLookupTable(w.tx, lender);
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    console.log(figures.join("\n"));
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function borrow(borrower: KeyPairSigner, nftMint: string) {
    const quote = await post(w.app, "/nft/quote", { nftMint, duration: DAY, borrower: borrower.address });
    expect(quote.status).toBe(200);
    expect(quote.body.pool).toBe(pool);
    const r = await buildSignSend(
      w.app,
      "/nft/take-loan",
      { borrower: borrower.address, nftMint, duration: DAY, amount: "100000000", pool },
      [borrower],
    );
    expect(r.sent.error).toBeUndefined();
    return { loan: r.built.metadata.loan as Address, built: r.built };
  }

  it("refuses a leaf the borrower does not own, before anything is built", async () => {
    const a = await fundedWallet(w.net);
    const b = await fundedWallet(w.net);
    const leaf = a.given.compressedNfts[0]!.assetId;
    const r = await post(w.app, "/nft/take-loan", {
      borrower: b.signer.address,
      nftMint: leaf,
      duration: DAY,
      amount: "100000000",
      pool,
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("does not own compressed NFT");
    expect(await dasOwner(leaf)).toBe(a.signer.address);
  }, 120_000);

  it("a proof gone stale between build and landing: the sender answers the tree changed, nothing is lent", async () => {
    const b = await fundedWallet(w.net);
    const leaf = b.given.compressedNfts[0]!.assetId;
    const body = { borrower: b.signer.address, nftMint: leaf, duration: DAY, amount: "100000000", pool };
    // two take-loans built against the same proof; the first lands and moves the leaf, so the second's proof is stale
    const second = await post(w.app, "/nft/take-loan", body);
    expect(second.status).toBe(200);
    const first = await buildSignSend(w.app, "/nft/take-loan", body, [b.signer]);
    expect(first.sent.error).toBeUndefined();
    const built = second.body as unknown as Parameters<typeof signAll>[0];
    const [signed] = await signAll(built, [b.signer]);
    const sent = await post(w.app, "/send-cos-transaction", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(sent.body.error).toMatchObject({
      code: 5005,
      name: "TRANSACTION_SEND_STALE_PROOF",
      message: "The NFT's tree changed since this transaction was built. Please try again.",
    });
    expect(await dasOwner(leaf)).toBe(first.built.metadata.loan);
    const [never] = await w.tx.state.getLoans([
      (built as unknown as { metadata: { loan: Address } }).metadata.loan,
    ]);
    expect(never ?? null).toBeNull();
  }, 180_000);

  it("take (the loan PDA owns the leaf), visible as CompressedNft, extend with a fresh proof (the new loan PDA owns it), repay returns it", async () => {
    const b = await fundedWallet(w.net);
    const given = b.given.compressedNfts[0]!;
    expect(given.collectionId).toBe(SHELLS.collectionId);
    const leaf = given.assetId;
    expect(await dasOwner(leaf)).toBe(b.signer.address);
    const { loan, built } = await borrow(b.signer, leaf);
    expect(built.metadata.loanType).toBe("CompressedNft");
    const takeBytes = wireBytes(built.transactions[0]!);
    figures.push(`cNFT take-loan: ${takeBytes} B, CU limit ${(built.metadata.computeUnits as number[])[0]}`);
    expect(takeBytes).toBeLessThanOrEqual(1232);
    expect(await dasOwner(leaf)).toBe(loan);
    const [onChain] = await w.tx.state.getLoans([loan]);
    expect(onChain).toMatchObject({
      status: "Ongoing",
      nftType: "CompressedNft",
      escrow: given.tree,
      collateralMint: leaf,
    });

    const indexer = createWorldIndexer(w);
    await indexer.reconcile();
    const listed = (
      await w.app.inject({ method: "GET", url: `/loan/user?pubkey=${b.signer.address}` })
    ).json() as { loans: { pubkey: string; loanType: string }[] };
    expect(listed.loans.find((l) => l.pubkey === loan)?.loanType).toBe("CompressedNft");

    // another leaf of the tree changes (a new wallet's faucet mints one): extend takes a fresh proof at build time;
    // the old loan PDA transfers the leaf to the new one
    await fundedWallet(w.net);
    await w.net.fundWallet(b.signer.address, { tokens: [{ mint: USDC_MINT, amount: 20_000_000n }] });
    const extended = await buildSignSend(
      w.app,
      "/nft/extend-loan",
      { borrower: b.signer.address, loan, duration: 2 * DAY },
      [b.signer],
    );
    expect(extended.sent.error).toBeUndefined();
    const next = extended.built.metadata.loan as Address;
    const extendBytes = wireBytes(extended.built.transactions[0]!);
    figures.push(
      `cNFT extend: ${extendBytes} B, CU limit ${(extended.built.metadata.computeUnits as number[])[0]}`,
    );
    expect(extendBytes).toBeLessThanOrEqual(1232);
    expect(await dasOwner(leaf)).toBe(next);
    expect((await w.tx.state.getLoans([loan]))[0]?.status).toBe("Repaid");
    expect((await w.tx.state.getLoans([next]))[0]).toMatchObject({
      status: "Ongoing",
      nftType: "CompressedNft",
      escrow: given.tree,
      collateralMint: leaf,
    });
    // the tree changes again: the repay's proof is taken fresh
    await fundedWallet(w.net);
    const repaid = await buildSignSend(
      w.app,
      "/nft/repay-loan",
      { borrower: b.signer.address, loans: [next] },
      [b.signer],
    );
    expect(repaid.sent.error).toBeUndefined();
    figures.push(
      `cNFT repay: ${wireBytes(repaid.built.transactions[0]!)} B, CU limit ${(repaid.built.metadata.computeUnits as number[])[0]}`,
    );
    expect((await w.tx.state.getLoans([next]))[0]?.status).toBe("Repaid");
    expect(await dasOwner(leaf)).toBe(b.signer.address);
  }, 240_000);

  it("default: after a clock jump the keeper moves the leaf to the pool owner", async () => {
    const b = await fundedWallet(w.net);
    const leaf = b.given.compressedNfts[0]!.assetId;
    const { loan } = await borrow(b.signer, leaf);
    await fundedWallet(w.net); // the tree changes again before the liquidation
    await advanceClock(w, DAY + 2 * 3600);
    const keeper = (await fundedWallet(w.net)).signer;
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    expect(round.liquidated.map((l) => l.loan)).toContain(loan);
    const done = round.liquidated.find((l) => l.loan === loan)!;
    const t = await w.tx.app.rpc.call<{
      transaction: [string, string];
      meta: { computeUnitsConsumed: number };
    }>("getTransaction", [
      done.signature,
      { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
    ]);
    figures.push(
      `keeper liquidation of the cNFT: ${wireBytes(t.transaction[0])} B, ${t.meta.computeUnitsConsumed} CU used`,
    );
    expect((await w.tx.state.getLoans([loan]))[0]?.status).toBe("Liquidated");
    expect(await dasOwner(leaf)).toBe(lender.address);
  }, 240_000);

  it("refinance to another lender's cheaper pool with a fresh proof: the new loan PDA owns the leaf", async () => {
    // (last: the cheaper pool it opens would win the quotes of the tests before it)
    const b = await fundedWallet(w.net);
    const leaf = b.given.compressedNfts[0]!.assetId;
    const { loan } = await borrow(b.signer, leaf);
    // another lender lends against the collection at a lower rate
    const other = (await fundedWallet(w.net)).signer;
    const [bank] = await findBankPda(w.programId, other.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: other.address,
        amount: "5000000000",
        mint: USDC_MINT,
        seed: "11",
        param: {
          apr: 1000,
          limits: TEST_POOL_LIMITS,
          collections: [{ collection: SHELLS.collectionId, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [other],
    );
    expect(created.sent.error).toBeUndefined();
    const cheap = (await findPoolPda(w.programId, other.address, 11n))[0];
    w.tx.state.invalidate();
    await fundedWallet(w.net); // the tree changes before the refinance is built
    await w.net.fundWallet(b.signer.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000n }] });
    const moved = await buildSignSend(
      w.app,
      "/nft/refinance-loan",
      { borrower: b.signer.address, loan, pool: cheap },
      [b.signer],
    );
    expect(moved.sent.error).toBeUndefined();
    const next = moved.built.metadata.loan as Address;
    const bytes = wireBytes(moved.built.transactions[0]!);
    figures.push(
      `cNFT refinance: ${bytes} B, CU limit ${(moved.built.metadata.computeUnits as number[])[0]}`,
    );
    expect(bytes).toBeLessThanOrEqual(1232);
    expect(await dasOwner(leaf)).toBe(next);
    expect((await w.tx.state.getLoans([next]))[0]).toMatchObject({
      status: "Ongoing",
      nftType: "CompressedNft",
      pool: cheap,
      collateralMint: leaf,
    });
    expect((await w.tx.state.getLoans([loan]))[0]?.status).toBe("Repaid");
  }, 240_000);
});
