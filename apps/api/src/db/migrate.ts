import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import type { Database } from "./database.ts";

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");
const MIGRATION_FILE = /^(\d{3,})_([a-z0-9-_]+)\.sql$/;
/** Advisory lock key serialising migrations across API processes sharing one PostgreSQL. */
const MIGRATION_LOCK_KEY = 7_401_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Lists the numbered .sql migrations in order; throws on a gap or a duplicate number. */
export function getMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .map((file) => ({ file, match: MIGRATION_FILE.exec(file) }))
    .filter((entry) => entry.match !== null)
    .map(({ file, match }) => ({
      version: Number(match![1]),
      name: match![2]!,
      sql: readFileSync(join(dir, file), "utf8"),
    }))
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new ApiError(
        ERROR_CODES.MIGRATION_FAILED,
        `Migration numbering must be 1..n without gaps (${m.version})`,
      );
    }
  });
  return migrations;
}

/**
 * Applies every migration not yet recorded in schema_migrations, each in its own transaction
 * together with its bookkeeping row. Running it again is a no-op. Returns the versions applied.
 */
export async function runMigrations(
  db: Database,
  migrations: Migration[] = getMigrations(),
): Promise<number[]> {
  await db.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version INTEGER PRIMARY KEY,
       name TEXT NOT NULL,
       applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
     )`,
  );
  const applied: number[] = [];
  for (const migration of migrations) {
    const done = await db
      .transaction(async (tx) => {
        if (db.engine === "postgres")
          await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
        const existing = await tx.query("SELECT 1 FROM schema_migrations WHERE version = $1", [
          migration.version,
        ]);
        if (existing.length > 0) return false;
        for (const statement of splitStatements(migration.sql)) await tx.query(statement);
        await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
          migration.version,
          migration.name,
        ]);
        return true;
      })
      .catch((error: unknown) => {
        throw new ApiError(
          ERROR_CODES.MIGRATION_FAILED,
          `Migration ${migration.version}_${migration.name} failed: ${(error as Error).message}`,
          { cause: error },
        );
      });
    if (done) applied.push(migration.version);
  }
  return applied;
}

/**
 * Splits a migration file into statements on semicolons at line ends (our files keep no ';' inside strings),
 * keeping a dollar-quoted body (`$$ ... $$`, a trigger function's) whole.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = "";
  // odd-numbered parts lie inside $$ ... $$ and are never split
  sql.split("$$").forEach((part, index) => {
    if (index % 2 === 1) {
      current += `$$${part}$$`;
      return;
    }
    const pieces = part.split(/;\s*(?:\n|$)/);
    current += pieces[0];
    for (const piece of pieces.slice(1)) {
      statements.push(current);
      current = piece;
    }
  });
  statements.push(current);
  return statements.map((s) => s.replace(/^\s*--.*$/gm, "").trim()).filter((s) => s.length > 0);
}
