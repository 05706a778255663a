import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable, SqlValue } from "../../src/db/database.ts";
import { upsertBank, upsertLoan, upsertLoans, upsertPool } from "../../src/indexer/store.ts";
import { makeBank, makeLoan, makePool, randomAddress } from "../helpers/fixtures.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

const rows = (t: TestDatabase, keys: string[]) =>
  t.db.query<Record<string, unknown>>(
    `SELECT l.*, (SELECT string_agg(kind || ':' || amount, ',' ORDER BY kind) FROM loan_activity a WHERE a.loan = l.pubkey) AS events
     FROM loans l WHERE pubkey = ANY($1::text[]) ORDER BY created_at`,
    [keys],
  );

describe.each(ENGINES)("loans written together (%s)", (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(engine);
  }, 60_000);
  afterAll(async () => t?.drop());

  it("writes a batch of loans in two statements, exactly as one by one, and never over a newer version", async () => {
    const bankKey = randomAddress();
    const bank = makeBank();
    const poolKey = randomAddress();
    const pool = makePool(bankKey, bank);
    await upsertBank(t.db, bankKey, bank, 1);
    await upsertPool(t.db, poolKey, pool, 1);
    const loans = [0, 1, 2].map((i) => makeLoan(poolKey, pool, { createdAt: 1_700_000_000n + BigInt(i) }));
    loans[1] = { ...loans[1]!, status: "Repaid", repaidAt: 1_700_000_500n, repaidAmount: 101_000_000n };
    const together = loans.map(() => randomAddress());
    const alone = loans.map(() => randomAddress());

    let statements = 0;
    const counting: Queryable = {
      query<T>(sql: string, params?: readonly SqlValue[]) {
        statements++;
        return t.db.query<T>(sql, params);
      },
    };
    await upsertLoans(
      counting,
      loans.map((loan, i) => ({ pubkey: together[i]!, loan, lender: bank.owner, slot: 10 })),
    );
    expect(statements).toBe(2);
    for (const [i, loan] of loans.entries()) await upsertLoan(t.db, alone[i]!, loan, bank.owner, 10);
    const strip = (r: Record<string, unknown>) => ({ ...r, pubkey: undefined, id: undefined });
    expect((await rows(t, together)).map(strip)).toEqual((await rows(t, alone)).map(strip));
    expect((await rows(t, together)).map((r) => [r.status, r.events])).toEqual([
      ["Ongoing", "taken:100000000"],
      ["Repaid", "repaid:101000000,taken:100000000"],
      ["Ongoing", "taken:100000000"],
    ]);

    // an older version of a repaid loan, written with newer ones, changes nothing of it
    await upsertLoans(t.db, [
      {
        pubkey: together[1]!,
        loan: { ...loans[1]!, status: "Ongoing", repaidAt: 0n },
        lender: bank.owner,
        slot: 5,
      },
      {
        pubkey: together[2]!,
        loan: { ...loans[2]!, status: "Liquidated", liquidatedAt: 1_700_009_000n },
        lender: bank.owner,
        slot: 11,
      },
    ]);
    expect((await rows(t, together)).map((r) => r.status)).toEqual(["Ongoing", "Repaid", "Liquidated"]);
    expect(await upsertLoans(t.db, [])).toBeUndefined();
  });
});
