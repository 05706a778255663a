import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_WORLD, type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { parseLoanList, parsePool } from "@cistern/protocol";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { createIndexer, type Indexer } from "../../src/indexer/indexer.ts";
import { createLendingDriver, LENDING_SO } from "../helpers/localnet-lending.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const log = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("indexer and routes against the lending program on a localnet", () => {
  let net: LocalnetHandle;
  let dataDir: string;
  let t: TestDatabase;
  let app: FastifyInstance;
  let driver: Awaited<ReturnType<typeof createLendingDriver>>;
  let indexer: Indexer;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  let bank: Address;
  let pool: Address;
  let nfts: { mint: Address; collectionId: Address }[];

  const makeIndexer = () =>
    createIndexer({
      db: t.db,
      rpc: app.cistern.rpc,
      wsUrl: net.wsUrl,
      programId: driver.programAddress,
      reconcileIntervalMs: 60_000,
      log,
    });
  const get = async (url: string) => (await app.inject({ method: "GET", url })).json();
  const loanStatus = async (loan: string) =>
    (await t.db.query<{ status: string }>("SELECT status FROM loans WHERE pubkey = $1", [loan]))[0]?.status;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cistern-api-lending-"));
    net = await startLocalnet({
      rpcPort: 0,
      dataDir: join(dataDir, "chain"),
      slotMs: 100,
      programs: [{ soPath: LENDING_SO }],
    });
    t = await createTestDatabase("postgres");
    app = await createApp(
      loadConfig({ LOG_LEVEL: "silent", DATA_DIR: dataDir, SOLANA_RPC_URL: net.rpcUrl }),
      {
        db: t.db,
      },
    );
    driver = await createLendingDriver(net);
    ({ lender, bank } = await driver.createLender(1_000_000_000n));
    pool = await driver.createPool(
      lender,
      1n,
      DEMO_WORLD.collections.map((c) => c.collectionId as Address),
    );
    borrower = await generateKeyPairSigner();
    nfts = (await net.faucet(borrower.address)).nfts.map((n) => ({
      mint: n.mint as Address,
      collectionId: n.collectionId as Address,
    }));
    indexer = makeIndexer();
    expect(await indexer.start()).toBe(true);
  }, 180_000);
  afterAll(async () => {
    await indexer?.stop();
    await app?.close();
    await t?.drop();
    await net?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("indexes the bank and pool created on chain and serves them", async () => {
    await waitFor(async () => ((await get(`/pool/pool?pubkey=${pool}`)) === null ? undefined : true), "pool");
    const parsed = parsePool(await get(`/pool/pool?pubkey=${pool}`));
    expect(parsed).toMatchObject({
      owner: lender.address,
      bank,
      type: "nft-pool",
      totalLiquidity: 1_000_000_000n,
      availableLiquidity: 1_000_000_000n,
      loanCurve: { apr: 5000 },
    });
    expect(parsed.collections.map((c) => c.collection).sort()).toEqual(
      DEMO_WORLD.collections.map((c) => c.collectionId).sort(),
    );
  }, 30_000);

  it("marks a pool closed on chain as Closed and leaves it out of the pool list", async () => {
    const spare = await driver.createPool(lender, 99n, [DEMO_WORLD.collections[0]!.collectionId as Address]);
    await waitFor(
      async () => ((await get(`/pool/pool?pubkey=${spare}`)) === null ? undefined : true),
      "spare pool",
    );
    await driver.closePool(lender, spare);
    await waitFor(
      async () => ((await get(`/pool/pool?pubkey=${spare}`))?.status === "Closed" ? true : undefined),
      "pool closed",
    );
    const live = (
      await app.inject({ method: "GET", url: `/dirty/pools?owner=${lender.address}&status=Open` })
    ).json();
    expect(live.pools.map((p: { pubkey: string }) => p.pubkey)).toEqual([pool]);
    const all = (
      await app.inject({ method: "GET", url: `/pool/get-by-owner?owner=${lender.address}` })
    ).json();
    expect(all.pools.map((p: { pubkey: string }) => p.pubkey).sort()).toEqual([pool, spare].sort());
  }, 60_000);

  it("follows a loan taken and repaid through the subscriptions, with signatures", async () => {
    const nft = nfts[0]!;
    const taken = await driver.takeLoan({
      borrower,
      pool,
      bank,
      nft: nft.mint,
      collection: nft.collectionId,
      nonce: 1n,
      principal: 100_000_000n,
      durationSeconds: 2n * 86_400n,
    });
    await waitFor(
      async () => ((await loanStatus(taken.loan)) === "Ongoing" ? true : undefined),
      "loan taken",
    );
    const list = parseLoanList(await get(`/loan/user?pubkey=${borrower.address}`));
    expect(list).toMatchObject({ totalCount: 1, ongoingCount: 1 });
    expect(list.loans[0]).toMatchObject({
      pubkey: taken.loan,
      amount: 100_000_000n,
      collection: nft.collectionId,
      collateral: nft.mint,
      status: "Ongoing",
      lender: lender.address,
    });
    const repaySignature = await driver.repay({ borrower, pool, bank, loan: taken.loan, nft: nft.mint });
    await waitFor(
      async () => ((await loanStatus(taken.loan)) === "Repaid" ? true : undefined),
      "loan repaid",
    );
    await indexer.reconcile();
    const activity = (await get(`/dirty/activity-by-user?pubkey=${borrower.address}`)).activity as {
      kind: string;
      signature: string | null;
      actor: string | null;
    }[];
    // the actor is the wallet that signed and paid for the event's transaction
    expect(activity.map((a) => [a.kind, a.signature, a.actor]).sort()).toEqual(
      [
        ["repaid", repaySignature, borrower.address],
        ["taken", taken.signature, borrower.address],
      ].sort(),
    );
  }, 60_000);

  it("records an extension: the old loan closes as 'extended', the new loan is taken on the same NFT", async () => {
    const nft = nfts[2]!;
    const first = await driver.takeLoan({
      borrower,
      pool,
      bank,
      nft: nft.mint,
      collection: nft.collectionId,
      nonce: 3n,
      principal: 80_000_000n,
      durationSeconds: 2n * 86_400n,
    });
    const second = await driver.extend({
      borrower,
      pool,
      bank,
      oldLoan: first.loan,
      nft: nft.mint,
      collection: nft.collectionId,
      nonce: 4n,
      principal: 60_000_000n,
      durationSeconds: 3n * 86_400n,
    });
    await waitFor(
      async () => ((await loanStatus(second.loan)) === "Ongoing" ? true : undefined),
      "extension",
    );
    await waitFor(
      async () => ((await loanStatus(first.loan)) === "Repaid" ? true : undefined),
      "old loan closed",
    );
    await indexer.reconcile();
    const events = await t.db.query<{ loan: string; kind: string; signature: string | null }>(
      "SELECT loan, kind, signature FROM loan_activity WHERE loan = ANY($1::text[]) ORDER BY loan, kind",
      [[first.loan, second.loan]],
    );
    expect(
      events.map((e) => `${e.loan === first.loan ? "old" : "new"}:${e.kind}:${e.signature}`).sort(),
    ).toEqual(
      [
        `old:extended:${second.signature}`,
        `old:taken:${first.signature}`,
        `new:taken:${second.signature}`,
      ].sort(),
    );
  }, 60_000);

  it("catches up after a restart: a loan taken and liquidated while the indexer was down appears once", async () => {
    await indexer.stop();
    const nft = nfts[1]!;
    const taken = await driver.takeLoan({
      borrower,
      pool,
      bank,
      nft: nft.mint,
      collection: nft.collectionId,
      nonce: 2n,
      principal: 50_000_000n,
      durationSeconds: 86_400n,
    });
    await net.advanceClock(86_400 + 3600 + 60);
    await driver.liquidate({ lender: lender.address, pool, bank, loan: taken.loan, nft: nft.mint });
    expect(await loanStatus(taken.loan)).toBeUndefined();

    indexer = makeIndexer();
    expect(await indexer.start()).toBe(true);
    await waitFor(
      async () => ((await loanStatus(taken.loan)) === "Liquidated" ? true : undefined),
      "catch-up",
    );
    await indexer.reconcile();
    const events = await t.db.query<{ loan: string; kind: string }>(
      "SELECT loan, kind FROM loan_activity ORDER BY loan, kind",
    );
    expect(events.filter((e) => e.loan === taken.loan).map((e) => e.kind)).toEqual(["liquidated", "taken"]);
    // the loan's history says who liquidated: here the driver's admin wallet signed and paid
    const [liquidated] = await t.db.query<{ actor: string | null }>(
      "SELECT actor FROM loan_activity WHERE loan = $1 AND kind = 'liquidated'",
      [taken.loan],
    );
    expect(liquidated?.actor).toBe(driver.admin.address);
    expect(events).toHaveLength(7);
    const list = parseLoanList(await get(`/loan/pool?pubkey=${pool}`));
    expect(list).toMatchObject({ totalCount: 4, ongoingCount: 1 });
    const profit = (await get(`/dirty/lender-profit?pubkey=${lender.address}`)).byCurrency[0];
    expect(profit).toMatchObject({ loansRepaid: 2, loansLiquidated: 1, principalLiquidated: "50000000" });
    const parsed = parsePool(await get(`/pool/pool?pubkey=${pool}`));
    expect(parsed.totalLiquidations).toBe(1);
  }, 60_000);
});
