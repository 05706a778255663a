import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_WORLD, type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { randomAddress } from "../helpers/fixtures.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

describe("catalogue, wallet assets and prices read from a seeded localnet", () => {
  let net: LocalnetHandle;
  let dataDir: string;
  let t: TestDatabase;
  let app: FastifyInstance;
  const wallet = randomAddress();
  let faucetNfts: { mint: string; collectionId: string }[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cistern-api-localnet-"));
    net = await startLocalnet({ rpcPort: 0, dataDir: join(dataDir, "chain"), slotMs: 100 });
    const given = await net.faucet(wallet);
    // Classic NFTs, the programmable NFT, the Core asset and the compressed NFT: the API reads them through the localnet's DAS
    faucetNfts = [
      ...given.nfts,
      ...given.programmableNfts,
      ...given.coreAssets.map((c) => ({ mint: c.asset, collectionId: c.collectionId })),
      ...given.compressedNfts.map((c) => ({ mint: c.assetId, collectionId: c.collectionId })),
    ];
    t = await createTestDatabase("pglite");
    const config = loadConfig({ LOG_LEVEL: "silent", DATA_DIR: dataDir, SOLANA_RPC_URL: net.rpcUrl });
    app = await createApp(config, { db: t.db });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await t?.drop();
    await net?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const get = async (url: string) => (await app.inject({ method: "GET", url })).json();

  it("lists the demo collections (no market on this chain: no value, never a seeded one) and the currencies keyed by mint", async () => {
    const collections = (await get("/collection/collections")) as {
      collectionId: string;
      floorPrice: string | null;
    }[];
    // classic, pNFT, Core and compressed collections alike
    const demo = [
      ...DEMO_WORLD.collections,
      ...DEMO_WORLD.programmableCollections,
      ...DEMO_WORLD.coreCollections,
      ...DEMO_WORLD.compressedCollections,
    ];
    expect(collections.map((c) => c.collectionId).sort()).toEqual(demo.map((c) => c.collectionId).sort());
    for (const c of demo)
      expect(collections.find((x) => x.collectionId === c.collectionId)?.floorPrice).toBeNull();
    const currencies = (await get("/currency/currencies")) as Record<
      string,
      { metadata: { symbol: string } }
    >;
    for (const token of DEMO_WORLD.tokens) expect(currencies[token.mint]?.metadata.symbol).toBe(token.symbol);
  });

  it("reads the wallet's NFTs (the localnet's DAS, as in production) sorted by floor price, and its token balances", async () => {
    expect(faucetNfts.length).toBeGreaterThan(0);
    const { nfts } = (await get(`/asset/assets?pubkey=${wallet}`)) as {
      nfts: { mint: string; collection: string; floorPrice: number | null }[];
    };
    expect(nfts.map((n) => n.mint).sort()).toEqual(faucetNfts.map((n) => n.mint).sort());
    for (const nft of nfts) {
      expect(nft.collection).toBe(faucetNfts.find((f) => f.mint === nft.mint)?.collectionId);
    }
    // The pNFT's collection has no market yet (no floor price); the NFTs with a floor come by floor, highest first.
    const floors = nfts.flatMap((n) => (n.floorPrice === null ? [] : [n.floorPrice]));
    expect(floors).toEqual([...floors].sort((a, b) => b - a));
    const { tokens } = (await get(`/asset/tokens?pubkey=${wallet}`)) as {
      tokens: { mint: string; amount: string }[];
    };
    const usdc = DEMO_WORLD.tokens.find((x) => x.symbol === "USDC")!;
    if (BigInt(usdc.faucetAmountBaseUnits) > 0n) {
      expect(tokens.find((x) => x.mint === usdc.mint)?.amount).toBe(usdc.faucetAmountBaseUnits);
    }
    expect(tokens.every((x) => !faucetNfts.some((n) => n.mint === x.mint))).toBe(true);
    const one = (await get(`/asset/asset?mint=${faucetNfts[0]!.mint}`)) as { mint: string };
    expect(one.mint).toBe(faucetNfts[0]!.mint);
    expect(await get(`/asset/asset?mint=${randomAddress()}`)).toBeNull();
  });

  it("serves no token price without the lending program's swap venue (no constant stands in)", async () => {
    const { prices } = (await get("/prices")) as { prices: Record<string, { price: number }> };
    expect(prices).toEqual({});
  });
});
