import { rmSync } from "node:fs";
import { type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { afterAll, describe, expect, it } from "vitest";
import { bootstrapCluster, DEMO_LENDERS, readClusterInfo } from "../src/index.ts";
import { LENDING_SO_PATH, tempDir } from "./helpers.ts";

/** The demo plan's pools, every lender's. */
const DEMO_POOL_COUNT = DEMO_LENDERS.flatMap((l) => l.pools).length;

/** What `npm start` does: one data dir shared by the localnet (ledger) and the bootstrap (keys, cluster.json). */
describe("bootstrap across localnet restarts", () => {
  const dataDir = tempDir("restart");
  let net: LocalnetHandle | undefined;
  afterAll(async () => {
    await net?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async (reset: boolean) => {
    net = await startLocalnet({ rpcPort: 0, dataDir, slotMs: 100, reset });
    return bootstrapCluster({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      dataDir,
      cluster: "localnet",
      lendingSoPath: LENDING_SO_PATH,
      demo: true,
    });
  };

  it("finds everything in place after a restart and rebuilds it with the same ids after a reset", async () => {
    const first = await start(false);
    expect(first.programAction).toBe("deployed");
    await net!.close();

    const restarted = await start(false);
    expect(restarted.lendingProgramId).toBe(first.lendingProgramId);
    expect([restarted.programAction, restarted.configAction]).toEqual(["unchanged", "unchanged"]);
    expect(restarted.demo!.lenders.flatMap((l) => l.pools.map((p) => p.action))).toEqual(
      Array(DEMO_POOL_COUNT).fill("unchanged"),
    );
    await net!.close();

    // A reset empties the chain but keeps the data dir's keys: same program id, everything re-created.
    const reset = await start(true);
    expect(reset.lendingProgramId).toBe(first.lendingProgramId);
    expect([reset.programAction, reset.configAction]).toEqual(["deployed", "initialized"]);
    expect(reset.demo!.lenders.map((l) => l.address)).toEqual(first.demo!.lenders.map((l) => l.address));
    expect(reset.demo!.lenders.flatMap((l) => l.banks.map((b) => b.action))).toEqual(
      Array(6).fill("deposited"),
    );
    expect(reset.demo!.lenders.flatMap((l) => l.pools.map((p) => p.action))).toEqual(
      Array(DEMO_POOL_COUNT).fill("created"),
    );
    expect(readClusterInfo(dataDir).rpcUrl).toBe(net!.rpcUrl);
  });
});
