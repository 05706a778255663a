import { describe, expect, it } from "vitest";
import { getPgliteStats, openPgliteDatabase } from "../../src/db/pglite-database.ts";

describe("PGlite statement figures", () => {
  it("counts each statement, inside transactions too, by its first characters", async () => {
    const db = await openPgliteDatabase(undefined);
    try {
      const before = getPgliteStats();
      await db.query("SELECT 1 AS one");
      await db.transaction(async (tx) => {
        await tx.query("SELECT 1 AS one");
        await tx.query("SELECT $1::int AS two", [2]);
      });
      const after = getPgliteStats();
      expect(after.statements - before.statements).toBe(3);
      expect(after.ms).toBeGreaterThan(before.ms);
      const ones = (s: typeof after) => s.byKind.get("SELECT 1 AS one")?.statements ?? 0;
      expect(ones(after) - ones(before)).toBe(2);
    } finally {
      await db.close();
    }
  });
});
