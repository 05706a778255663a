import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAT_CHANNEL, type ChatEvent, postLoanSystemMessages } from "../../src/chat/chat-store.ts";
import type { Database } from "../../src/db/database.ts";
import { upsertBank, upsertLoans, upsertPool } from "../../src/indexer/store.ts";
import { makeBank, makeLoan, makePool, randomAddress } from "../helpers/fixtures.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

/** The database with a count of its statements (a transaction's own included). */
function counting(db: Database): { db: Database; statements: () => number } {
  let n = 0;
  const counted = Object.create(db) as Database;
  counted.query = (sql, params) => {
    n++;
    return db.query(sql, params);
  };
  counted.transaction = (fn, options) =>
    db.transaction(
      (tx) =>
        fn({
          query: (sql, params) => {
            n++;
            return tx.query(sql, params);
          },
        }),
      options,
    );
  return { db: counted, statements: () => n };
}

describe.each(ENGINES)("a timeline round's loan events posted together (%s)", (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(engine);
  }, 60_000);
  afterAll(async () => t?.drop());

  it("posts each event once, in order, to rooms made from the indexed loans, and tells both members", async () => {
    const bankKey = randomAddress();
    const bank = makeBank();
    const poolKey = randomAddress();
    const pool = makePool(bankKey, bank);
    await upsertBank(t.db, bankKey, bank, 1);
    await upsertPool(t.db, poolKey, pool, 1);
    const loans = [0, 1, 2].map(() => ({ pubkey: randomAddress(), loan: makeLoan(poolKey, pool) }));
    await upsertLoans(
      t.db,
      loans.map((l) => ({ ...l, lender: bank.owner, slot: 2 })),
    );
    const heard: ChatEvent[] = [];
    const stop = await t.db.listen(CHAT_CHANNEL, (payload) => heard.push(JSON.parse(payload)));
    const c = counting(t.db);
    const notIndexed = randomAddress();
    const posts = [
      { loan: loans[0]!.pubkey, systemKey: "taken", text: "Loan taken: 100 USDC." },
      { loan: loans[1]!.pubkey, systemKey: "taken", text: "Loan taken: 100 USDC." },
      { loan: notIndexed, systemKey: "taken", text: "Loan taken: 1 USDC." },
      { loan: loans[0]!.pubkey, systemKey: "repaid", text: "Loan repaid." },
      { loan: loans[0]!.pubkey, systemKey: "repaid", text: "Loan repaid." },
    ];
    const posted = await postLoanSystemMessages(c.db, posts, 1_700_000_000_000);
    expect(c.statements()).toBe(3);
    expect(posted.map((m) => [m.roomId, m.text, m.sender])).toEqual([
      [`loan:${loans[0]!.pubkey}`, "Loan taken: 100 USDC.", null],
      [`loan:${loans[1]!.pubkey}`, "Loan taken: 100 USDC.", null],
      [`loan:${loans[0]!.pubkey}`, "Loan repaid.", null],
    ]);
    // posted once: the same round again posts nothing and tells no one
    expect(await postLoanSystemMessages(t.db, posts, 1_700_000_001_000)).toEqual([]);
    const rooms = await t.db.query<{ id: string; member_a: string; member_b: string; last: unknown }>(
      `SELECT c.id, c.member_a, c.member_b, (SELECT text FROM chat_messages m WHERE m.id = c.last_message_id) AS last
       FROM chat_rooms c WHERE c.loan = ANY($1::text[]) ORDER BY c.id`,
      [[...loans.map((l) => l.pubkey), notIndexed]],
    );
    expect(rooms.map((r) => [r.id, r.last])).toEqual(
      [
        [`loan:${loans[0]!.pubkey}`, "Loan repaid."],
        [`loan:${loans[1]!.pubkey}`, "Loan taken: 100 USDC."],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    await expect.poll(() => heard.length).toBe(3);
    expect(heard.map((e) => e.message.id)).toEqual(posted.map((m) => m.id));
    expect(heard[0]!.members).toEqual([loans[0]!.loan.borrower, bank.owner]);
    await stop();
  });
});
