import { readFileSync } from "node:fs";
import { DEMO_WORLD } from "@cistern/localnet";
import { describeErrorForUser, ERROR_CODES } from "@cistern/protocol";
import { describe, expect, it } from "vitest";
import {
  createFileCatalogSource,
  getCatalogFilePath,
  parseCatalog,
} from "../../src/assets/catalog-source.ts";
import { decideNftValue, summariseBook } from "../../src/valuation/nft-value-rule.ts";
import { SlotTwap, TWAP_MAX_STEP_BPS } from "../../src/valuation/slot-twap.ts";
import { createValuationService } from "../../src/valuation/valuation-service.ts";
import type {
  CollectionValueSource,
  TokenPriceSource,
  TokenReading,
} from "../../src/valuation/valuation-types.ts";

const SOL = 1_000_000_000n;
const silent = { warn: () => undefined };

describe("pool time-weighted price (slot-twap)", () => {
  const window = 150;
  const p = 150_000_000_000n; // 150 USD in nano-USD

  it("a swap of any size that holds one slot moves the price by at most 10% / window", () => {
    const twap = new SlotTwap(window);
    for (let slot = 1; slot <= 200; slot++) twap.observe(slot, p, slot);
    expect(twap.value()!.priceNanos).toBe(p);
    twap.observe(201, p * 100n, 201); // a swap that moved the spot 100x
    const moved = twap.value()!.priceNanos - p;
    const bound = (p * TWAP_MAX_STEP_BPS) / 10_000n / BigInt(window);
    expect(moved).toBeGreaterThan(0n);
    expect(moved).toBeLessThanOrEqual(bound); // 0.067% of the price
    twap.observe(202, p, 202); // swapped back the next slot
    expect(twap.value()!.priceNanos - p).toBeLessThanOrEqual(bound);
  });

  it("a sustained move shows in full once the readings caught up and a whole window passed", () => {
    const twap = new SlotTwap(window);
    for (let slot = 1; slot <= 200; slot++) twap.observe(slot, p, slot);
    let slot = 200;
    // 2x: ln 2 / ln 1.1 = 7.3 readings to catch up, then a window
    for (; slot < 200 + 8 + window; ) twap.observe(++slot, 2n * p, slot);
    const v = twap.value()!;
    expect(v.priceNanos).toBe(2n * p);
    expect(v.confidenceNanos).toBe(0n);
    // half way through, the price is between the two and the confidence is wide
    const half = new SlotTwap(window);
    for (let s = 1; s <= 200; s++) half.observe(s, p, s);
    for (let s = 201; s <= 275; s++) half.observe(s, 2n * p, s);
    expect(half.value()!.priceNanos).toBeGreaterThan(p);
    expect(half.value()!.priceNanos).toBeLessThan(2n * p);
    expect(half.value()!.confidenceNanos).toBeGreaterThan(p / 4n);
  });

  it("ignores a reading that is not newer than the last one", () => {
    const twap = new SlotTwap(10);
    twap.observe(5, p, 5);
    twap.observe(5, 2n * p, 5);
    twap.observe(4, 2n * p, 4);
    expect(twap.value()!.priceNanos).toBe(p);
  });
});

describe("NFT value rule (lower of floor and 125% of the best bid, 2 listings and 1 bid at least)", () => {
  it("a single listing, or listings without a bid, give no value", () => {
    expect(decideNftValue(summariseBook([10n * SOL], [9n * SOL])).valueLamports).toBeNull();
    expect(decideNftValue(summariseBook([10n * SOL, 11n * SOL], [])).refusal).toBe("no collection bid");
  });

  it("a high bid cannot lift the value above the floor; a floor far above the bid is capped", () => {
    expect(decideNftValue(summariseBook([10n * SOL, 12n * SOL], [50n * SOL])).valueLamports).toBe(10n * SOL);
    // someone bought every cheap listing and listed two at 100 SOL: the value stays at 125% of the 8 SOL bid
    expect(decideNftValue(summariseBook([100n * SOL, 100n * SOL], [8n * SOL])).valueLamports).toBe(10n * SOL);
  });
});

describe("valuation service guards", () => {
  const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
  const JTO = DEMO_WORLD.tokens.find((t) => t.symbol === "JTO")!.mint;
  const catalog = parseCatalog(JSON.parse(JSON.stringify(DEMO_CATALOG())), "test");
  function service(readings: () => TokenReading[], now: () => number) {
    const tokens: TokenPriceSource = {
      name: "test",
      refreshMs: 1000,
      fetchTokens: async () => new Map(readings().map((r) => [r.mint, r])),
    };
    const collections: CollectionValueSource = {
      name: "test",
      refreshMs: 1000,
      fetchCollections: async () => new Map(),
    };
    return createValuationService({
      catalog: async () => catalog,
      tokens,
      collections,
      guards: { maxAgeSeconds: 60, maxConfidenceBps: 1000 },
      now,
      log: silent,
    });
  }
  const reading = (mint: string, price: bigint, conf: bigint, at: number): TokenReading => ({
    mint,
    priceNanos: price,
    confidenceNanos: conf,
    observedAt: at,
    source: "test",
  });

  it("refuses a missing, a stale and a too uncertain price, and shows only the usable ones", async () => {
    let now = 1000;
    const s = service(
      () => [reading(USDC, SOL, 0n, 1000), reading(JTO, 2n * SOL, SOL / 2n, 1000)],
      () => now,
    );
    await s.refresh();
    expect(s.token(USDC).ok).toBe(true);
    expect(s.token(JTO)).toEqual({ ok: false, reason: "wide" }); // 25% confidence
    expect(s.token("So11111111111111111111111111111111111111112")).toEqual({ ok: false, reason: "missing" });
    expect([...s.getPrices().keys()]).toEqual([USDC]);
    now = 1061;
    expect(s.token(USDC)).toEqual({ ok: false, reason: "stale" });
    expect(s.getPrices().size).toBe(0);
    expect(s.collection(catalog.collections[0]!.collectionId)).toEqual({ ok: false, reason: "missing" });
  });

  it("keeps the last readings when a refresh fails, until they are stale", async () => {
    let now = 1000;
    let fail = false;
    const s = service(
      () => {
        if (fail) throw new Error("down");
        return [reading(USDC, SOL, 0n, now)];
      },
      () => now,
    );
    await s.refresh();
    fail = true;
    now = 1030;
    await s.refresh();
    expect(s.token(USDC).ok).toBe(true);
    now = 1061;
    await s.refresh();
    expect(s.token(USDC).ok).toBe(false);
  });

  it("the refusal's code has the protocol's sentence naming the collection", () => {
    expect(
      describeErrorForUser(
        {
          code: ERROR_CODES.NO_RELIABLE_PRICE,
          name: "NO_RELIABLE_PRICE",
          message: "No reliable price for Cistern Otters right now",
          params: { collection: "Cistern Otters" },
        },
        { amount: () => "" },
      ),
    ).toBe("No reliable price for Cistern Otters right now.");
  });
});

function DEMO_CATALOG() {
  return JSON.parse(readFileSync(getCatalogFilePath("localnet"), "utf8"));
}

describe("catalogue files", () => {
  it("the localnet's file is the demo world's tokens and collections", async () => {
    const catalog = await createFileCatalogSource(getCatalogFilePath("localnet")).fetchCatalog();
    expect(catalog.tokens.map((t) => [t.mint, t.symbol, t.decimals, t.role])).toEqual(
      DEMO_WORLD.tokens.map((t) => [t.mint, t.symbol, t.decimals, t.role]),
    );
    expect(catalog.collections.map((c) => [c.collectionId, c.name, c.standard])).toEqual([
      ...DEMO_WORLD.collections.map((c) => [c.collectionId, c.name, "NonFungible"]),
      ...DEMO_WORLD.programmableCollections.map((c) => [c.collectionId, c.name, "ProgrammableNonFungible"]),
      ...DEMO_WORLD.coreCollections.map((c) => [c.collectionId, c.name, "Core"]),
      ...DEMO_WORLD.compressedCollections.map((c) => [c.collectionId, c.name, "Compressed"]),
    ]);
  });

  it("the devnet and mainnet files load, every token with a Pyth feed", async () => {
    for (const cluster of ["devnet", "mainnet"]) {
      const catalog = await createFileCatalogSource(getCatalogFilePath(cluster)).fetchCatalog();
      expect(catalog.tokens.length).toBeGreaterThan(0);
      for (const t of catalog.tokens) expect(t.pythFeedId).toMatch(/^0x[0-9a-f]{64}$/);
    }
  });

  it("names the first bad entry", () => {
    const good = DEMO_CATALOG();
    expect(() => parseCatalog({ tokens: [] }, "x")).toThrow(/needs tokens and collections/);
    expect(() => parseCatalog({ ...good, tokens: [{ ...good.tokens[0], decimals: 1.5 }] }, "x")).toThrow(
      /tokens\[0\]\.decimals/,
    );
    expect(() =>
      parseCatalog({ ...good, collections: [{ ...good.collections[0], standard: "Fungible" }] }, "x"),
    ).toThrow(/collections\[0\]\.standard/);
    expect(() => parseCatalog({ ...good, tokens: [good.tokens[0], good.tokens[0]] }, "x")).toThrow(/twice/);
  });
});
