import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getMigrations, runMigrations } from "../../src/db/migrate.ts";
import { markPoolClosed, upsertBank, upsertPool } from "../../src/indexer/store.ts";
import { fillMissingViews, refreshPoolViews } from "../../src/pools/stored-views.ts";
import { makeBank, makePool, randomAddress, USDC } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

const SOL = "So11111111111111111111111111111111111111112";

// /dirty/pools is composed by PostgreSQL from the JSON the indexer stores with each row (pools.view_json,
// banks.view_json) and its count from pool_counts: these tests hold it equal to the per-row routes, which map
// rows in TypeScript, through every kind of write.
describe.each(ENGINES)("the pool list from stored views (%s)", (engine) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  const banks = [
    makeBank({ totalLiquidity: 9_000_000_000n, availableLiquidity: 7_000_000_000n }),
    makeBank(),
  ];
  const bankKeys = banks.map(() => randomAddress());
  const solBank = makeBank({ mint: SOL as never });
  const solBankKey = randomAddress();
  // six USDC pools over two banks (newest last), one SOL pool, one defi pool
  const pools = Array.from({ length: 6 }, (_, i) => ({
    key: randomAddress(),
    pool: makePool(bankKeys[i % 2]!, banks[i % 2]!, {
      seed: BigInt(i),
      createdAt: 1_700_000_000n + BigInt(i),
      currentLoans: BigInt(i),
      borrowedAmount: BigInt(i) * 1_000_000n,
    }),
  }));
  const solPool = {
    key: randomAddress(),
    pool: makePool(solBankKey, solBank, { createdAt: 1_700_000_100n }),
  };
  const defiPool = {
    key: randomAddress(),
    pool: makePool(bankKeys[0]!, banks[0]!, { poolType: "defi-pool", createdAt: 1_699_000_000n }),
  };

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    app = (await createTestApp(t.db, { catalog: makeCatalog(randomAddress()), env: { LIST_CACHE_MS: "0" } }))
      .app;
    for (const [i, bank] of banks.entries()) await upsertBank(t.db, bankKeys[i]!, bank, 10);
    await upsertBank(t.db, solBankKey, solBank, 10);
    for (const { key, pool } of [...pools, solPool, defiPool]) await upsertPool(t.db, key, pool, 10);
    // off-chain metadata as the owner's route writes it, with characters JSON must escape
    await t.db.query("UPDATE pools SET name = $2, thumbnail = $3 WHERE pubkey = $1", [
      pools[2]!.key,
      'Otter "prime" \\ pool ✓\n',
      "https://img.example/otter.png",
    ]);
    await refreshPoolViews(t.db, "pubkey", pools[2]!.key);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const get = async (url: string) => {
    const response = await app.inject({ method: "GET", url });
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  const keysOf = (list: { pubkey: string }[]) => list.map((p) => p.pubkey);
  /** Each listed pool and bank equals what the one-row routes answer for it. */
  async function expectSameAsRowRoutes(list: { pools: { pubkey: string }[]; banks: { pubkey: string }[] }) {
    for (const pool of list.pools) expect(pool).toEqual(await get(`/pool/pool?pubkey=${pool.pubkey}`));
    for (const bank of list.banks) expect(bank).toEqual(await get(`/bank/bank?pubkey=${bank.pubkey}`));
  }

  it("lists newest first, each pool and bank as its own route answers it, banks once in order of first use", async () => {
    const list = await get(`/dirty/pools?currency=${USDC}`);
    expect(keysOf(list.pools)).toEqual(
      [...pools]
        .reverse()
        .map((p) => p.key)
        .concat(defiPool.key),
    );
    expect(keysOf(list.banks)).toEqual([bankKeys[1], bankKeys[0]]);
    expect(list.totalCount).toBe(7);
    await expectSameAsRowRoutes(list);
    const named = list.pools.find((p: { pubkey: string }) => p.pubkey === pools[2]!.key);
    expect(named.metadata).toEqual({
      name: 'Otter "prime" \\ pool ✓\n',
      thumbnail: "https://img.example/otter.png",
      banks: [bankKeys[0]],
    });
    expect(named.totalLiquidity).toBe("9000000000");
    expect(named.availableLiquidity).toBe("7000000000");
  });

  it("pages with limit and offset and counts every match, under each filter", async () => {
    const page = await get(`/dirty/pools?currency=${USDC}&limit=2&offset=2`);
    expect(keysOf(page.pools)).toEqual([pools[3]!.key, pools[2]!.key]);
    expect(page.totalCount).toBe(7);
    expect(keysOf(page.banks)).toEqual([bankKeys[1], bankKeys[0]]);
    const beyond = await get(`/dirty/pools?currency=${USDC}&offset=50`);
    expect(beyond).toEqual({ pools: [], banks: [], totalCount: 7 });
    expect((await get("/dirty/pools")).totalCount).toBe(8);
    expect((await get(`/dirty/pools?currency=${SOL}`)).totalCount).toBe(1);
    const defi = await get("/dirty/pools?type=defi-pool");
    expect([keysOf(defi.pools), defi.totalCount]).toEqual([[defiPool.key], 1]);
    const owned = await get(`/dirty/pools?owner=${banks[1]!.owner}`);
    expect([keysOf(owned.pools).length, owned.totalCount]).toEqual([3, 3]);
    expect((await get("/dirty/pools?status=Closed")).totalCount).toBe(0);
  });

  it("follows the indexer's writes: a pool changed, a bank's liquidity, a pool closed, a stale account ignored", async () => {
    const changed = { ...pools[5]!.pool, loanAprBps: 7_300, currentLoans: 9n, updatedAt: 1_700_000_500n };
    await upsertPool(t.db, pools[5]!.key, changed, 20);
    await upsertBank(t.db, bankKeys[1]!, { ...banks[1]!, availableLiquidity: 123n }, 20);
    await markPoolClosed(t.db, pools[4]!.key, 21);
    // an older read of a pool must not overwrite a newer one, in the row or its JSON
    await upsertPool(t.db, pools[5]!.key, { ...changed, loanAprBps: 1 }, 15);

    const list = await get(`/dirty/pools?currency=${USDC}`);
    expect(list.totalCount).toBe(6);
    expect(keysOf(list.pools)).not.toContain(pools[4]!.key);
    expect(list.pools[0]).toMatchObject({
      loanCurve: { apr: 7_300 },
      currentLoan: 9,
      availableLiquidity: "123",
    });
    expect(list.banks[0]).toMatchObject({ pubkey: bankKeys[1], availableLiquidity: "123" });
    await expectSameAsRowRoutes(list);
    const closed = await get("/dirty/pools?status=Closed");
    expect([keysOf(closed.pools), closed.totalCount]).toEqual([[pools[4]!.key], 1]);
    expect(closed.pools[0]).toMatchObject({ status: "Closed", currentLoan: 0 });
    await expectSameAsRowRoutes(closed);
    expect((await get("/dirty/pools?status=all")).totalCount).toBe(8);
  });

  it("says which pools await Migrate: a pool read at layout v1, then again after Migrate", async () => {
    const key = pools[0]!.key;
    await upsertPool(t.db, key, { ...pools[0]!.pool, layoutVersion: 1 }, 30);
    const before = (await get("/dirty/pools?status=all")).pools.find(
      (p: { pubkey: string }) => p.pubkey === key,
    );
    expect(before).toMatchObject({ layoutVersion: 1, needsMigration: true });
    expect(before).toEqual(await get(`/pool/pool?pubkey=${key}`));
    await upsertPool(t.db, key, { ...pools[0]!.pool, layoutVersion: 2, migratedAt: 1_700_000_900n }, 31);
    expect(await get(`/pool/pool?pubkey=${key}`)).toMatchObject({ layoutVersion: 2, needsMigration: false });
  });

  it("writes the newest row's JSON when another writer changes the row between its read and its write", async () => {
    const key = pools[1]!.key;
    let raced = false;
    const racing = {
      async query<T>(sql: string, params?: readonly unknown[]): Promise<T[]> {
        if (!raced && sql.startsWith("UPDATE pools SET view_json")) {
          raced = true; // the owner renames the pool after this refresh read the row
          await t.db.query("UPDATE pools SET name = 'Renamed meanwhile' WHERE pubkey = $1", [key]);
        }
        return t.db.query<T>(sql, params as never);
      },
    };
    await refreshPoolViews(racing, "pubkey", key);
    expect(raced).toBe(true);
    const listed = (await get("/dirty/pools?status=all")).pools.find(
      (p: { pubkey: string }) => p.pubkey === key,
    );
    expect(listed.metadata.name).toBe("Renamed meanwhile");
    expect(listed).toEqual(await get(`/pool/pool?pubkey=${key}`));
  });

  it("fills the JSON of rows written before it was stored, and lists them the same", async () => {
    const before = await get("/dirty/pools?status=all");
    await t.db.query("UPDATE pools SET view_json = NULL");
    await t.db.query("UPDATE banks SET view_json = NULL");
    expect(await fillMissingViews(t.db, 3)).toBe(8 + 3);
    expect(await fillMissingViews(t.db)).toBe(0);
    expect(await get("/dirty/pools?status=all")).toEqual(before);
  });
});

describe.each(ENGINES)("the cached pool list (%s)", (engine) => {
  it("answers from its cache until a pool or bank is written, then at once from the new rows", async () => {
    const t = await createTestDatabase(engine);
    const app = (await createTestApp(t.db, { catalog: makeCatalog(randomAddress()) })).app; // default 10 s cache
    try {
      const bank = makeBank();
      const bankKey = randomAddress();
      const key = randomAddress();
      await upsertBank(t.db, bankKey, bank, 1);
      await upsertPool(t.db, key, makePool(bankKey, bank, { loanAprBps: 4_000 }), 1);
      const list = async () => (await app.inject({ method: "GET", url: "/dirty/pools" })).json();
      /** The first answer within 2 s that passes `ok`, well inside the cache's 10 s. */
      const eventually = async (
        ok: (l: { pools: { loanCurve: { apr: number } }[]; banks: unknown[] }) => boolean,
      ) => {
        const start = Date.now();
        for (;;) {
          const answer = await list();
          if (ok(answer)) return Date.now() - start;
          if (Date.now() - start > 2_000) throw new Error(`list not refreshed: ${JSON.stringify(answer)}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      await new Promise((r) => setTimeout(r, 300)); // the set-up writes' notifications are heard
      expect((await list()).pools[0].loanCurve.apr).toBe(4_000);
      // the same rows changed underneath without a view write: the cache keeps answering the old list
      await t.db.query("UPDATE pools SET view_json = replace(view_json, '\"apr\":4000', '\"apr\":1')");
      expect((await list()).pools[0].loanCurve.apr).toBe(4_000);
      // the indexer writes the pool: every cached list is dropped
      await upsertPool(t.db, key, makePool(bankKey, bank, { loanAprBps: 6_500 }), 2);
      await eventually((l) => l.pools[0]?.loanCurve.apr === 6_500);
      // and a bank write too
      await upsertBank(t.db, bankKey, { ...bank, availableLiquidity: 77n }, 3);
      await eventually((l) => (l.banks[0] as { availableLiquidity: string }).availableLiquidity === "77");
    } finally {
      await app.close();
      await t.drop();
    }
  }, 60_000);
});

describe.each(ENGINES)("migration 010 over pools indexed before it (%s)", (engine) => {
  it("counts the pools already there, and fills their JSON as the API does when it opens the database", async () => {
    const before = await createTestDatabase(engine, false);
    const source = await createTestDatabase(engine);
    try {
      // rows as an indexer before migration 010 wrote them: copied from a current database, without view_json
      const bank = makeBank();
      const bankKey = randomAddress();
      await upsertBank(source.db, bankKey, bank, 1);
      for (const seed of [1n, 2n, 3n])
        await upsertPool(source.db, randomAddress(), makePool(bankKey, bank, { seed }), 1);
      await markPoolClosed(
        source.db,
        (await source.db.query<{ pubkey: string }>("SELECT pubkey FROM pools LIMIT 1"))[0]!.pubkey,
        2,
      );
      const rowsOf = async (table: string) => JSON.stringify(await source.db.query(`SELECT * FROM ${table}`));
      await runMigrations(before.db, getMigrations().slice(0, 9));
      await before.db.query("INSERT INTO banks SELECT * FROM json_populate_recordset(NULL::banks, $1)", [
        await rowsOf("banks"),
      ]);
      await before.db.query("INSERT INTO pools SELECT * FROM json_populate_recordset(NULL::pools, $1)", [
        await rowsOf("pools"),
      ]);

      await runMigrations(before.db);
      const counts = await before.db.query<{ status: string; n: unknown }>(
        "SELECT status, n FROM pool_counts ORDER BY status",
      );
      expect(counts.map((c) => [c.status, Number(c.n)])).toEqual([
        ["Closed", 1],
        ["Open", 2],
      ]);
      expect(await fillMissingViews(before.db)).toBe(4);
      const app = (await createTestApp(before.db, { catalog: makeCatalog(randomAddress()) })).app;
      try {
        const list = (await app.inject({ method: "GET", url: "/dirty/pools?status=all" })).json();
        expect(list.totalCount).toBe(3);
        for (const pool of list.pools)
          expect(pool).toEqual(
            (await app.inject({ method: "GET", url: `/pool/pool?pubkey=${pool.pubkey}` })).json(),
          );
      } finally {
        await app.close();
      }
    } finally {
      await before.drop();
      await source.drop();
    }
  }, 60_000);
});
