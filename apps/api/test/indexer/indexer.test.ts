import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresDatabase } from "../../src/db/postgres-database.ts";
import { createIndexer, INDEXER_LOCK_KEY } from "../../src/indexer/indexer.ts";
import { getLoanEvents, readCursor } from "../../src/indexer/store.ts";
import { createFakeRpc } from "../helpers/fake-rpc.ts";
import { bytesOf, makeBank, makeLoan, makePool, randomAddress } from "../helpers/fixtures.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

const PROGRAM = randomAddress();
const log = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function snapshot(t: TestDatabase) {
  const loans = await t.db.query<{ pubkey: string; status: string }>(
    "SELECT pubkey, status FROM loans ORDER BY pubkey",
  );
  const activity = await t.db.query<{ loan: string; kind: string }>(
    "SELECT loan, kind FROM loan_activity ORDER BY loan, kind",
  );
  return { loans, activity };
}

describe.each(ENGINES)("indexer on %s", (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(engine);
  }, 60_000);
  afterAll(async () => t?.drop());

  it("follows a chain through reconciles, survives a restart mid-stream without duplicates or gaps", async () => {
    const chain = createFakeRpc(PROGRAM);
    const bankKey = randomAddress();
    const bank = makeBank();
    const poolKey = randomAddress();
    const pool = makePool(bankKey, bank);
    chain.accounts.set(bankKey, bytesOf.bank(bank));
    chain.accounts.set(poolKey, bytesOf.pool(pool));
    const loanKeys = Array.from({ length: 6 }, () => randomAddress());
    const loans = loanKeys.map((_, i) =>
      makeLoan(poolKey, pool, { nonce: BigInt(i), createdAt: 1_700_000_000n + BigInt(i) }),
    );

    const first = createIndexer({
      db: t.db,
      rpc: chain.rpc,
      wsUrl: "ws://127.0.0.1:9",
      programId: PROGRAM,
      reconcileIntervalMs: 60_000,
      log,
    });
    // Three loans taken, one already repaid.
    for (const i of [0, 1, 2]) chain.accounts.set(loanKeys[i]!, bytesOf.loan(loans[i]!));
    chain.setSlot(10);
    expect(await first.reconcile()).toMatchObject({ banks: 1, pools: 1, loans: 3 });
    chain.accounts.set(
      loanKeys[0]!,
      bytesOf.loan({ ...loans[0]!, status: "Repaid", repaidAt: 1_700_001_000n, repaidAmount: 1n }),
    );
    chain.setSlot(11);
    // A subscription update arrives for loan 3 and then the process stops (restart mid-stream).
    await first.applyAccount(loanKeys[3]!, bytesOf.loan(loans[3]!), 11);
    await first.stop();

    // While down: loan 1 is liquidated, loans 4 and 5 are taken, loan 5 repaid, the pool is closed.
    chain.accounts.set(
      loanKeys[1]!,
      bytesOf.loan({ ...loans[1]!, status: "Liquidated", liquidatedAt: 1_700_002_000n }),
    );
    chain.accounts.set(loanKeys[3]!, bytesOf.loan(loans[3]!));
    chain.accounts.set(loanKeys[4]!, bytesOf.loan(loans[4]!));
    chain.accounts.set(
      loanKeys[5]!,
      bytesOf.loan({ ...loans[5]!, status: "Repaid", repaidAt: 1_700_003_000n, repaidAmount: 2n }),
    );
    chain.accounts.delete(poolKey);
    chain.setSlot(20);

    const second = createIndexer({
      db: t.db,
      rpc: chain.rpc,
      wsUrl: "ws://127.0.0.1:9",
      programId: PROGRAM,
      reconcileIntervalMs: 60_000,
      log,
    });
    expect(await second.reconcile()).toMatchObject({ loans: 6, closedPools: 1 });
    // Replays (the same reconcile twice, an old notification arriving late) change nothing.
    await second.reconcile();
    await second.applyAccount(loanKeys[1]!, bytesOf.loan(loans[1]!), 5);

    const { loans: rows, activity } = await snapshot(t);
    const status = Object.fromEntries(rows.map((r) => [r.pubkey, r.status]));
    expect(status).toEqual({
      [loanKeys[0]!]: "Repaid",
      [loanKeys[1]!]: "Liquidated",
      [loanKeys[2]!]: "Ongoing",
      [loanKeys[3]!]: "Ongoing",
      [loanKeys[4]!]: "Ongoing",
      [loanKeys[5]!]: "Repaid",
    });
    const expected = [
      ...loanKeys.map((k) => `${k}:taken`),
      `${loanKeys[0]}:repaid`,
      `${loanKeys[1]}:liquidated`,
      `${loanKeys[5]}:repaid`,
    ].sort();
    expect(activity.map((a) => `${a.loan}:${a.kind}`).sort()).toEqual(expected);
    const [closed] = await t.db.query<{ status: string }>("SELECT status FROM pools WHERE pubkey = $1", [
      poolKey,
    ]);
    expect(closed?.status).toBe("Closed");
    const cursor = await readCursor(t.db, PROGRAM);
    expect(cursor?.slot).toBe(20);
    await second.stop();
  });

  it("marks a pool closed when its account is zeroed and ignores unreadable accounts", async () => {
    const chain = createFakeRpc(PROGRAM);
    const indexer = createIndexer({
      db: t.db,
      rpc: chain.rpc,
      wsUrl: "ws://127.0.0.1:9",
      programId: PROGRAM,
      reconcileIntervalMs: 60_000,
      log,
    });
    const bankKey = randomAddress();
    const bank = makeBank();
    const poolKey = randomAddress();
    await indexer.applyAccount(bankKey, bytesOf.bank(bank), 30);
    await indexer.applyAccount(poolKey, bytesOf.pool(makePool(bankKey, bank)), 30);
    await indexer.applyAccount(randomAddress(), new Uint8Array([9, 9, 9]), 31);
    await indexer.applyAccount(poolKey, new Uint8Array(768), 32);
    const [row] = await t.db.query<{ status: string }>("SELECT status FROM pools WHERE pubkey = $1", [
      poolKey,
    ]);
    expect(row?.status).toBe("Closed");
  });

  it("indexes a loan whose pool and bank it has not seen yet (reads them first)", async () => {
    const chain = createFakeRpc(PROGRAM);
    const bankKey = randomAddress();
    const bank = makeBank();
    const poolKey = randomAddress();
    const pool = makePool(bankKey, bank);
    chain.accounts.set(bankKey, bytesOf.bank(bank));
    chain.accounts.set(poolKey, bytesOf.pool(pool));
    const indexer = createIndexer({
      db: t.db,
      rpc: chain.rpc,
      wsUrl: "ws://127.0.0.1:9",
      programId: PROGRAM,
      reconcileIntervalMs: 60_000,
      log,
    });
    const loanKey = randomAddress();
    await indexer.applyAccount(loanKey, bytesOf.loan(makeLoan(poolKey, pool)), 40);
    const [row] = await t.db.query<{ lender: string }>("SELECT lender FROM loans WHERE pubkey = $1", [
      loanKey,
    ]);
    expect(row?.lender).toBe(bank.owner);
  });
});

describe("a loan whose pool cannot be read yet", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase("pglite");
  });
  afterAll(async () => t?.drop());

  it("is not written with a guessed lender; the next reconcile writes it once the pool is readable", async () => {
    const chain = createFakeRpc(PROGRAM);
    const indexer = createIndexer({
      db: t.db,
      rpc: chain.rpc,
      wsUrl: "ws://127.0.0.1:9",
      programId: PROGRAM,
      reconcileIntervalMs: 60_000,
      log,
    });
    const bankKey = randomAddress();
    const bank = makeBank();
    const poolKey = randomAddress();
    const pool = makePool(bankKey, bank);
    const loanKey = randomAddress();
    const loan = bytesOf.loan(makeLoan(poolKey, pool));
    await expect(indexer.applyAccount(loanKey, loan, 5)).rejects.toThrow(/not readable/);
    expect(await t.db.query("SELECT pubkey FROM loans")).toEqual([]);
    chain.accounts.set(bankKey, bytesOf.bank(bank));
    chain.accounts.set(poolKey, bytesOf.pool(pool));
    chain.accounts.set(loanKey, loan);
    await indexer.reconcile();
    const rows = await t.db.query<{ lender: string }>("SELECT lender FROM loans");
    expect(rows).toEqual([{ lender: bank.owner }]);
  });
});

describe("leader election on PostgreSQL", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase("postgres");
  }, 60_000);
  afterAll(async () => t?.drop());

  it("lets exactly one of several processes hold the indexer lock, and hands it over when the leader stops", async () => {
    const a = await openPostgresDatabase(t.url!);
    const b = await openPostgresDatabase(t.url!);
    try {
      expect(await a.tryAdvisoryLock(INDEXER_LOCK_KEY)).toBe(true);
      expect(await b.tryAdvisoryLock(INDEXER_LOCK_KEY)).toBe(false);
      await a.close();
      expect(await b.tryAdvisoryLock(INDEXER_LOCK_KEY)).toBe(true);
    } finally {
      await b.close();
    }
  });
});

describe("loan events", () => {
  it("derives taken + extended for a loan closed by Extend", () => {
    const bankKey = randomAddress();
    const pool = makePool(bankKey, makeBank());
    const loan = makeLoan(randomAddress(), pool, {
      status: "Repaid",
      repaidAt: 5n,
      repaidAmount: 7n,
      extendedTo: randomAddress(),
    });
    expect(getLoanEvents(loan).map((e) => [e.kind, e.at, e.amount])).toEqual([
      ["taken", loan.createdAt, loan.principal],
      ["extended", 5n, 7n],
    ]);
  });

  it("tells a refinance from an extension by the loan's closedBy (layout v2); a v1 loan reads extended", () => {
    const pool = makePool(randomAddress(), makeBank());
    const closed = { status: "Repaid" as const, repaidAt: 5n, repaidAmount: 7n, extendedTo: randomAddress() };
    const refinanced = makeLoan(randomAddress(), pool, { ...closed, closedBy: "Refinanced" });
    expect(getLoanEvents(refinanced).map((e) => e.kind)).toEqual(["taken", "refinanced"]);
    const beforeUpgrade = makeLoan(randomAddress(), pool, { ...closed, closedBy: null, layoutVersion: 1 });
    expect(getLoanEvents(beforeUpgrade).map((e) => e.kind)).toEqual(["taken", "extended"]);
  });
});

describe("reindex", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase("pglite");
  }, 60_000);
  afterAll(async () => t?.drop());

  it("rebuilds every chain-derived row from the chain, dropping rows the chain no longer backs", async () => {
    const chain = createFakeRpc(PROGRAM);
    const bankKey = randomAddress();
    const bank = makeBank();
    const poolKey = randomAddress();
    const pool = makePool(bankKey, bank);
    const loanKey = randomAddress();
    chain.accounts.set(bankKey, bytesOf.bank(bank));
    chain.accounts.set(poolKey, bytesOf.pool(pool));
    chain.accounts.set(loanKey, bytesOf.loan(makeLoan(poolKey, pool)));
    const indexer = createIndexer({
      db: t.db,
      rpc: chain.rpc,
      wsUrl: "ws://127.0.0.1:9",
      programId: PROGRAM,
      reconcileIntervalMs: 60_000,
      log,
    });
    await indexer.reconcile();
    await t.db.query("DELETE FROM loan_activity");
    await t.db.query("UPDATE banks SET total_liquidity = 1");
    await indexer.applyAccount(randomAddress(), bytesOf.loan(makeLoan(poolKey, pool, { nonce: 9n })), 50);
    expect(await indexer.reindex()).toMatchObject({ banks: 1, pools: 1, loans: 1 });
    const { loans, activity } = await snapshot(t);
    expect(loans.map((l) => l.pubkey)).toEqual([loanKey]);
    expect(activity).toEqual([{ loan: loanKey, kind: "taken" }]);
    const [row] = await t.db.query<{ total: string }>("SELECT total_liquidity::text AS total FROM banks");
    expect(row?.total).toBe(bank.totalLiquidity.toString());
  });
});
