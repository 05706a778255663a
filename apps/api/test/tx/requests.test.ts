import { computeTotalInterest, PROGRAM_ERROR_CODE as P } from "@cistern/protocol";
import { decodeLoanAccount, decodeRequestAccount, findBankPda } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIndexer, type Indexer } from "../../src/indexer/indexer.ts";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import {
  buildSignSend,
  fundedWallet,
  post,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;

async function tokenBalance(w: TxWorld, owner: Address, mint: Address): Promise<bigint> {
  const ata = await findAssociatedTokenAddress(owner, mint);
  const [account] = await w.tx.state.getAccounts([ata]);
  return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
}

describe("loan requests: post, list, fill, cancel on localnet", () => {
  let w: TxWorld;
  let indexer: Indexer;
  let borrower: KeyPairSigner;
  let lender: KeyPairSigner;
  let nfts: { mint: string; collectionId: string }[];
  let request: Address;

  const read = async (address: Address) => {
    const [account] = await w.tx.state.getAccounts([address]);
    return account!.data;
  };
  const list = async (query: string) => {
    await indexer.reconcile();
    const r = await w.app.inject({ url: `/loan-request/list?${query}` });
    expect(r.statusCode, r.body).toBe(200);
    return r.json() as { totalCount: number; requests: Record<string, unknown>[] };
  };
  const postNft = (mint: string, amount = "40000000", maxApr = 4000) =>
    buildSignSend(
      w.app,
      "/nft/post-loan-request",
      { borrower: borrower.address, nftMint: mint, currency: USDC_MINT, amount, duration: 7 * DAY, maxApr },
      [borrower],
    );

  beforeAll(async () => {
    w = await startTxWorld();
    indexer = createIndexer({
      db: w.app.cistern.db,
      rpc: w.app.cistern.rpc,
      wsUrl: "ws://127.0.0.1:9",
      programId: w.programId,
      reconcileIntervalMs: 60_000,
      log: w.app.log,
    });
    const b = await fundedWallet(w.net);
    borrower = b.signer;
    nfts = b.given.nfts;
    lender = (await fundedWallet(w.net)).signer;
    // the lender's nft-pool lists some other collection: a fill does not depend on the pool's offer
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "500000000",
        mint: USDC_MINT,
        seed: "1",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [{ collection: nfts.at(-1)!.collectionId, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(created.sent.error).toBeUndefined();
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("posts a request: the NFT is escrowed and the Lend list shows it with its implied LTV", async () => {
    const posted = await postNft(nfts[0]!.mint);
    expect(posted.sent.error).toBeUndefined();
    expect(posted.built.kind).toBe("Normal");
    request = posted.built.metadata.request as Address;
    expect(decodeRequestAccount(await read(request)).status).toBe("Open");
    expect(await tokenBalance(w, borrower.address, nfts[0]!.mint as Address)).toBe(0n);
    const open = await list(`status=open&currency=${USDC_MINT}`);
    expect(open.totalCount).toBe(1);
    const view = open.requests[0]!;
    expect(view).toMatchObject({
      pubkey: request,
      borrower: borrower.address,
      collection: nfts[0]!.collectionId,
      principal: "40000000",
      duration: 7 * DAY,
      maxApr: 4000,
      status: "Open",
      loan: null,
      interestAtMaxApr: computeTotalInterest({
        aprBps: 4000,
        principal: 40_000_000n,
        durationSeconds: 7 * DAY,
      }).toString(),
    });
    // the demo collections have a floor: the value and the LTV are shown
    expect(BigInt(view.collateralValue as string)).toBeGreaterThan(0n);
    expect(view.ltvBps).toBe(
      Number(
        (40_000_000n * 10_000n + BigInt(view.collateralValue as string) - 1n) /
          BigInt(view.collateralValue as string),
      ),
    );
    expect((await list(`borrower=${borrower.address}`)).totalCount).toBe(1);
    expect((await list(`collection=${nfts[1]!.collectionId}&status=open`)).totalCount).toBe(
      nfts[1]!.collectionId === nfts[0]!.collectionId ? 1 : 0,
    );
  });

  it("refuses bad terms with the program's codes and leaves nothing half-written", async () => {
    const tooLong = await post(w.app, "/nft/post-loan-request", {
      borrower: borrower.address,
      nftMint: nfts[1]!.mint,
      currency: USDC_MINT,
      amount: "1000",
      duration: 3600,
      maxApr: 1000,
    });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.code).toBe(P.InvalidDuration);
    const notHeld = await post(w.app, "/nft/post-loan-request", {
      borrower: lender.address,
      nftMint: nfts[1]!.mint,
      currency: USDC_MINT,
      amount: "1000",
      duration: DAY,
      maxApr: 1000,
    });
    expect(notHeld.status).toBe(400);
    const self = await post(w.app, "/loan-request/fill", { lender: borrower.address, request });
    expect([self.status, self.body.code]).toEqual([422, P.SelfFill]);
    const above = await post(w.app, "/loan-request/fill", { lender: lender.address, request, apr: 4001 });
    expect([above.status, above.body.code]).toEqual([422, P.RequestTermsMismatch]);
    const notARequest = await post(w.app, "/loan-request/fill", {
      lender: lender.address,
      request: USDC_MINT,
    });
    expect(notARequest.status).toBe(400);
    expect(decodeRequestAccount(await read(request)).status).toBe("Open");
  });

  it("a lender fills it: the borrower receives the principal; the loan is a RequestLoan at the fill's APR", async () => {
    const before = await tokenBalance(w, borrower.address, USDC_MINT);
    const filled = await buildSignSend(
      w.app,
      "/loan-request/fill",
      { lender: lender.address, request, apr: 3000 },
      [lender],
    );
    expect(filled.sent.error).toBeUndefined();
    const loan = decodeLoanAccount(await read(filled.built.metadata.loan as Address));
    expect([loan.kind, loan.status, loan.aprBps, loan.principal, loan.borrower]).toEqual([
      "RequestLoan",
      "Ongoing",
      3000,
      40_000_000n,
      borrower.address,
    ]);
    expect((await tokenBalance(w, borrower.address, USDC_MINT)) - before).toBe(40_000_000n);
    const rq = decodeRequestAccount(await read(request));
    expect([rq.status, rq.loan]).toEqual(["Filled", filled.built.metadata.loan]);
    const all = await list(`borrower=${borrower.address}&status=filled`);
    expect(all.requests[0]).toMatchObject({ status: "Filled", loan: filled.built.metadata.loan });
    // a second fill is refused with the program's code
    const again = await post(w.app, "/loan-request/fill", { lender: lender.address, request });
    expect([again.status, again.body.code]).toEqual([422, P.RequestNotOpen]);
  });

  it("the borrower cancels an open request and gets the NFT back; a stranger cannot", async () => {
    const posted = await postNft(nfts[1]!.mint, "10000000", 1500);
    const open = posted.built.metadata.request as Address;
    const stranger = await post(w.app, "/loan-request/cancel", { borrower: lender.address, request: open });
    expect([stranger.status, stranger.body.code]).toEqual([422, P.Unauthorized]);
    const cancelled = await buildSignSend(
      w.app,
      "/loan-request/cancel",
      { borrower: borrower.address, request: open },
      [borrower],
    );
    expect(cancelled.sent.error).toBeUndefined();
    expect(decodeRequestAccount(await read(open)).status).toBe("Cancelled");
    expect(await tokenBalance(w, borrower.address, nfts[1]!.mint as Address)).toBe(1n);
    const fill = await post(w.app, "/loan-request/fill", { lender: lender.address, request: open });
    expect([fill.status, fill.body.code]).toEqual([422, P.RequestNotOpen]);
    expect((await list(`status=open&borrower=${borrower.address}`)).totalCount).toBe(0);
  });
});
