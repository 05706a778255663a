import { join } from "node:path";
import type { ApiConfig } from "../config/config.ts";
import { fillMissingViews } from "../pools/stored-views.ts";
import type { Database } from "./database.ts";
import { runMigrations } from "./migrate.ts";
import { openPgliteDatabase } from "./pglite-database.ts";
import { openPostgresDatabase } from "./postgres-database.ts";

/**
 * Opens the configured database (PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR), migrates it and
 * writes the ready JSON of rows stored before it existed.
 */
export async function openDatabase(config: Pick<ApiConfig, "databaseUrl" | "dataDir">): Promise<Database> {
  const db =
    config.databaseUrl !== undefined
      ? await openPostgresDatabase(config.databaseUrl)
      : await openPgliteDatabase(join(config.dataDir, "pglite"));
  try {
    await runMigrations(db);
    await fillMissingViews(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
