import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import { type RunningApi, startApi } from "../../src/start-api.ts";
import { createLendingDriver, LENDING_SO } from "../helpers/localnet-lending.ts";

describe("startApi: the embedded default (PGlite in DATA_DIR) over a localnet with the lending program", () => {
  let net: LocalnetHandle;
  let dataDir: string;
  let api: RunningApi;

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
    const driver = await createLendingDriver(net);
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
});
