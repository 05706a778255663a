import { afterEach, describe, expect, it } from "vitest";
import { createMarketplaceStatsValueSource } from "../../src/valuation/marketplace-stats-values.ts";
import { createPythHermesPriceSource } from "../../src/valuation/pyth-hermes-prices.ts";
import { createValuationService } from "../../src/valuation/valuation-service.ts";
import { startHttpServer } from "../helpers/http-server.ts";

const SOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SOL_FEED = "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d";
const USDC_FEED = "eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a";
const COLLECTION = "J1S9H3QjnRtBbbuD4HjPV6RpRhwuk4zKbxsnCHuTgh9w";
const NOW = 1_764_200_000;

/** A recorded Hermes answer (GET /v2/updates/price/latest?ids[]=..&parsed=true), binary part shortened. */
function hermesAnswer(publishTime: number, solConf = "11223344") {
  return {
    binary: { encoding: "hex", data: ["504e41550100000003b801000000040d00"] },
    parsed: [
      {
        id: SOL_FEED,
        price: { price: "14523456789", conf: solConf, expo: -8, publish_time: publishTime },
        ema_price: { price: "14498765432", conf: "10987654", expo: -8, publish_time: publishTime },
        metadata: {
          slot: 250_123_456,
          proof_available_time: publishTime + 1,
          prev_publish_time: publishTime - 1,
        },
      },
      {
        id: USDC_FEED,
        price: { price: "99987654", conf: "87654", expo: -8, publish_time: publishTime },
        ema_price: { price: "99990000", conf: "80000", expo: -8, publish_time: publishTime },
        metadata: {
          slot: 250_123_456,
          proof_available_time: publishTime + 1,
          prev_publish_time: publishTime - 1,
        },
      },
    ],
  };
}

const tokens = [
  { mint: SOL, symbol: "SOL", decimals: 9, pythFeedId: `0x${SOL_FEED}` },
  { mint: USDC, symbol: "USDC", decimals: 6, pythFeedId: `0x${USDC_FEED}` },
];

describe("Pyth Hermes adapter against a server answering Hermes' shapes", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it("asks for every feed in one request and scales price and confidence by expo", async () => {
    const server = await startHttpServer((req, res) => {
      expect(req.headers.authorization).toBe("Bearer hermes-key");
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(hermesAnswer(NOW - 3)));
    });
    close = server.close;
    const source = createPythHermesPriceSource({
      baseUrl: server.url,
      apiKey: "hermes-key",
      refreshMs: 1000,
    });
    const prices = await source.fetchTokens(tokens);
    expect(prices.get(SOL)).toMatchObject({
      priceNanos: 145_234_567_890n,
      observedAt: NOW - 3,
      source: "pyth",
    });
    expect(prices.get(SOL)!.confidenceNanos).toBe(112_233_441n); // 0.11223344 USD, rounded up
    expect(prices.get(USDC)!.priceNanos).toBe(999_876_540n);
    const url = new URL(server.requests[0]!.slice(4), "http://x");
    expect(url.pathname).toBe("/v2/updates/price/latest");
    expect(url.searchParams.getAll("ids[]")).toEqual([SOL_FEED, USDC_FEED]);
    expect(url.searchParams.get("parsed")).toBe("true");
  });

  it("a price published too long ago, or with too wide a confidence, is refused by the guards", async () => {
    let answer = hermesAnswer(NOW - 120);
    const server = await startHttpServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(answer));
    });
    close = server.close;
    const service = createValuationService({
      catalog: async () => ({
        tokens: tokens.map((t) => ({ ...t, name: t.symbol, image: "", role: "currency" as const })),
        collections: [],
      }),
      tokens: createPythHermesPriceSource({ baseUrl: server.url, refreshMs: 1000 }),
      collections: { name: "none", refreshMs: 1000, fetchCollections: async () => new Map() },
      guards: { maxAgeSeconds: 60, maxConfidenceBps: 100 },
      now: () => NOW,
      log: { warn: () => undefined },
    });
    await service.refresh();
    expect(service.token(SOL)).toEqual({ ok: false, reason: "stale" });
    answer = hermesAnswer(NOW - 2, "500000000"); // 5 USD of 145: 3.4%
    await service.refresh();
    expect(service.token(SOL)).toEqual({ ok: false, reason: "wide" });
    expect(service.token(USDC).ok).toBe(true);
  });
});

describe("Magic Eden and Tensor collection stats against servers answering their shapes", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });
  const collection = {
    collectionId: COLLECTION,
    name: "Mad Lads",
    magicEdenSlug: "mad_lads",
    tensorSlug: "madlads",
  };

  async function servers(me: unknown, tensor: unknown) {
    const magicEden = await startHttpServer((req, res) => {
      expect(req.headers.authorization).toBe("Bearer me-key");
      res.setHeader("content-type", "application/json");
      if (me === null) res.statusCode = 404;
      res.end(JSON.stringify(me ?? { message: "not found" }));
    });
    const tn = await startHttpServer((req, res) => {
      expect(req.headers["x-tensor-api-key"]).toBe("tensor-key");
      res.setHeader("content-type", "application/json");
      if (tensor === null) res.statusCode = 404;
      res.end(JSON.stringify(tensor ?? { message: "not found" }));
    });
    closers.push(magicEden.close, tn.close);
    const source = createMarketplaceStatsValueSource({
      magicEden: { baseUrl: magicEden.url, apiKey: "me-key" },
      tensor: { baseUrl: tn.url, apiKey: "tensor-key" },
      refreshMs: 1000,
      now: () => NOW,
    });
    return { source, magicEden, tensor: tn };
  }

  it("values a collection at the lower floor, capped by Tensor's best bid, with the marketplaces' listed counts", async () => {
    const { source, magicEden, tensor } = await servers(
      // GET /v2/collections/mad_lads/stats
      {
        symbol: "mad_lads",
        floorPrice: 28_500_000_000,
        listedCount: 412,
        avgPrice24hr: 29_100_000_000,
        volumeAll: 5.83e15,
      },
      // GET /collections/find_collection?filter=madlads
      {
        collId: "05c52d84-2e49-4ed9-a473-b43cab41e777",
        slug: "madlads",
        stats: {
          priceUnit: "SOL_LAMPORT",
          buyNowPrice: "28400000000",
          sellNowPrice: "27100000000",
          numListed: 398,
        },
      },
    );
    const values = await source.fetchCollections([collection], new Map());
    expect(values.get(COLLECTION)).toMatchObject({
      valueLamports: 28_400_000_000n,
      floorLamports: 28_400_000_000n,
      bestBidLamports: 27_100_000_000n,
      listings: 412,
      bids: 1,
      observedAt: NOW,
    });
    expect(magicEden.requests).toEqual(["GET /v2/collections/mad_lads/stats"]);
    expect(tensor.requests).toEqual(["GET /collections/find_collection?filter=madlads"]);
  });

  it("without a bid (Magic Eden's stats alone) or with one listing there is no value", async () => {
    const meOnly = await servers({ symbol: "mad_lads", floorPrice: 28_500_000_000, listedCount: 412 }, null);
    expect((await meOnly.source.fetchCollections([collection], new Map())).get(COLLECTION)).toMatchObject({
      valueLamports: null,
      refusal: "no collection bid",
    });
    const thin = await servers(
      { symbol: "mad_lads", floorPrice: 90_000_000_000, listedCount: 1 },
      {
        collId: "x",
        slug: "madlads",
        stats: { buyNowPrice: "90000000000", sellNowPrice: "1000000000", numListed: 1 },
      },
    );
    expect((await thin.source.fetchCollections([collection], new Map())).get(COLLECTION)).toMatchObject({
      valueLamports: null,
      refusal: "2 listings needed, 1 found",
    });
  });

  it("a collection unknown to both marketplaces has no reading", async () => {
    const { source } = await servers(null, null);
    expect((await source.fetchCollections([collection], new Map())).has(COLLECTION)).toBe(false);
  });
});
