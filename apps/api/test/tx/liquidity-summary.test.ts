import type { PoolAccount } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  getAverageAprBps,
  getMedianAprBps,
  getUtilizationRatio,
} from "../../src/tx/calculator/liquidity-summary.ts";
import { registerTxRoutes } from "../../src/tx/index.ts";
import { bytesOf, makeBank, makePool, randomAddress, SOL, USDC } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

describe("liquidity summary arithmetic (bigint, rounding for the pool)", () => {
  it("rounds APR means up, never down", () => {
    expect(getAverageAprBps([])).toBe(0);
    expect(getAverageAprBps([1000, 1001])).toBe(1001);
    expect(getAverageAprBps([1000, 1000, 1001])).toBe(1001);
    expect(getAverageAprBps([1200, 1200])).toBe(1200);
    expect(getMedianAprBps([])).toBe(0);
    expect(getMedianAprBps([3000, 1000, 2000])).toBe(2000);
    expect(getMedianAprBps([1000, 1501, 2000, 3000])).toBe(1751);
    expect(getMedianAprBps([1000, 1500, 2000, 3000])).toBe(1750);
  });
  it("gives utilisation to six decimals, rounded down, exact beyond 2^53", () => {
    expect(getUtilizationRatio(0n, 0n)).toBe(0);
    expect(getUtilizationRatio(1n, 2n)).toBe(0.333333);
    expect(getUtilizationRatio(2n, 1n)).toBe(0.666666);
    expect(getUtilizationRatio(10n ** 25n, 0n)).toBe(1);
    expect(getUtilizationRatio(2n ** 64n - 1n, 2n ** 64n - 1n)).toBe(0.5);
  });
});

describe.each(ENGINES)("GET /defi/liquidity and /liquidity/summary over indexed pools (%s)", (engine) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  const JTO = randomAddress();
  const BONK = randomAddress();
  const WIF = randomAddress();
  const PYTH = randomAddress();
  const address = () => randomAddress();
  const banks = {
    // 1 billion delegated to the lending venue is lendable (TakeLoan pulls it back): lendable 4e9, lent 1e9
    a: {
      key: address(),
      bank: makeBank({
        totalLiquidity: 5_000_000_000n,
        availableLiquidity: 3_000_000_000n,
        delegatedLiquidity: 1_000_000_000n,
      }),
    },
    b: {
      key: address(),
      bank: makeBank({ totalLiquidity: 2_000_000_000n, availableLiquidity: 2_000_000_000n }),
    },
    c: { key: address(), bank: makeBank({ totalLiquidity: 1_000_000_001n, availableLiquidity: 1n }) },
    d: { key: address(), bank: makeBank({ totalLiquidity: 500_000_000n, availableLiquidity: 500_000_000n }) },
    e: {
      key: address(),
      bank: makeBank({ totalLiquidity: 7_000_000_000n, availableLiquidity: 7_000_000_000n }),
    },
    sol: {
      key: address(),
      bank: makeBank({
        mint: SOL,
        decimals: 9,
        totalLiquidity: 9_000_000_000n,
        availableLiquidity: 8_000_000_000n,
      }),
    },
  };
  let createdAt = 1_700_000_000n;
  const pools: Record<string, { key: Address; pool: PoolAccount }> = {};
  function pool(
    name: string,
    bank: keyof typeof banks,
    aprBps: number,
    collateral: Address[],
    overrides: Partial<PoolAccount> = {},
  ) {
    createdAt += 10n;
    const b = banks[bank];
    pools[name] = {
      key: address(),
      pool: makePool(b.key, b.bank, {
        poolType: "defi-pool",
        loanAprBps: aprBps,
        createdAt,
        collections: collateral.map((id) => ({
          id,
          ltvBps: 5000,
          exposureBps: 5000,
          borrowedAmount: 0n,
          ongoingLoans: 0n,
        })),
        ...overrides,
      }),
    };
  }
  pool("p1", "a", 1000, [JTO]);
  pool("p2", "a", 1501, [JTO, BONK]);
  pool("p3", "b", 2000, [BONK]);
  pool("p4", "c", 3000, [WIF]);
  pool("p5", "d", 1000, [PYTH]);
  pool("p6", "d", 1200, [PYTH]);
  pool("frozen", "b", 10, [randomAddress()], { status: "Frozen" });
  pool("oldLayout", "e", 10, [randomAddress()]);
  pool("nft", "a", 50, [randomAddress()], { poolType: "nft-pool" });
  pool("sol", "sol", 700, [USDC]);

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    const built = await createTestApp(t.db, { catalog: makeCatalog(randomAddress()) });
    app = built.app;
    await registerTxRoutes(app, {
      env: {
        LENDING_PROGRAM_ID: "Cistern1111111111111111111111111111111111111",
        SOLANA_RPC_URL: "http://127.0.0.1:9",
      },
    });
    await app.ready();
    for (const { key, bank } of Object.values(banks))
      await built.indexer.applyAccount(key, bytesOf.bank(bank), 10);
    for (const { key, pool: p } of Object.values(pools))
      await built.indexer.applyAccount(key, bytesOf.pool(p), 10);
    // what the indexer writes for a pool still at the layout before the program's 1.8 upgrade: it lends nothing
    await t.db.query("UPDATE pools SET layout_version = 1 WHERE pubkey = $1", [pools.oldLayout!.key]);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const get = async (url: string) => {
    const r = await app.inject({ method: "GET", url });
    return { status: r.statusCode, body: r.json() };
  };
  const keysOf = (list: { pubkey: string }[]) => list.map((p) => p.pubkey);

  it("answers the spec's summary for each currency lent by open defi-pools, from the banks behind them", async () => {
    const { status, body } = await get("/defi/liquidity");
    expect(status).toBe(200);
    expect(body.map((s: { currency: string }) => s.currency)).toEqual([USDC, SOL]);
    const usdc = body[0];
    expect(Object.keys(usdc).sort()).toEqual(
      [
        "currency",
        "totalPools",
        "averageApr",
        "medianApr",
        "availableLiquidity",
        "availableLiquidityUsd",
        "totalBorrowed",
        "utilizationRatio",
        "mints",
        "pairsSupported",
        "largestPools",
      ].sort(),
    );
    expect(usdc).toMatchObject({
      currency: USDC,
      // p1..p6; not the frozen pool, the pool waiting for Migrate, nor the nft-pool
      totalPools: 6,
      // (1000 + 1501 + 2000 + 3000 + 1000 + 1200) / 6 = 1616.83 -> 1617; median (1200 + 1501) / 2 = 1350.5 -> 1351
      averageApr: 1617,
      medianApr: 1351,
      // banks a (3e9 idle + 1e9 delegated), b (2e9), c (1), d (5e8), each once though a and d back two pools
      availableLiquidity: "6500000001",
      // a lent 1e9, c lent 1e9
      totalBorrowed: "2000000000",
      // 2e9 / 8,500,000,001 = 0.2352941176... rounded down
      utilizationRatio: 0.235294,
      mints: [JTO, BONK, WIF, PYTH],
      pairsSupported: 4,
    });
    // USDC at 1 USD (the local price source drifts at most 1%), rounded down to a micro-dollar
    expect(usdc.availableLiquidityUsd).toBeGreaterThan(6500 * 0.99);
    expect(usdc.availableLiquidityUsd).toBeLessThan(6500 * 1.01);
    expect(Math.round(usdc.availableLiquidityUsd * 1e6)).toBe(usdc.availableLiquidityUsd * 1e6);
    // the three largest banks by total liquidity: a (5e9), b (2e9), c (1e9 + 1); d (5e8) is left out
    expect(keysOf(usdc.largestPools)).toEqual([pools.p1!.key, pools.p2!.key, pools.p3!.key, pools.p4!.key]);
    expect(usdc.largestPools[0]).toMatchObject({
      type: "defi-pool",
      loanCurve: { apr: 1000 },
      bank: banks.a.key,
    });
    expect(body[1]).toMatchObject({
      currency: SOL,
      totalPools: 1,
      averageApr: 700,
      medianApr: 700,
      availableLiquidity: "8000000000",
      totalBorrowed: "1000000000",
      utilizationRatio: 0.111111,
      mints: [USDC],
      pairsSupported: 1,
    });
  });

  it("answers one currency on its own, and zeros for a currency no open pool lends", async () => {
    const sol = await get(`/defi/liquidity?currency=${SOL}`);
    expect(sol.body.map((s: { currency: string }) => s.currency)).toEqual([SOL]);
    const nothing = randomAddress();
    expect((await get(`/defi/liquidity?currency=${nothing}`)).body).toEqual([
      {
        currency: nothing,
        totalPools: 0,
        averageApr: 0,
        medianApr: 0,
        availableLiquidity: "0",
        availableLiquidityUsd: 0,
        totalBorrowed: "0",
        utilizationRatio: 0,
        mints: [],
        pairsSupported: 0,
        largestPools: [],
      },
    ]);
    const bad = await get("/defi/liquidity?currency=not-a-mint");
    expect([bad.status, bad.body.message]).toEqual([400, expect.stringContaining("currency")]);
  });

  it("/liquidity/summary gives the same summary over both pool types", async () => {
    const { status, body } = await get(`/liquidity/summary?currency=${USDC}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      currency: USDC,
      totalPools: 7,
      // (9701 + 50) / 7 = 1393.0 -> 1393; median of 50, 1000, 1000, 1200, 1501, 2000, 3000 = 1200
      averageApr: 1393,
      medianApr: 1200,
      availableLiquidity: "6500000001",
      totalBorrowed: "2000000000",
      pairsSupported: 5,
    });
    expect(keysOf(body.largestPools)).toEqual([
      pools.p1!.key,
      pools.p2!.key,
      pools.nft!.key,
      pools.p3!.key,
      pools.p4!.key,
    ]);
  });
});
