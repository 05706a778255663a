import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { getMigrations, type Migration, runMigrations } from "../../src/db/migrate.ts";
import { openPgliteDatabase } from "../../src/db/pglite-database.ts";

/**
 * Data directories of a fresh embedded database, made once per test run (test/global-setup.ts): right after
 * initdb, and after the production migrations. Each test database loads one into its own PGlite instead of
 * running initdb again, which is most of the seconds opening a PGlite takes.
 */
export interface PgliteSnapshots {
  /** Hash of the migrations the migrated snapshot holds; a test run whose migration files differ ignores it. */
  migrationsKey: string;
  initdbFile: string;
  migratedFile: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    pgliteSnapshots: PgliteSnapshots;
  }
}

/** sha256 of every migration's number, name and SQL, in order. */
export function hashMigrations(migrations: Migration[] = getMigrations()): string {
  const hash = createHash("sha256");
  for (const m of migrations) hash.update(`${m.version}\0${m.name}\0${m.sql}\0`);
  return hash.digest("hex");
}

/** Opens one fresh in-memory database, dumps it after initdb and again after `runMigrations`, into `dir`. */
export async function writePgliteSnapshots(dir: string): Promise<PgliteSnapshots> {
  const migrations = getMigrations();
  const snapshots: PgliteSnapshots = {
    migrationsKey: hashMigrations(migrations),
    initdbFile: join(dir, "initdb.tar.gz"),
    migratedFile: join(dir, "migrated.tar.gz"),
  };
  const db = await openPgliteDatabase(undefined);
  try {
    writeFileSync(snapshots.initdbFile, await blobBytes(await db.dumpDataDir()));
    await runMigrations(db, migrations);
    writeFileSync(snapshots.migratedFile, await blobBytes(await db.dumpDataDir()));
  } finally {
    await db.close();
  }
  return snapshots;
}

async function blobBytes(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

const loaded = new Map<string, Blob>();

/**
 * This run's snapshot of a fresh database, migrated or straight after initdb; undefined when the run has none
 * (no global setup) or the migration files changed since it was made: the caller then runs initdb itself.
 */
export function pgliteSnapshot(kind: "initdb" | "migrated"): Blob | undefined {
  const snapshots = inject("pgliteSnapshots") as PgliteSnapshots | undefined;
  if (snapshots === undefined || snapshots.migrationsKey !== hashMigrations()) return undefined;
  const file = kind === "initdb" ? snapshots.initdbFile : snapshots.migratedFile;
  const blob = loaded.get(file) ?? new Blob([readFileSync(file)]);
  loaded.set(file, blob);
  return blob;
}
