import { rmSync } from "node:fs";
import { join } from "node:path";
import { DEMO_COLLECTIONS, DEMO_TOKENS, loadOrCreateKeypair } from "@cistern/localnet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, type RunningApi, startApi } from "../../../apps/api/src/index.ts";
import {
  BOOTSTRAP_ERROR,
  type BootstrapClusterResult,
  bootstrapCluster,
  DEMO_LENDERS,
  type DemoSeedResult,
  isBootstrapError,
  publishDemoPoolMetadata,
} from "../src/index.ts";
import { LENDING_SO_PATH, startTestLocalnet, tempDir } from "./helpers.ts";

/** The demo plan's pools, every lender's. */
const DEMO_POOL_COUNT = DEMO_LENDERS.flatMap((l) => l.pools).length;

type MetadataRow = { pubkey: string; metadata: { name: string; thumbnail: string } };

describe("publishDemoPoolMetadata: demo pool names through the API's POST /pool/update", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  let dataDir: string;
  let apiDataDir: string;
  let api: RunningApi;
  let cluster: BootstrapClusterResult;
  let demo: DemoSeedResult;

  async function fetchMetadata(): Promise<Map<string, MetadataRow["metadata"]>> {
    const keys = demo.lenders.flatMap((l) => l.pools.map((p) => p.address)).join(",");
    const rows = (await (
      await fetch(`${api.url}/dirty/pools-metadata?pubkeys=${keys}`)
    ).json()) as MetadataRow[];
    return new Map(rows.map((r) => [r.pubkey, r.metadata]));
  }

  beforeAll(async () => {
    net = await startTestLocalnet();
    dataDir = tempDir("names");
    apiDataDir = tempDir("names-api");
    cluster = await bootstrapCluster({
      rpcUrl: net.rpcUrl,
      wsUrl: net.wsUrl,
      dataDir,
      cluster: "localnet",
      lendingSoPath: LENDING_SO_PATH,
      demo: true,
    });
    demo = cluster.demo as DemoSeedResult;
    api = await startApi(
      loadConfig({
        API_PORT: "0",
        DATA_DIR: apiDataDir,
        LOG_LEVEL: "silent",
        SOLANA_RPC_URL: net.rpcUrl,
        SOLANA_WS_URL: net.wsUrl,
        SOLANA_CLUSTER: "localnet",
        LENDING_PROGRAM_ID: cluster.lendingProgramId,
      }),
    );
  });
  afterAll(async () => {
    await api?.close();
    await net?.cleanup();
    for (const dir of [dataDir, apiDataDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("gives every demo pool its name and collateral image; a second run posts nothing", async () => {
    const pools = demo.lenders.flatMap((l) => l.pools);
    expect(pools).toHaveLength(DEMO_POOL_COUNT);

    const first = await publishDemoPoolMetadata({ apiUrl: api.url, dataDir, demo });
    expect(first.posted).toBe(DEMO_POOL_COUNT);
    expect(first.pools.map((p) => p.action)).toEqual(Array(DEMO_POOL_COUNT).fill("updated"));

    const metadata = await fetchMetadata();
    for (const pool of pools) expect(metadata.get(pool.address)?.name).toBe(pool.name);
    expect(metadata.get(pools[0]!.address)?.name).toBe("Blue-chip NFT desk");
    // "Blue-chip NFT desk" lends against OTTR first; "Governance token credit" against JUP first.
    const ottr = DEMO_COLLECTIONS.find((c) => c.symbol === "OTTR")!.image;
    const jup = DEMO_TOKENS.find((t) => t.symbol === "JUP")!.image;
    expect(metadata.get(pools[0]!.address)?.thumbnail).toBe(ottr);
    expect(metadata.get(pools[1]!.address)?.thumbnail).toBe(jup);
    // The pool read route shows the same metadata.
    const one = (await (await fetch(`${api.url}/pool/pool?pubkey=${pools[0]!.address}`)).json()) as {
      metadata: { name: string; thumbnail: string };
    };
    expect(one.metadata).toMatchObject({ name: "Blue-chip NFT desk", thumbnail: ottr });

    const second = await publishDemoPoolMetadata({ apiUrl: api.url, dataDir, demo });
    expect(second.posted).toBe(0);
    expect(second.pools.map((p) => p.action)).toEqual(Array(DEMO_POOL_COUNT).fill("unchanged"));
    expect(await fetchMetadata()).toEqual(metadata);
  });

  it("a wrong lender key is refused by the API, reported, and changes nothing", async () => {
    const before = await fetchMetadata();
    const wrongDir = tempDir("names-wrong-key");
    try {
      loadOrCreateKeypair(join(wrongDir, "keys", "demo-lenders", "lender-1.json"));
      const lender = demo.lenders[0]!;
      const pool = lender.pools[0]!;
      const forged: DemoSeedResult = {
        lenders: [{ ...lender, pools: [{ ...pool, name: "Renamed by an impostor" }] }],
      };
      const error = await publishDemoPoolMetadata({ apiUrl: api.url, dataDir: wrongDir, demo: forged }).catch(
        (e: unknown) => e,
      );
      expect(isBootstrapError(error, BOOTSTRAP_ERROR.METADATA_REJECTED)).toBe(true);
      expect((error as Error).message).toContain("(400)");
      expect((error as Error).message).toContain(`signature is not ${lender.address}'s signature`);
      expect(await fetchMetadata()).toEqual(before);
    } finally {
      rmSync(wrongDir, { recursive: true, force: true });
    }
  });

  it("bad input and an unreachable API are reported with bootstrap error codes", async () => {
    const invalid = await publishDemoPoolMetadata({ apiUrl: "not a url", dataDir, demo }).catch((e) => e);
    expect(isBootstrapError(invalid, BOOTSTRAP_ERROR.INVALID_OPTIONS)).toBe(true);
    const missingKey = tempDir("names-no-key");
    try {
      const lender = demo.lenders[0]!;
      const renamed: DemoSeedResult = {
        lenders: [{ ...lender, pools: [{ ...lender.pools[0]!, name: "Needs a key" }] }],
      };
      const noKey = await publishDemoPoolMetadata({
        apiUrl: api.url,
        dataDir: missingKey,
        demo: renamed,
      }).catch((e) => e);
      expect(isBootstrapError(noKey, BOOTSTRAP_ERROR.KEY_FILE_INVALID)).toBe(true);
    } finally {
      rmSync(missingKey, { recursive: true, force: true });
    }
    const closed = await publishDemoPoolMetadata({ apiUrl: "http://127.0.0.1:9", dataDir, demo }).catch(
      (e) => e,
    );
    expect(isBootstrapError(closed, BOOTSTRAP_ERROR.API_UNREACHABLE)).toBe(true);
  });
});
