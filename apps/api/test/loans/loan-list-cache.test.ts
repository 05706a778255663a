import { parseLoanList } from "@cistern/protocol";
import { INSTRUCTION_TAG } from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, SqlValue } from "../../src/db/database.ts";
import type { Indexer } from "../../src/indexer/indexer.ts";
import { createLoanListCache, type LoanPageKey, loanListCacheOf } from "../../src/loans/loan-list-cache.ts";
import type { LoanPage } from "../../src/loans/loan-queries.ts";
import type { LoanRow } from "../../src/loans/loan-view.ts";
import { createFakeRpc } from "../helpers/fake-rpc.ts";
import { bytesOf, makeBank, makeLoan, makePool, randomAddress } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

const page = (n: number): LoanPage => ({ rows: [], totalCount: n, ongoingCount: 0 });
const key = (column: LoanPageKey["column"], value: string): LoanPageKey => ({
  column,
  value,
  status: undefined,
  limit: 50,
  offset: 0,
});

describe("loan list cache", () => {
  it("reads the database every time while off (not the indexer's process)", async () => {
    const cache = createLoanListCache();
    let loads = 0;
    const load = async () => page(++loads);
    await cache.read(key("borrower", "a"), load);
    expect((await cache.read(key("borrower", "a"), load)).totalCount).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("keeps a page until a write of that borrower's loans, other borrowers' pages survive it", async () => {
    const cache = createLoanListCache();
    cache.setEnabled(true);
    let loads = 0;
    const load = async () => page(++loads);
    expect((await cache.read(key("borrower", "a"), load)).totalCount).toBe(1);
    expect((await cache.read(key("borrower", "b"), load)).totalCount).toBe(2);
    expect((await cache.read(key("pool", "p"), load)).totalCount).toBe(3);
    expect((await cache.read(key("borrower", "a"), load)).totalCount).toBe(1);
    cache.invalidateBorrowers(["a"]);
    // a's list is read again, b's is not; every other list (pool, lender, ...) may hold a's loan: read again
    expect((await cache.read(key("borrower", "a"), load)).totalCount).toBe(4);
    expect((await cache.read(key("borrower", "b"), load)).totalCount).toBe(2);
    expect((await cache.read(key("pool", "p"), load)).totalCount).toBe(5);
    cache.invalidateAll();
    expect((await cache.read(key("borrower", "b"), load)).totalCount).toBe(6);
    // turned off: forgets and reads through
    cache.setEnabled(false);
    expect((await cache.read(key("borrower", "b"), load)).totalCount).toBe(7);
    expect(cache.size).toBe(0);
  });

  it("does not keep a page read while a write of that borrower committed (it may predate the write)", async () => {
    const cache = createLoanListCache();
    cache.setEnabled(true);
    let release!: () => void;
    const slow = cache.read(
      key("borrower", "a"),
      () => new Promise<LoanPage>((r) => (release = () => r(page(1)))),
    );
    const otherSlow = cache.read(
      key("pool", "p"),
      () => new Promise<LoanPage>((r) => setTimeout(() => r(page(1)), 20)),
    );
    cache.invalidateBorrowers(["a"]);
    release();
    expect((await slow).totalCount).toBe(1);
    await otherSlow;
    expect(cache.size).toBe(0);
    expect((await cache.read(key("borrower", "a"), async () => page(2))).totalCount).toBe(2);
    expect((await cache.read(key("borrower", "a"), async () => page(3))).totalCount).toBe(2);
  });
});

describe("loan list pages made from a write's own rows", () => {
  const row = (pubkey: string, status: string, createdAt: number): LoanRow =>
    ({ pubkey, status, created_at: createdAt, borrower: "a" }) as unknown as LoanRow;

  it("answers the first page and every kept page of the borrower from the rows, as the database would", async () => {
    const cache = createLoanListCache();
    cache.setEnabled(true);
    let loads = 0;
    const load = async () => page(++loads);
    const repaidKey = { ...key("borrower", "a"), status: "repaid" as const };
    const secondKey = { ...key("borrower", "a"), limit: 1, offset: 1 };
    await cache.read(repaidKey, load);
    await cache.read(secondKey, load);
    const all = [row("n", "Ongoing", 3), row("m", "Repaid", 2), row("l", "Ongoing", 1)];
    cache.invalidateBorrowers(["a"], new Map([["a", all]]));
    const none = async () => {
      throw new Error("read the database");
    };
    expect(await cache.read(key("borrower", "a"), none)).toEqual({
      rows: all,
      totalCount: 3,
      ongoingCount: 2,
    });
    expect(await cache.read(repaidKey, none)).toEqual({ rows: [all[1]], totalCount: 1, ongoingCount: 0 });
    expect(await cache.read(secondKey, none)).toEqual({ rows: [all[1]], totalCount: 3, ongoingCount: 2 });
    expect(await cache.read(key("borrower", "b"), load)).toEqual(page(3));
  });
});

/** The database with a count of the loan list queries that reached it. */
function countingLoanQueries(db: Database): { db: Database; loanQueries: () => number } {
  let n = 0;
  const counted = Object.create(db) as Database;
  counted.query = <T>(sql: string, params?: readonly SqlValue[]) => {
    if (/FROM loans WHERE borrower = \$1/.test(sql)) n++;
    return db.query<T>(sql, params);
  };
  return { db: counted, loanQueries: () => n };
}

describe.each(ENGINES)("GET /loan/user between the indexer's writes (%s)", (engine) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let indexer: Indexer;
  let loanQueries: () => number;
  const bankAddress = randomAddress();
  const bank = makeBank();
  const poolAddress = randomAddress();
  const pool = makePool(bankAddress, bank);
  const borrower = randomAddress();
  const loanKey = randomAddress();
  const loan = makeLoan(poolAddress, pool, { borrower, createdAt: 1_700_050_000n });

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    const counting = countingLoanQueries(t.db);
    loanQueries = counting.loanQueries;
    const built = await createTestApp(counting.db, { catalog: makeCatalog(pool.collections[0]!.id) });
    app = built.app;
    indexer = built.indexer;
    // leading the indexer turns the cache on (its websocket points nowhere here: writes come from the test)
    expect(await indexer.start()).toBe(true);
    expect(loanListCacheOf(counting.db).enabled).toBe(true);
    await indexer.applyAccount(bankAddress, bytesOf.bank(bank), 100);
    await indexer.applyAccount(poolAddress, bytesOf.pool(pool), 100);
  }, 60_000);
  afterAll(async () => {
    await indexer?.stop();
    await app?.close();
    await t?.drop();
  });

  const list = async () => {
    const response = await app.inject({ method: "GET", url: `/loan/user?pubkey=${borrower}` });
    expect(response.statusCode).toBe(200);
    return parseLoanList(response.json());
  };

  it("answers polls from memory, shows a loan the moment the indexer wrote it, and never a repaid loan as ongoing", async () => {
    expect((await list()).loans).toEqual([]);
    const before = loanQueries();
    for (let i = 0; i < 5; i++) expect((await list()).loans).toEqual([]);
    expect(loanQueries()).toBe(before);

    await indexer.applyAccount(loanKey, bytesOf.loan(loan), 101);
    const taken = await list();
    expect(taken.loans.map((l) => [l.pubkey, l.status])).toEqual([[loanKey, "Ongoing"]]);
    expect(taken.ongoingCount).toBe(1);

    await indexer.applyAccount(
      loanKey,
      bytesOf.loan({ ...loan, status: "Repaid", repaidAt: 1_700_060_000n, repaidAmount: 100_500_000n }),
      102,
    );
    const repaid = await list();
    expect(repaid.loans.map((l) => [l.pubkey, l.status])).toEqual([[loanKey, "Repaid"]]);
    expect(repaid.ongoingCount).toBe(0);
    // the pool's list follows too
    const byPool = await app.inject({ method: "GET", url: `/loan/pool?pubkey=${poolAddress}` });
    expect(parseLoanList(byPool.json()).loans.map((l) => l.status)).toEqual(["Repaid"]);
  });
});

/** A wire transaction of `program` whose one instruction is `tag` with `loan` at account position `at`. */
function loanTransaction(
  program: Address,
  tag: number,
  loan: Address,
  at: number,
  feePayer: Address,
): string {
  const accounts = Array.from({ length: at + 1 }, (_, i) => ({
    address: i === at ? loan : randomAddress(),
    role: i === at ? AccountRole.WRITABLE : AccountRole.READONLY,
  }));
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: randomAddress() as unknown as Blockhash, lastValidBlockHeight: 1n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [{ programAddress: program, accounts, data: new Uint8Array([tag]) }],
        m,
      ),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

describe.each(ENGINES)("GET /loan/user from the indexer's own batch (%s)", (engine) => {
  const PROGRAM = "11111111111111111111111111111111" as Address; // the test app's indexer follows this id
  let t: TestDatabase;
  let app: FastifyInstance;
  let indexer: Indexer;
  let loanQueries: () => number;
  const chain = createFakeRpc(PROGRAM);
  const landed = new Map<string, { slot: number; wire: string }>();
  chain.rpc.call = (async (method: string, params: unknown[]) => {
    if (method !== "getTransaction") throw new Error(`unexpected ${method}`);
    const tx = landed.get(params[0] as string);
    return tx === undefined
      ? null
      : { slot: tx.slot, transaction: [tx.wire, "base64"], meta: { logMessages: [] } };
  }) as typeof chain.rpc.call;
  const bankAddress = randomAddress();
  const bank = makeBank();
  const poolAddress = randomAddress();
  const pool = makePool(bankAddress, bank);
  const borrower = randomAddress();
  const loanKey = randomAddress();
  const loan = makeLoan(poolAddress, pool, { borrower, createdAt: 1_700_050_000n });

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    const counting = countingLoanQueries(t.db);
    loanQueries = counting.loanQueries;
    const built = await createTestApp(counting.db, {
      catalog: makeCatalog(pool.collections[0]!.id),
      rpc: chain.rpc,
    });
    app = built.app;
    indexer = built.indexer;
    expect(await indexer.start()).toBe(true);
    await indexer.applyAccount(bankAddress, bytesOf.bank(bank), 100);
    await indexer.applyAccount(poolAddress, bytesOf.pool(pool), 100);
  }, 60_000);
  afterAll(async () => {
    await indexer?.stop();
    await app?.close();
    await t?.drop();
  });

  const list = async () => {
    const response = await app.inject({ method: "GET", url: `/loan/user?pubkey=${borrower}` });
    expect(response.statusCode).toBe(200);
    return parseLoanList(response.json());
  };

  it("lists a loan taken and then repaid without reading the lists from the database again", async () => {
    expect((await list()).loans).toEqual([]);
    const before = loanQueries();
    chain.accounts.set(loanKey, bytesOf.loan(loan));
    chain.setSlot(101);
    landed.set("take", {
      slot: 101,
      wire: loanTransaction(PROGRAM, INSTRUCTION_TAG.TakeLoan, loanKey, 6, borrower),
    });
    await indexer.applyTransaction("take", 101);
    const taken = await list();
    expect(taken.loans.map((l) => [l.pubkey, l.status])).toEqual([[loanKey, "Ongoing"]]);
    expect(taken.ongoingCount).toBe(1);
    chain.accounts.set(
      loanKey,
      bytesOf.loan({ ...loan, status: "Repaid", repaidAt: 1_700_060_000n, repaidAmount: 100_500_000n }),
    );
    chain.setSlot(102);
    landed.set("repay", {
      slot: 102,
      wire: loanTransaction(PROGRAM, INSTRUCTION_TAG.Repay, loanKey, 5, borrower),
    });
    await indexer.applyTransaction("repay", 102);
    const repaid = await list();
    expect(repaid.loans.map((l) => [l.pubkey, l.status])).toEqual([[loanKey, "Repaid"]]);
    expect(repaid.ongoingCount).toBe(0);
    // the pages came from the indexer's own read of the borrower's loans, not from a list query per poll
    expect(loanQueries()).toBe(before);
    // and are what the database answers
    const fresh = await t.db.query<{ status: string }>("SELECT status FROM loans WHERE borrower = $1", [
      borrower,
    ]);
    expect(fresh.map((r) => r.status)).toEqual(["Repaid"]);
  });
});
