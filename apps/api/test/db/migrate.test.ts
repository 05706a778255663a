import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBigInt } from "../../src/db/database.ts";
import { getMigrations, runMigrations, splitStatements } from "../../src/db/migrate.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

describe.each(ENGINES)("migrations on %s", (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(engine, false);
  }, 60_000);
  afterAll(async () => t?.drop());

  it("applies every migration once and records it; a second run is a no-op", async () => {
    const all = getMigrations();
    const first = await runMigrations(t.db);
    expect(first).toEqual(all.map((m) => m.version));
    const second = await runMigrations(t.db);
    expect(second).toEqual([]);
    const rows = await t.db.query<{ version: number }>(
      "SELECT version FROM schema_migrations ORDER BY version",
    );
    expect(rows.map((r) => Number(r.version))).toEqual(all.map((m) => m.version));
  });

  it("stores u64 amounts exactly and reads them back as bigint", async () => {
    const max = 18_446_744_073_709_551_615n;
    await t.db.query(
      `INSERT INTO currencies (mint, symbol, name, decimals, image, created_at, updated_at)
       VALUES ('m', 'S', 'N', 6, '', 1, 1)`,
    );
    const [row] = await t.db.query<{ v: unknown }>("SELECT $1::numeric(20,0) AS v", [max]);
    expect(readBigInt(row!.v)).toBe(max);
  });

  it("rolls back a failing migration entirely and records nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cistern-mig-"));
    writeFileSync(join(dir, "001_ok.sql"), "CREATE TABLE mig_probe_a (x INT);\n");
    writeFileSync(
      join(dir, "002_bad.sql"),
      "CREATE TABLE mig_probe_b (x INT);\nSELECT nope FROM missing_table;\n",
    );
    const fresh = await createTestDatabase(engine, false);
    try {
      await expect(runMigrations(fresh.db, getMigrations(dir))).rejects.toThrow(/Migration 2_bad failed/);
      const tables = await fresh.db.query<{ n: string }>(
        "SELECT table_name AS n FROM information_schema.tables WHERE table_name LIKE 'mig_probe_%' ORDER BY 1",
      );
      expect(tables.map((r) => r.n)).toEqual(["mig_probe_a"]);
      const versions = await fresh.db.query<{ version: number }>("SELECT version FROM schema_migrations");
      expect(versions.map((r) => Number(r.version))).toEqual([1]);
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});

describe("migration files", () => {
  it("rejects gaps in numbering", () => {
    const dir = mkdtempSync(join(tmpdir(), "cistern-mig-"));
    writeFileSync(join(dir, "001_a.sql"), "SELECT 1;");
    writeFileSync(join(dir, "003_c.sql"), "SELECT 1;");
    expect(() => getMigrations(dir)).toThrow(/without gaps/);
  });
  it("splits statements and drops comments", () => {
    expect(splitStatements("-- c\nCREATE TABLE a (x INT);\nCREATE INDEX i ON a (x);\n")).toEqual([
      "CREATE TABLE a (x INT)",
      "CREATE INDEX i ON a (x)",
    ]);
  });
  it("keeps a dollar-quoted function body whole", () => {
    const body =
      "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN NULL;\nEND;\n$$";
    expect(splitStatements(`CREATE TABLE a (x INT);\n${body};\nCREATE INDEX i ON a (x);\n`)).toEqual([
      "CREATE TABLE a (x INT)",
      body,
      "CREATE INDEX i ON a (x)",
    ]);
  });
});
