import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIndexer } from "../../src/indexer/indexer.ts";
import { getLoanEvents } from "../../src/indexer/store.ts";
import { createFakeRpc } from "../helpers/fake-rpc.ts";
import { bytesOf, makeBank, makeLoan, makePool, randomAddress } from "../helpers/fixtures.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const log = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe("indexer under reordered and repeated notifications", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase("pglite");
  });
  afterAll(async () => t?.drop());

  it("ends at the newest version of every loan with exactly the events it implies", async () => {
    const chain = createFakeRpc(randomAddress());
    const indexer = createIndexer({
      db: t.db,
      rpc: chain.rpc,
      wsUrl: "ws://127.0.0.1:9",
      programId: randomAddress(),
      reconcileIntervalMs: 60_000,
      log,
    });
    const bankKey = randomAddress();
    const bank = makeBank();
    const poolKey = randomAddress();
    const pool = makePool(bankKey, bank);
    await indexer.applyAccount(bankKey, bytesOf.bank(bank), 1);
    await indexer.applyAccount(poolKey, bytesOf.pool(pool), 1);
    const outcome = fc.constantFrom("Ongoing", "Repaid", "Extended", "Liquidated") as fc.Arbitrary<
      "Ongoing" | "Repaid" | "Extended" | "Liquidated"
    >;
    await fc.assert(
      fc.asyncProperty(
        outcome,
        fc.array(fc.nat({ max: 1 }), { minLength: 1, maxLength: 6 }),
        async (end, order) => {
          const key = randomAddress();
          const taken = makeLoan(poolKey, pool);
          const closed =
            end === "Ongoing"
              ? taken
              : end === "Liquidated"
                ? { ...taken, status: "Liquidated" as const, liquidatedAt: taken.createdAt + 999n }
                : {
                    ...taken,
                    status: "Repaid" as const,
                    repaidAt: taken.createdAt + 500n,
                    repaidAmount: taken.principal + 1n,
                    extendedTo: end === "Extended" ? randomAddress() : null,
                  };
          const versions = [
            { loan: taken, slot: 10 },
            { loan: closed, slot: 20 },
          ];
          // Random order and repeats, and the newest version always arrives at least once.
          for (const i of [...order, 1]) {
            await indexer.applyAccount(key, bytesOf.loan(versions[i]!.loan), versions[i]!.slot);
          }
          const [row] = await t.db.query<{ status: string }>("SELECT status FROM loans WHERE pubkey = $1", [
            key,
          ]);
          expect(row?.status).toBe(closed.status);
          const events = await t.db.query<{ kind: string; at: unknown }>(
            "SELECT kind, at FROM loan_activity WHERE loan = $1 ORDER BY kind",
            [key],
          );
          expect(events.map((e) => [e.kind, BigInt(String(e.at))])).toEqual(
            getLoanEvents(closed)
              .map((e) => [e.kind, e.at])
              .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
