import { parseBank, parseLoanList, parsePool } from "@cistern/protocol";
import type { Address } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesOf, makeBank, makeLoan, makePool, randomAddress, USDC } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

const NOW = 1_700_100_000;

describe.each(ENGINES)("read routes over indexed accounts (%s)", (engine) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  const bankAddress = randomAddress();
  const bank = makeBank({ totalLiquidity: 1_000_000_000n, availableLiquidity: 800_000_000n });
  const poolAddress = randomAddress();
  const pool = makePool(bankAddress, bank, {
    totalLoans: 5n,
    currentLoans: 2n,
    borrowedAmount: 200_000_000n,
    totalLiquidations: 1n,
    loanAprBps: 5000,
  });
  const collection = pool.collections[0]!.id;
  const borrower = randomAddress();
  const other = randomAddress();
  const keys = Array.from({ length: 5 }, () => randomAddress());
  const loans = [
    makeLoan(poolAddress, pool, { borrower, createdAt: 1_700_050_000n, nonce: 1n }),
    makeLoan(poolAddress, pool, {
      borrower,
      createdAt: 1_700_010_000n,
      nonce: 2n,
      status: "Repaid",
      repaidAt: 1_700_020_000n,
      repaidAmount: 100_300_000n,
      protocolFeePaid: 60_000n,
    }),
    makeLoan(poolAddress, pool, {
      borrower: other,
      createdAt: 1_699_000_000n,
      nonce: 3n,
      status: "Liquidated",
      liquidatedAt: 1_699_700_000n,
    }),
    makeLoan(poolAddress, pool, {
      borrower,
      createdAt: 1_700_030_000n,
      nonce: 4n,
      status: "Repaid",
      repaidAt: 1_700_040_000n,
      repaidAmount: 100_200_000n,
      protocolFeePaid: 40_000n,
      extendedTo: keys[4]!,
    }),
    makeLoan(poolAddress, pool, { borrower, createdAt: 1_700_040_000n, nonce: 5n }),
  ];

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    const built = await createTestApp(t.db, { catalog: makeCatalog(collection), now: NOW });
    app = built.app;
    await built.indexer.applyAccount(bankAddress, bytesOf.bank(bank), 100);
    await built.indexer.applyAccount(poolAddress, bytesOf.pool(pool), 100);
    for (const [i, loan] of loans.entries())
      await built.indexer.applyAccount(keys[i]!, bytesOf.loan(loan), 100 + i);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const get = async (url: string) => {
    const response = await app.inject({ method: "GET", url });
    return { status: response.statusCode, body: response.json() };
  };

  it("lists a borrower's loans newest first with counts, in a shape the protocol parser reads", async () => {
    const { status, body } = await get(`/loan/user?pubkey=${borrower}`);
    expect(status).toBe(200);
    const list = parseLoanList(body);
    expect(list.totalCount).toBe(4);
    expect(list.ongoingCount).toBe(2);
    expect(list.loans.map((l) => l.pubkey)).toEqual([keys[0], keys[4], keys[3], keys[1]]);
    expect(list.loans[0]).toMatchObject({
      status: "Ongoing",
      amount: 100_000_000n,
      isDefi: false,
      collection,
      currency: USDC,
      duration: 604_800,
      expiredAt: 1_700_050_000 + 604_800,
    });
    // USD at the local price source (USDC seeded at 1 with at most 1% drift).
    expect(list.loans[0]!.metadata!.borrowedAmountUsd).toBeGreaterThanOrEqual(99);
    expect(list.loans[0]!.metadata!.borrowedAmountUsd).toBeLessThanOrEqual(101);
  });

  it("paginates and filters by status", async () => {
    const page = parseLoanList((await get(`/loan/user?pubkey=${borrower}&limit=1&offset=1`)).body);
    expect(page.loans.map((l) => l.pubkey)).toEqual([keys[4]]);
    expect(page.totalCount).toBe(4);
    const repaid = parseLoanList((await get(`/loan/user?pubkey=${borrower}&status=repaid`)).body);
    expect(repaid.loans.map((l) => l.pubkey).sort()).toEqual([keys[1], keys[3]].sort());
    expect(repaid.ongoingCount).toBe(0);
  });

  it("lists loans by pool, collection, currency and lender", async () => {
    for (const url of [
      `/loan/pool?pubkey=${poolAddress}`,
      `/loan/collection?collection=${collection}`,
      `/loan/loans-by-currency?currency=${USDC}`,
      `/dirty/activity-by-lender?pubkey=${bank.owner}`,
    ]) {
      const list = parseLoanList((await get(url)).body);
      expect(list.totalCount, url).toBe(5);
      expect(list.ongoingCount, url).toBe(2);
    }
  });

  it("answers one pool with its bank's liquidity, and null for an unknown pool", async () => {
    const { status, body } = await get(`/pool/pool?pubkey=${poolAddress}`);
    expect(status).toBe(200);
    const parsed = parsePool(body);
    expect(parsed).toMatchObject({
      pubkey: poolAddress,
      owner: bank.owner,
      type: "nft-pool",
      bank: bankAddress,
      currency: USDC,
      totalLiquidity: 1_000_000_000n,
      availableLiquidity: 800_000_000n,
      borrowedLiquidity: 200_000_000n,
      loanCurve: { apr: 5000 },
      limits: { minDuration: 86_400, maxDuration: 604_800, minAmountUsd: 10, maxAmountUsd: 100_000 },
    });
    expect(parsed.collections).toEqual([
      { collection, collectionLtv: 6000, exposure: 5000, borrowedAmount: 0n },
    ]);
    const missing = await app.inject({ method: "GET", url: `/pool/pool?pubkey=${randomAddress()}` });
    expect(missing.statusCode).toBe(200);
    expect(missing.body).toBe("null");
  });

  it("answers banks: one bank, a user's banks, unknown bank null, authorization", async () => {
    const parsed = parseBank((await get(`/bank/bank?pubkey=${bankAddress}`)).body);
    expect(parsed).toMatchObject({ owner: bank.owner, mint: USDC, borrowedLiquidity: 200_000_000n });
    expect((await get(`/bank/user?pubkey=${bank.owner}`)).body).toHaveLength(1);
    const missing = await app.inject({ method: "GET", url: `/bank/bank?pubkey=${randomAddress()}` });
    expect([missing.statusCode, missing.body]).toEqual([200, "null"]);
    expect(
      (await get(`/dirty/authorization?authority=${bank.owner}&bank=${bankAddress}`)).body.isAuthorized,
    ).toBe(true);
    expect(
      (await get(`/dirty/authorization?authority=${borrower}&bank=${bankAddress}`)).body.isAuthorized,
    ).toBe(false);
  });

  it("lists pools with banks, by owner, and metadata by pool key", async () => {
    const pools = (await get(`/dirty/pools?currency=${USDC}`)).body;
    expect(pools.totalCount).toBe(1);
    expect(pools.banks.map((b: { pubkey: string }) => b.pubkey)).toEqual([bankAddress]);
    const byOwner = (await get(`/pool/get-by-owner?owner=${bank.owner}`)).body;
    expect(byOwner.pools.map((p: { pubkey: string }) => p.pubkey)).toEqual([poolAddress]);
    const metadata = (await get(`/dirty/pools-metadata?pubkeys=${poolAddress}`)).body;
    expect(metadata).toEqual([{ pubkey: poolAddress, metadata: { name: "", thumbnail: "" } }]);
    expect((await get(`/dirty/pools?type=defi-pool`)).body.totalCount).toBe(0);
  });

  it("records loan events: taken, repaid, extended, liquidated", async () => {
    const events = (await get("/loan/latest-activity?limit=100")).body as {
      loan: string;
      kind: string;
      at: number;
    }[];
    const kinds = events.map((e) => `${e.loan}:${e.kind}`).sort();
    expect(kinds).toEqual(
      [
        `${keys[0]}:taken`,
        `${keys[1]}:taken`,
        `${keys[1]}:repaid`,
        `${keys[2]}:taken`,
        `${keys[2]}:liquidated`,
        `${keys[3]}:taken`,
        `${keys[3]}:extended`,
        `${keys[4]}:taken`,
      ].sort(),
    );
    expect(events[0]).toMatchObject({ loan: keys[0], kind: "taken", at: 1_700_050_000 });
    const mine = (await get(`/dirty/activity-by-user?pubkey=${other}`)).body;
    expect(mine.totalCount).toBe(2);
  });

  it("computes lender profit exactly from the chain's repaid amounts and fees", async () => {
    const profit = (await get(`/dirty/lender-profit?pubkey=${bank.owner}`)).body;
    // (100_300_000 - 100_000_000 - 60_000) + (100_200_000 - 100_000_000 - 40_000)
    expect(profit.byCurrency).toEqual([
      expect.objectContaining({
        currency: USDC,
        loansRepaid: 2,
        loansLiquidated: 1,
        interestEarned: "400000",
        principalLiquidated: "100000000",
      }),
    ]);
  });

  it("answers stats, TVL, collateral, liabilities and the liquidity summary", async () => {
    const total = (await get("/loan/stats-total")).body;
    expect(total).toMatchObject({ totalLoans: 5, ongoingLoans: 2, repaidLoans: 2, liquidatedLoans: 1 });
    expect(total.byCurrency[0]).toMatchObject({ currency: USDC, loans: 5, volume: "500000000" });
    const tvl = (await get("/tvl")).body;
    expect(tvl.byCurrency).toEqual([
      expect.objectContaining({
        currency: USDC,
        totalLiquidity: "1000000000",
        borrowedLiquidity: "200000000",
      }),
    ]);
    const collateral = (await get(`/dirty/collateralized-amount-by-user?pubkey=${borrower}`)).body;
    expect(collateral.collateralDetails).toHaveLength(2);
    // Two NFTs at a 12.5 SOL floor, SOL seeded at 150 USD (within the 1% drift).
    expect(collateral.totalCollateralizedAmountUsd).toBeGreaterThan(2 * 12.5 * 150 * 0.99);
    expect(collateral.totalCollateralizedAmountUsd).toBeLessThan(2 * 12.5 * 150 * 1.01);
    const series = (await get(`/liquidity/liabilities?pubkey=${borrower}&days=2`)).body;
    expect(series).toHaveLength(2);
    expect(series[1].date).toBe(
      new Date(Math.floor(NOW / 86_400) * 86_400 * 1000).toISOString().slice(0, 10),
    );
    expect(series[1].liabilities).toBeGreaterThan(199 * 10_000);
    const summary = (await get(`/liquidity/summary?currency=${USDC}`)).body;
    expect(summary).toMatchObject({
      totalPools: 1,
      averageApr: 5000,
      availableLiquidity: "800000000",
      totalBorrowed: "200000000",
      utilizationRatio: 0.2,
      pairsSupported: 1,
    });
    expect(summary.largestPools.map((p: { pubkey: string }) => p.pubkey)).toEqual([poolAddress]);
    const userStats = (await get(`/loan/stats-per-user?pubkey=${bank.owner}`)).body;
    expect(userStats.asLender.totalLoans).toBe(5);
    expect(userStats.asBorrower.totalLoans).toBe(0);
  });

  it("answers collections with floor price and current loans, and currencies keyed by mint", async () => {
    const collections = (await get("/collection/collections")).body;
    expect(collections).toEqual([
      expect.objectContaining({
        collectionId: collection,
        floorPrice: "12500000000",
        currentLoan: 2,
        isLocked: false,
      }),
    ]);
    const currencies = (await get("/currency/currencies")).body;
    expect(Object.keys(currencies).sort()).toEqual(
      [USDC, "So11111111111111111111111111111111111111112"].sort(),
    );
    expect(currencies[USDC].metadata).toMatchObject({ symbol: "USDC", decimals: 6, isLendingCurrency: true });
    expect((await get(`/currency/currency?currencyId=${randomAddress()}`)).body).toBeNull();
  });

  it("rejects bad input with 400 {code, name, message, params} and unknown routes with 404", async () => {
    const bad = await get("/loan/user?pubkey=not-a-key");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe(4400);
    expect(bad.body.message).toMatch(/pubkey/);
    expect((await get(`/loan/user?pubkey=${borrower}&limit=100000`)).status).toBe(400);
    expect((await get(`/loan/user?pubkey=${borrower}&extra=1`)).status).toBe(400);
    const missing = await get("/nope");
    expect(missing).toEqual({
      status: 404,
      body: { code: 4404, name: "NOT_FOUND", message: "Route GET /nope not found", params: {} },
    });
  });

  it("answers users for a comma-separated or repeated pubkeys list, with null profiles and empty chat shapes", async () => {
    const a = randomAddress();
    const b = randomAddress();
    for (const url of [
      `/user/multiple-users?pubkeys=${a},${b}`,
      `/user/multiple-users?pubkeys=${a}&pubkeys=${b}`,
    ]) {
      expect((await get(url)).body).toEqual([
        { pubkey: a, userId: a, profile: null },
        { pubkey: b, userId: b, profile: null },
      ]);
    }
    expect((await get("/user/top-users-chat")).body).toEqual([]);
    expect((await get(`/user/user-addresses?pubkey=${a}`)).body).toEqual({
      pubkey: a,
      user: a,
      addresses: [a],
      linked: [],
    });
    // 100 USDC outstanding for 50,000 + 10,000 + 10,000 + 60,000 s (two ongoing up to now, one repaid, one
    // extended) = 150.46 USD-days at 1 USD (the local price source drifts at most 1%)
    const droplets = (await get(`/user/user-droplets?pubkey=${borrower}`)).body;
    expect(droplets.borrowedUsdDays).toBeGreaterThan(148.9);
    expect(droplets.borrowedUsdDays).toBeLessThan(152);
    expect(droplets.lentUsdDays).toBe(0);
    expect(droplets.droplets).toBe(Math.floor(droplets.borrowedUsdDays));
  });

  it("falls back to 2000, not slow, for chain performance when the RPC is unreachable", async () => {
    expect((await get("/dirty/chain-performance")).body).toEqual({
      tps: 2000,
      source: "fallback",
      slotMs: null,
      slow: false,
      sampleSeconds: 0,
    });
  });

  it("serves the OpenAPI document with every route", async () => {
    const doc = (await get("/docs/json")).body as { paths: Record<string, unknown> };
    for (const path of [
      "/loan/user",
      "/dirty/pools",
      "/prices",
      "/tvl",
      "/asset/assets",
      "/user/user-droplets",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});

describe("address sanity", () => {
  it("random addresses are base58 of 32 bytes", () => {
    expect(randomAddress() as Address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });
});
