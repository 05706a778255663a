import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { createApp } from "../../src/app.ts";
import type { AssetNft, AssetSource, TokenBalance } from "../../src/assets/asset-source.ts";
import type { Catalog, CatalogSource } from "../../src/assets/catalog-source.ts";
import { loadConfig } from "../../src/config/config.ts";
import type { Database } from "../../src/db/database.ts";
import { createIndexer, type Indexer } from "../../src/indexer/indexer.ts";
import type { RpcClient } from "../../src/solana/rpc-client.ts";
import { createRpcClient } from "../../src/solana/rpc-client.ts";
import { createFixedValuationSources, type FixedPrices } from "./fixed-valuation.ts";
import { SOL, USDC } from "./fixtures.ts";

/** A small catalogue standing in for the demo world (two currencies, one collection); `nftMints` only counts. */
export function makeCatalog(collectionId: string, nftMints: string[] = []): Catalog {
  return {
    tokens: [
      {
        mint: USDC,
        symbol: "USDC",
        name: "USD Coin",
        decimals: 6,
        image: "",
        role: "currency",
      },
      {
        mint: SOL,
        symbol: "SOL",
        name: "Wrapped SOL",
        decimals: 9,
        image: "",
        role: "currency",
      },
    ],
    collections: [
      {
        collectionId,
        symbol: "OTTR",
        name: "Cistern Otters",
        image: "data:image/svg+xml,<svg/>",
        standard: "NonFungible",
        magicEdenSlug: "",
        tensorSlug: "",
        supply: nftMints.length,
      },
    ],
  };
}

export interface TestApp {
  app: FastifyInstance;
  indexer: Indexer;
  rpc: RpcClient;
}

/** Builds the app over `db` with a fixed catalogue, fixed clock and an in-memory asset source. */
export async function createTestApp(
  db: Database,
  options: {
    catalog: Catalog;
    now?: number;
    rpc?: RpcClient;
    nfts?: AssetNft[];
    tokens?: TokenBalance[];
    env?: Record<string, string>;
    /** A real asset source instead of the in-memory one (e.g. the DAS adapter against a local server). */
    das?: AssetSource;
    /** Prices the app stands on (default: USDC 1, SOL 150 USD, every catalogue collection 12.5 SOL). */
    prices?: FixedPrices;
    /** Images the in-memory asset API knows by id beyond its NFTs' (e.g. a token mint's). */
    images?: Record<string, string>;
  },
): Promise<TestApp> {
  const config = loadConfig({
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    DATA_DIR: mkdtempSync(join(tmpdir(), "cistern-api-")),
    ...options.env,
  });
  // Points at a closed port unless a test brings a real RPC: routes that need the chain then answer 502.
  const rpc = options.rpc ?? createRpcClient("http://127.0.0.1:9", 2000);
  const catalogSource: CatalogSource = { name: "test", fetchCatalog: async () => options.catalog };
  const assetSource: AssetSource = options.das ?? {
    name: "test",
    fetchNfts: async () => options.nfts ?? [],
    fetchTokenBalances: async () => options.tokens ?? [],
    fetchAsset: async (mint) => options.nfts?.find((n) => n.mint === mint) ?? null,
    fetchImage: async (id) => options.nfts?.find((n) => n.mint === id)?.image || options.images?.[id] || null,
  };
  const nowSeconds = options.now ?? 1_700_100_000;
  const prices = options.prices ?? {
    tokens: { [USDC]: "1", [SOL]: "150" },
    collections: Object.fromEntries(
      options.catalog.collections.map((c) => [c.collectionId, 12_500_000_000n]),
    ),
  };
  const app = await createApp(config, {
    db,
    rpc,
    catalogSource,
    assetSource,
    now: () => nowSeconds,
    valuationSources: createFixedValuationSources(prices, () => nowSeconds),
  });
  const indexer = createIndexer({
    db,
    rpc,
    wsUrl: "ws://127.0.0.1:9",
    programId: "11111111111111111111111111111111",
    reconcileIntervalMs: 60_000,
    log: app.log,
    now: () => nowSeconds,
  });
  return { app, indexer, rpc };
}
