import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, startTestLocalnet } from "./helpers.ts";

describe("startLocalnet basics", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false, samplePeriodSeconds: 1 });
  });
  afterAll(async () => {
    await net.cleanup();
  });

  it("puts PubSub on RPC port + 1 (the port web3.js derives) even with random ports", () => {
    expect(net.wsPort).toBe(net.rpcPort + 1);
    expect(net.wsUrl).toBe(`ws://127.0.0.1:${net.rpcPort + 1}`);
  });

  it("a taken port is a clean start-up error, and the running server is unaffected", async () => {
    const { tempDataDir } = await import("./helpers.ts");
    const { startLocalnet } = await import("../src/index.ts");
    const { rmSync } = await import("node:fs");
    const dir = tempDataDir();
    try {
      await expect(startLocalnet({ rpcPort: net.rpcPort, dataDir: dir, seed: false })).rejects.toThrow(
        /EADDRINUSE/,
      );
      await expect(
        startLocalnet({ rpcPort: 0, wsPort: net.wsPort, dataDir: dir, seed: false }),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect((await rpc(net.rpcUrl, "getHealth")).result).toBe("ok");
  });

  it("serves health, version and a moving slot", async () => {
    expect((await rpc(net.rpcUrl, "getHealth")).result).toBe("ok");
    expect((await rpc(net.rpcUrl, "getVersion")).result).toMatchObject({ "solana-core": expect.any(String) });
    const s1 = (await rpc(net.rpcUrl, "getSlot")).result as number;
    let s2 = s1;
    for (let i = 0; i < 100 && s2 === s1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      s2 = (await rpc(net.rpcUrl, "getSlot")).result as number;
    }
    expect(s2).toBeGreaterThan(s1);
  });

  it("airdrops lamports with a real signed transaction", async () => {
    const to = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
    const sig = await net.airdrop(to, 1_500_000_000n);
    const bal = await rpc(net.rpcUrl, "getBalance", [to]);
    expect((bal.result as { value: number }).value).toBe(1_500_000_000);
    const st = await rpc(net.rpcUrl, "getSignatureStatuses", [[sig]]);
    const status = (st.result as { value: { err: unknown; confirmationStatus: string }[] }).value[0]!;
    // processed in its slot, confirmed once the next slot starts (100 ms here)
    expect(status.err).toBeNull();
    expect(["processed", "confirmed"]).toContain(status.confirmationStatus);
  });

  it("getRecentPerformanceSamples reports transactions and slots per sample period", async () => {
    await net.airdrop("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T", 1_000_000_000n);
    let samples: { numTransactions: number; numSlots: number; samplePeriodSecs: number; slot: number }[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      samples = (await rpc(net.rpcUrl, "getRecentPerformanceSamples", [5])).result as typeof samples;
      if (samples.reduce((n, x) => n + x.numTransactions, 0) > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.reduce((n, x) => n + x.numTransactions, 0)).toBeGreaterThanOrEqual(1);
    expect(samples[0]!.numSlots).toBeGreaterThan(0);
    expect(samples[0]!.samplePeriodSecs).toBeGreaterThanOrEqual(1);
    expect((await rpc(net.rpcUrl, "getRecentPerformanceSamples", [721])).error?.code).toBe(-32602);
  });
});
