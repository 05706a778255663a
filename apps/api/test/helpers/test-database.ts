import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Database } from "../../src/db/database.ts";
import { runMigrations } from "../../src/db/migrate.ts";
import { openPgliteDatabase } from "../../src/db/pglite-database.ts";
import { openPostgresDatabase } from "../../src/db/postgres-database.ts";
import { pgliteSnapshot } from "./pglite-snapshot.ts";

const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export type Engine = "pglite" | "postgres";
export const ENGINES: Engine[] = ["pglite", "postgres"];

export interface TestDatabase {
  db: Database;
  /** Connection string (postgres only) so a test can open a second process-like connection. */
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * Creates a fresh, migrated database: in-memory PGlite (loaded from this run's snapshot of a fresh database when
 * there is one: helpers/pglite-snapshot.ts), or a uniquely named PostgreSQL database.
 */
export async function createTestDatabase(engine: Engine, migrate = true): Promise<TestDatabase> {
  if (engine === "pglite") {
    const snapshot = pgliteSnapshot(migrate ? "migrated" : "initdb");
    const db = await openPgliteDatabase(undefined, snapshot === undefined ? {} : { snapshot });
    // on the migrated snapshot this finds every migration applied and changes nothing
    if (migrate) await runMigrations(db);
    return { db, url: undefined, drop: () => db.close() };
  }
  const name = `cistern_api_test_${Date.now()}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  const db = await openPostgresDatabase(url);
  if (migrate) await runMigrations(db);
  return {
    db,
    url,
    async drop() {
      await db.close();
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
