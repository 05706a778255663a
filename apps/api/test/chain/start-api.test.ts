import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_WORLD, getAssociatedTokenAddress, type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { USDC_MINT } from "@cistern/protocol";
import { decodeBankAccount } from "@cistern/sdk";
import { type Address, generateKeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import { type RunningApi, startApi } from "../../src/start-api.ts";
import { createLendingDriver, LENDING_SO } from "../helpers/localnet-lending.ts";

describe("startApi: the embedded default (PGlite in DATA_DIR) over a localnet with the lending program", () => {
  let net: LocalnetHandle;
  let dataDir: string;
  let api: RunningApi;
  /** Initialises the program's config (once per chain): made by the first test, used by the next. */
  let driver: Awaited<ReturnType<typeof createLendingDriver>>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cistern-api-start-"));
    net = await startLocalnet({
      rpcPort: 0,
      dataDir: join(dataDir, "chain"),
      slotMs: 100,
      programs: [{ soPath: LENDING_SO }],
    });
    const config = loadConfig({
      API_PORT: "0",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
      SOLANA_RPC_URL: net.rpcUrl,
      SOLANA_WS_URL: net.wsUrl,
      LENDING_PROGRAM_ID: net.programs[0]!.programId,
    });
    api = await startApi(
      config,
      {},
      {
        beforeListen: async (app) => {
          app.get("/extra", async () => ({ registered: true }));
        },
      },
    );
  });
  afterAll(async () => {
    await api?.close();
    await net?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("listens on loopback, leads the indexer and serves what the program holds over HTTP", async () => {
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(api.indexer?.isLeader()).toBe(true);
    driver = await createLendingDriver(net);
    const { lender, bank } = await driver.createLender(5_000_000n);
    const deadline = Date.now() + 15_000;
    let banks: { pubkey: string; totalLiquidity: string }[] = [];
    while (Date.now() < deadline && banks.length === 0) {
      banks = (await (await fetch(`${api.url}/bank/user?pubkey=${lender.address}`)).json()) as typeof banks;
      if (banks.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(banks).toEqual([expect.objectContaining({ pubkey: bank, totalLiquidity: "5000000" })]);
    const docs = await fetch(`${api.url}/docs/json`);
    expect(docs.status).toBe(200);
    // With a program id, startApi also serves the write path (loan calculator, builder, sender).
    const currencyConfig = await fetch(`${api.url}/defi/currency-config`);
    expect(currencyConfig.status).toBe(200);
    expect(await (await fetch(`${api.url}/extra`)).json()).toEqual({ registered: true });
  });

  it("runs the liquidation keeper (on by default on localnet): a loan past grace goes to the pool owner", async () => {
    const keeper = api.keeper!;
    expect(keeper).toBeDefined();
    const { lender, bank } = await driver.createLender(1_000_000_000n);
    const pool = await driver.createPool(
      lender,
      1n,
      DEMO_WORLD.collections.map((c) => c.collectionId as Address),
    );
    const borrower = await generateKeyPairSigner();
    const nft = (await net.faucet(borrower.address)).nfts[0]!;
    const loanFor = (nonce: bigint, durationSeconds: bigint) =>
      driver.takeLoan({
        borrower,
        pool,
        bank,
        nft: nft.mint as Address,
        collection: nft.collectionId as Address,
        nonce,
        principal: 50_000_000n,
        durationSeconds,
      });
    const taken = await loanFor(1n, 86_400n);
    // inside the term, then inside the grace hour: the keeper leaves the loan alone
    expect(await keeper.runRound()).toEqual({
      leader: true,
      liquidated: [],
      failed: [],
      migration: { migrated: [], failed: [] },
      fees: { collected: [], failed: [] },
    });
    await net.advanceClock(86_400 + 1_800);
    await new Promise((r) => setTimeout(r, 300));
    expect((await keeper.runRound()).liquidated).toEqual([]);
    // past expiry + grace: liquidated in the next round, the NFT in the lender's wallet
    await net.advanceClock(1_800 + 60);
    await new Promise((r) => setTimeout(r, 300));
    const round = await keeper.runRound();
    expect(round).toEqual({
      leader: true,
      liquidated: [{ loan: taken.loan, signature: expect.any(String), autoSold: false }],
      failed: [],
      migration: { migrated: [], failed: [] },
      fees: { collected: [], failed: [] },
    });
    const ownerAta = await getAssociatedTokenAddress(lender.address, nft.mint);
    const held = await api.app.cistern.rpc.call<{ value: { amount: string } }>("getTokenAccountBalance", [
      ownerAta,
    ]);
    expect(held.value.amount).toBe("1");
    // idempotent: nothing left to do, and the loan's history names the keeper as the liquidator
    expect(await keeper.runRound()).toEqual({
      leader: true,
      liquidated: [],
      failed: [],
      migration: { migrated: [], failed: [] },
      fees: { collected: [], failed: [] },
    });
    const deadline = Date.now() + 15_000;
    let actor: string | null | undefined;
    while (Date.now() < deadline && !actor) {
      await api.indexer?.reconcile();
      const body = (await (
        await fetch(`${api.url}/dirty/activity-by-user?pubkey=${lender.address}`)
      ).json()) as {
        activity: { loan: string; kind: string; actor: string | null }[];
      };
      actor = body.activity.find((a) => a.loan === taken.loan && a.kind === "liquidated")?.actor;
      if (!actor) await new Promise((r) => setTimeout(r, 200));
    }
    expect(actor).toBe(keeper.address);
  }, 60_000);

  it("the keeper moves the protocol fee a repayment left in the bank's vault to the treasury", async () => {
    const keeper = api.keeper!;
    const { lender, bank } = await driver.createLender(1_000_000_000n);
    const pool = await driver.createPool(
      lender,
      2n,
      DEMO_WORLD.collections.map((c) => c.collectionId as Address),
    );
    const borrower = await generateKeyPairSigner();
    const nft = (await net.faucet(borrower.address)).nfts[0]!;
    const taken = await driver.takeLoan({
      borrower,
      pool,
      bank,
      nft: nft.mint as Address,
      collection: nft.collectionId as Address,
      nonce: 7n,
      principal: 100_000_000n,
      durationSeconds: 7n * 86_400n,
    });
    await net.advanceClock(2 * 86_400);
    await driver.repay({ borrower, pool, bank, loan: taken.loan, nft: nft.mint as Address });
    const bankAccount = async () => {
      const { value } = await api.app.cistern.rpc.call<{ value: { data: [string, string] } }>(
        "getAccountInfo",
        [bank, { encoding: "base64", commitment: "confirmed" }],
      );
      return decodeBankAccount(Buffer.from(value.data[0], "base64"));
    };
    const owed = (await bankAccount()).feesOwed;
    expect(owed).toBeGreaterThan(0n);
    const treasuryAta = await getAssociatedTokenAddress(driver.treasury, USDC_MINT);
    const treasuryHolds = async () =>
      BigInt(
        (
          await api.app.cistern.rpc.call<{ value: { amount: string } }>("getTokenAccountBalance", [
            treasuryAta,
            { commitment: "confirmed" },
          ])
        ).value.amount,
      );
    const treasuryBefore = await treasuryHolds();
    // the API's view of the banks reloads within a second; a round after it collects (ours or the timer's)
    const collected: unknown[] = [];
    const deadline = Date.now() + 10_000;
    while ((await bankAccount()).feesOwed > 0n && Date.now() < deadline) {
      collected.push(...(await keeper.runRound()).fees.collected);
      await new Promise((r) => setTimeout(r, 300));
    }
    for (const entry of collected)
      expect(entry).toEqual({ bank, amount: owed.toString(), signature: expect.any(String) });
    expect((await bankAccount()).feesOwed).toBe(0n);
    expect((await treasuryHolds()) - treasuryBefore).toBe(owed);
    // collected: the next round leaves the bank alone
    expect((await keeper.runRound()).fees.collected).toEqual([]);
  }, 60_000);
});
