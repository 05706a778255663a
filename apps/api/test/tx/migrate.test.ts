/**
 * Upgrading the lending program on a running cluster: pools and loans written by program 1.7 (layout v1) are
 * refused by 1.8 with AccountNeedsMigration until POST /nft/migrate (the owner pays) or the keeper brings them
 * up; then they carry on, with nothing lost.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  createRpcDeployTransport,
  deployProgram,
  findBankPda,
  findPoolPda,
  readKeypairFile,
} from "@cistern/sdk";
import {
  type Address,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  generateKeyPairSigner,
  type KeyPairSigner,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiquidationKeeper } from "../../src/tx/keeper/liquidation-keeper.ts";
import {
  buildSignSend,
  fundedWallet,
  post,
  SO_PATH,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const V17_SO = resolve(import.meta.dirname, "../../../../programs/lending/test/fixtures/lending-v1.7.so");
const DAY = 86_400;
const limits = { minDuration: DAY, maxDuration: 30 * DAY, maxAmountUsd: 100_000, minAmountUsd: 1 };
const silent = { info: () => {}, warn: () => {} };

describe("program upgrade on a cluster: POST /nft/migrate and the keeper", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  const pools: Address[] = [];
  const loans: Address[] = [];

  beforeAll(async () => {
    w = await startTxWorld({ lendingSoPath: V17_SO });
    lender = (await fundedWallet(w.net)).signer;
    const b = await fundedWallet(w.net);
    borrower = b.signer;
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    for (const seed of [1, 2]) {
      const created = await buildSignSend(
        w.app,
        "/nft/create-pool",
        {
          bank,
          owner: lender.address,
          amount: seed === 1 ? "1000000000" : "0",
          mint: USDC_MINT,
          seed: String(seed),
          param: {
            apr: 1000 * seed,
            limits,
            collections: [
              { collection: b.given.nfts[seed - 1]!.collectionId, collectionLtv: 5000, exposure: 10000 },
            ],
          },
        },
        [lender],
      );
      expect(created.sent.error).toBeUndefined();
      const [pool] = await findPoolPda(w.programId, lender.address, BigInt(seed));
      pools.push(pool);
      const taken = await buildSignSend(
        w.app,
        "/nft/take-loan",
        {
          borrower: borrower.address,
          nftMint: b.given.nfts[seed - 1]!.mint,
          duration: 7 * DAY,
          amount: "10000000",
          pool,
        },
        [borrower],
      );
      expect(taken.sent.error).toBeUndefined();
      loans.push((taken.built.metadata as { loan: Address }).loan);
    }
    // the operator upgrades the program in place (same id, same upgrade authority: the localnet faucet)
    const chainDir = join(w.dataDir, "chain");
    const program = await readKeypairFile(join(chainDir, "program-lending-v1.7-keypair.json"));
    expect(program.address).toBe(w.programId);
    const authority = await readKeypairFile(w.net.faucetKeypairPath);
    await deployProgram({
      transport: createRpcDeployTransport({
        rpc: createSolanaRpc(w.net.rpcUrl),
        rpcSubscriptions: createSolanaRpcSubscriptions(w.net.wsUrl),
      }),
      programBytes: new Uint8Array(readFileSync(SO_PATH)),
      program,
      payer: authority,
    });
    // a program upgraded in a slot runs from the next one
    await new Promise((r) => setTimeout(r, 300));
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it("refuses the old loan with the program's code, then migrates the pool and its loan for the owner", async () => {
    const repay = await buildSignSend(
      w.app,
      "/nft/repay-loan",
      { borrower: borrower.address, loans: [loans[0]] },
      [borrower],
    );
    expect(JSON.stringify(repay.sent.error)).toContain("6055");
    expect((await w.tx.state.getPool(pools[0]!))?.layoutVersion).toBe(1);

    // a stranger is not the owner
    const stranger = await generateKeyPairSigner();
    expect((await post(w.app, "/nft/migrate", { pool: pools[0], owner: stranger.address })).status).toBe(400);

    const lamportsBefore = await w.tx.app.rpc.call<{ value: number }>("getBalance", [lender.address]);
    const migrated = await buildSignSend(w.app, "/nft/migrate", { pool: pools[0], owner: lender.address }, [
      lender,
    ]);
    expect(migrated.sent.error).toBeUndefined();
    expect(migrated.built.metadata).toMatchObject({ pool: pools[0], loans: 1 });
    const lamportsAfter = await w.tx.app.rpc.call<{ value: number }>("getBalance", [lender.address]);
    expect(lamportsAfter.value).toBeLessThan(lamportsBefore.value);
    const [pool] = await w.tx.state.getAccounts([pools[0]!]);
    expect(pool?.data.length).toBe(800);
    expect(await w.tx.state.getPool(pools[0]!)).toMatchObject({ layoutVersion: 2, currentLoans: 1n });
    const [loan] = await w.tx.state.getLoans([loans[0]!]);
    expect(loan).toMatchObject({
      layoutVersion: 2,
      status: "Ongoing",
      closedBy: "Open",
      principal: 10_000_000n,
    });

    // again: nothing to do, with the program's code
    const again = await post(w.app, "/nft/migrate", { pool: pools[0], owner: lender.address });
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ code: 6056, name: "NothingToMigrate" });

    // the loan carries on under the new program
    const repaid = await buildSignSend(
      w.app,
      "/nft/repay-loan",
      { borrower: borrower.address, loans: [loans[0]] },
      [borrower],
    );
    expect(repaid.sent.error).toBeUndefined();
    const [closed] = await w.tx.state.getLoans([loans[0]!]);
    expect(closed).toMatchObject({ status: "Repaid", closedBy: "Repaid" });
  }, 60_000);

  it("the keeper brings every remaining old pool and loan up, then finds nothing to do", async () => {
    const keeperKey = (await fundedWallet(w.net)).signer;
    const keeper = createLiquidationKeeper(w.tx, keeperKey, silent);
    const round = await keeper.runRound();
    expect(round.migration.failed).toEqual([]);
    expect(round.migration.migrated).toMatchObject([{ pool: pools[1], loans: 1 }]);
    expect((await w.tx.state.getPool(pools[1]!))?.layoutVersion).toBe(2);
    expect((await w.tx.state.getLoans([loans[1]!]))[0]).toMatchObject({
      layoutVersion: 2,
      status: "Ongoing",
    });
    expect(await w.tx.state.getV1Loans()).toEqual([]);
    expect((await keeper.runRound()).migration).toEqual({ migrated: [], failed: [] });
    // once a pass found nothing old, later rounds no longer look (the program writes only the current layout)
    let looked = 0;
    const original = w.tx.state.getV1Loans;
    w.tx.state.getV1Loans = (pool) => {
      looked++;
      return original(pool);
    };
    await keeper.runRound();
    w.tx.state.getV1Loans = original;
    expect(looked).toBe(0);
  }, 60_000);
});
