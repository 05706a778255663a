// `npm start` as scripts/start.ts composes it (a seeded localnet, the bootstrap with its demo lenders, NFT market
// and market maker, the demo rule set allowing the lending program and the market, the API valuing collections from
// the chain): a new wallet's programmable NFT is valued from the market maker's pNFT listings and bids (held by the
// listings through Token Metadata under the demo rule set) and gets an offer from the demo pool that lists the pNFT
// collection.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_WORLD, type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { generateKeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapCluster } from "../../../../packages/bootstrap/src/index.ts";
import { loadConfig } from "../../src/config/config.ts";
import { type RunningApi, startApi } from "../../src/start-api.ts";

const so = (name: string) =>
  fileURLToPath(new URL(`../../../../programs/${name}/build/${name}.so`, import.meta.url));
const DAY = 86_400;

describe("npm start: a new wallet's programmable NFT", () => {
  let root: string;
  let localnet: LocalnetHandle;
  let api: RunningApi;
  let pnftPool: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "cistern-start-pnft-"));
    localnet = await startLocalnet({ rpcPort: 0, dataDir: join(root, "localnet"), seed: true });
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
    // as scripts/start.ts does after the bootstrap
    await localnet.setDemoRuleSetPrograms([cluster.lendingProgramId, cluster.nftMarket!.programId]);
    const petrels = DEMO_WORLD.programmableCollections[0]!.collectionId;
    const pools = cluster.demo!.lenders.flatMap((l) => l.pools);
    pnftPool = pools.find((p) => p.plan.params.collections.some((c) => c.id === petrels))!.address;
    api = await startApi(
      loadConfig({
        LOG_LEVEL: "silent",
        API_PORT: "0",
        SOLANA_RPC_URL: localnet.rpcUrl,
        SOLANA_WS_URL: localnet.wsUrl,
        SOLANA_CLUSTER: "localnet",
        DATA_DIR: root,
        LENDING_PROGRAM_ID: cluster.lendingProgramId,
      }),
    );
  }, 600_000);
  afterAll(async () => {
    await api?.close();
    await localnet?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("is valued from the market's pNFT book (5 SOL floor, 4.5 SOL best bid) and gets the Petrel desk's offer", async () => {
    const wallet = (await generateKeyPairSigner()).address;
    const given = await localnet.faucet(wallet);
    const asset = given.programmableNfts[0]!.mint;
    const quote = async () => {
      const r = await fetch(`${api.url}/nft/quote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ nftMint: asset, duration: 7 * DAY, borrower: wallet }),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    await expect.poll(async () => (await quote()).status, { timeout: 60_000, interval: 500 }).toBe(200);
    const offer = await quote();
    // min(floor 5 SOL, best bid 4.5 SOL x 125% = 5.625 SOL) = 5 SOL; the pool lends 40% of it
    expect(offer.body).toMatchObject({
      pool: pnftPool,
      collateralValue: "5000000000",
      maxBorrowAmount: "2000000000",
    });
  }, 120_000);
});
