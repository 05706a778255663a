// Loan requests against a Metaplex Core asset and a compressed NFT through the API on the localnet (the real Core,
// Bubblegum, SPL Account Compression and Noop; DAS served from the localnet's chain): the request PDA owns the asset
// or the leaf while it is open, a second wallet's fill moves it to the loan PDA (a leaf with a proof read from DAS at
// build time), a cancel returns it.
// The chain (the asset's owner, the leaf's owner through DAS getAsset) is read after each step.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROGRAM_ERROR_CODE as P } from "@cistern/protocol";
import { decodeCoreAsset, decodeLoanAccount, decodeRequestAccount, findBankPda } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/protocol-lookup-table.ts";
import { dasOwner as dasOwnerAt } from "../helpers/das-owner.ts";
import {
  ALL_STANDARDS_PRICES,
  DEMO_CORE_COLLECTION,
  writeCatalogWithAllStandards,
} from "../helpers/nft-standards-catalog.ts";
import {
  buildSignSend,
  fundedWallet,
  post,
  signAll,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const wireBytes = (b64: string) => Buffer.from(b64, "base64").length;

describe("loan requests against a Core asset and a compressed NFT through the API (real Core and Bubblegum)", () => {
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

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-requests-"));
    w = await startTxWorld({
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
    await ensureProtocolLookupTable(w.tx, lender);
    await new Promise((r) => setTimeout(r, 500));
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

  it("a programmable NFT's request is refused in one sentence before anything is built", async () => {
    const b = await fundedWallet(w.net);
    const r = await post(
      w.app,
      "/nft/post-loan-request",
      postBody(b.signer, b.given.programmableNfts[0]!.mint),
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      "A loan request against a programmable NFT is not available: its lock cannot pass to the lender's loan without your signature; borrow from a pool instead",
    );
  }, 120_000);

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
});
