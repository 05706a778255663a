// `npm start` as scripts/start.ts composes it, for the tests that check what a new wallet sees on start: a seeded
// localnet, the bootstrap with its demo lenders, NFT market and market maker, and the API valuing collections from
// the chain. `quote` asks the API for the best offer on one NFT (POST /nft/quote).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { bootstrapCluster, type DemoPool } from "../../../../packages/bootstrap/src/index.ts";
import { loadConfig } from "../../src/config/config.ts";
import { type RunningApi, startApi } from "../../src/start-api.ts";

const so = (name: string) =>
  fileURLToPath(new URL(`../../../../programs/${name}/build/${name}.so`, import.meta.url));
const DAY = 86_400;

export interface NpmStartWorld {
  localnet: LocalnetHandle;
  api: RunningApi;
  /** Every pool the bootstrap seeded for the demo lenders, as `npm start` seeds them. */
  pools: DemoPool[];
  /** The address of the demo pool that lists `collection` (the first one). */
  poolListing(collection: string): string;
  /** POST /nft/quote for `nftMint`, a 7-day loan to `borrower`. */
  quote(nftMint: string, borrower: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startNpmStartWorld(prefix: string): Promise<NpmStartWorld> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const localnet = await startLocalnet({ rpcPort: 0, dataDir: join(root, "localnet"), seed: true });
  const cluster = await bootstrapCluster({
    rpcUrl: localnet.rpcUrl,
    wsUrl: localnet.wsUrl,
    dataDir: root,
    cluster: "localnet",
    lendingSoPath: so("lending"),
    swapVenueSoPath: so("swap-venue"),
    lendingVenueSoPath: so("lending-venue"),
    nftMarketSoPath: so("nft-market"),
    demo: true,
  });
  // as scripts/start.ts: the demo rule set lets the lending program and the NFT market hold the demo pNFTs
  await localnet.setDemoRuleSetPrograms([
    cluster.lendingProgramId,
    ...(cluster.nftMarket ? [cluster.nftMarket.programId] : []),
  ]);
  // as scripts/start.ts: the demo's lending venue is marginfi, its group and banks made by the bootstrap
  const marginfiEnv: Record<string, string> = cluster.marginfi
    ? {
        MARGINFI_GROUP: cluster.marginfi.group,
        MARGINFI_BANKS: cluster.marginfi.banks.map((b) => `${b.mint}:${b.bank}`).join(","),
      }
    : {};
  const api = await startApi(
    loadConfig({
      ...marginfiEnv,
      LOG_LEVEL: "silent",
      API_PORT: "0",
      SOLANA_RPC_URL: localnet.rpcUrl,
      SOLANA_WS_URL: localnet.wsUrl,
      SOLANA_CLUSTER: "localnet",
      DATA_DIR: root,
      LENDING_PROGRAM_ID: cluster.lendingProgramId,
    }),
  );
  const pools = cluster.demo!.lenders.flatMap((l) => l.pools);
  return {
    localnet,
    api,
    pools,
    poolListing: (collection) =>
      pools.find((p) => p.plan.params.collections.some((c) => c.id === collection))!.address,
    async quote(nftMint, borrower) {
      const r = await fetch(`${api.url}/nft/quote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ nftMint, duration: 7 * DAY, borrower }),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    },
    async close() {
      await api.close();
      await localnet.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
