import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import type { FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { randomAddress } from "../helpers/fixtures.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const SAMPLE_PERIOD_SECONDS = 2;
/** The API reads the newest 5 samples: by then none of them covers the start-up. */
const SETTLED_MS = (5 * SAMPLE_PERIOD_SECONDS + 1) * 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface ChainPerformanceBody {
  tps: number;
  source: "rpc" | "fallback";
  slotMs: number | null;
  slow: boolean;
  sampleSeconds: number;
}

/** A localnet producing a slot every `slotMs`, sampled every `samplePeriodSeconds`, and the API over it. */
async function startChainAndApi(slotMs: number, samplePeriodSeconds = SAMPLE_PERIOD_SECONDS) {
  const dataDir = mkdtempSync(join(tmpdir(), "cistern-api-perf-"));
  const net: LocalnetHandle = await startLocalnet({
    rpcPort: 0,
    dataDir: join(dataDir, "chain"),
    slotMs,
    samplePeriodSeconds,
    seed: false,
  });
  const t: TestDatabase = await createTestDatabase("pglite");
  const app: FastifyInstance = await createApp(
    loadConfig({ LOG_LEVEL: "silent", DATA_DIR: dataDir, SOLANA_RPC_URL: net.rpcUrl }),
    { db: t.db },
  );
  const read = async () =>
    (await app.inject({ method: "GET", url: "/dirty/chain-performance" })).json() as ChainPerformanceBody;
  return {
    net,
    read,
    close: async () => {
      await app.close();
      await t.drop();
      await net.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe("/dirty/chain-performance from the localnet's performance samples", () => {
  // One chain and API at a time: starting chains and databases in this process holds its event loop, and so the
  // slot clock (a real slowdown, which the first samples show). Figures are read once the newest 5 samples all
  // come after the start-up.

  it("a fresh localnet, before its first sample, is measured as nothing and is no outage", async () => {
    // as `npm start` runs it: 60 s samples, as a validator
    const fresh = await startChainAndApi(400, 60);
    try {
      expect(await fresh.read()).toEqual({
        tps: 2000,
        source: "fallback",
        slotMs: null,
        slow: false,
        sampleSeconds: 0,
      });
    } finally {
      await fresh.close();
    }
  }, 60_000);

  it("a healthy idle localnet (400 ms slots) is not slow at 0 transactions a second, and counts the ones it runs", async () => {
    const healthy = await startChainAndApi(400);
    try {
      await sleep(SETTLED_MS);
      const idle = await healthy.read();
      expect(idle.source).toBe("rpc");
      expect(idle.sampleSeconds).toBeGreaterThanOrEqual(5 * SAMPLE_PERIOD_SECONDS);
      expect(idle.tps).toBe(0);
      // a loaded machine delays the slot timer a little, under the 800 ms of a slow chain
      expect(idle.slotMs).toBeGreaterThanOrEqual(330);
      expect(idle.slotMs).toBeLessThan(800);
      expect(idle.slow).toBe(false);

      for (let i = 0; i < 6; i++) await healthy.net.airdrop(randomAddress(), 1_000_000n);
      const deadline = Date.now() + 30_000;
      let busy = idle;
      while (busy.tps === 0 && Date.now() < deadline) {
        await sleep(250);
        busy = await healthy.read();
      }
      // 6 transactions within the ~10 s the samples cover: 1 a second once rounded
      expect(busy.tps).toBeGreaterThanOrEqual(1);
      expect(busy.slow).toBe(false);
    } finally {
      await healthy.close();
    }
  }, 90_000);

  it("a slowed localnet (1.6 s slots, four times the target) is slow", async () => {
    const slowed = await startChainAndApi(1600);
    try {
      await sleep(SETTLED_MS);
      const body = await slowed.read();
      expect(body.source).toBe("rpc");
      expect(body.sampleSeconds).toBeGreaterThanOrEqual(5 * SAMPLE_PERIOD_SECONDS);
      expect(body.tps).toBe(0);
      // 6 or 7 slots of 1.6 s in 10 s
      expect(body.slotMs).toBeGreaterThanOrEqual(1400);
      expect(body.slow).toBe(true);
    } finally {
      await slowed.close();
    }
  }, 90_000);
});
