import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { type Database, type Queryable, type SqlValue, toSqlParams } from "./database.ts";

/** Statements run on the embedded databases of this process and the time they held PGlite, per kind of statement. */
export interface PgliteStats {
  statements: number;
  ms: number;
  /** By the statement's first 72 characters. */
  byKind: Map<string, { statements: number; ms: number }>;
}

const stats: PgliteStats = { statements: 0, ms: 0, byKind: new Map() };

/** What the embedded databases of this process ran so far (benchmarks print statements and ms per request). */
export function getPgliteStats(): PgliteStats {
  return { ...stats, byKind: new Map([...stats.byKind].map(([k, v]) => [k, { ...v }])) };
}

function kindOf(sql: string): string {
  return sql.slice(0, 160).replace(/\s+/g, " ").trim().slice(0, 72);
}

async function counted<T>(sql: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    const ms = performance.now() - started;
    stats.statements++;
    stats.ms += ms;
    const kind = kindOf(sql);
    const k = stats.byKind.get(kind) ?? stats.byKind.set(kind, { statements: 0, ms: 0 }).get(kind)!;
    k.statements++;
    k.ms += ms;
  }
}

/** An embedded database that can also hand out a copy of its data directory. */
export interface PgliteDatabase extends Database {
  /**
   * A gzipped tarball of the data directory after a CHECKPOINT (everything committed is in the files), which
   * `openPgliteDatabase(undefined, { snapshot })` opens as a new, independent database.
   */
  dumpDataDir(): Promise<Blob>;
}

/**
 * Opens the embedded PGlite database. `dataDir` undefined keeps it in memory (tests);
 * otherwise the directory is created and the database persists there. `snapshot` (in memory only): starts from
 * a tarball of `dumpDataDir` instead of a fresh initdb; PGlite's own initdb also ends by loading such a tarball,
 * and loading one skips initdb, most of the time opening a database takes.
 */
export async function openPgliteDatabase(
  dataDir: string | undefined,
  options: { snapshot?: Blob } = {},
): Promise<PgliteDatabase> {
  if (dataDir !== undefined && options.snapshot !== undefined)
    throw new Error("A PGlite snapshot opens in memory only, never over a data directory");
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(
    dataDir,
    options.snapshot === undefined ? {} : { loadDataDir: options.snapshot },
  );
  // PGlite runs one query at a time; serialise callers so a transaction is never interleaved. Two lanes, in
  // arrival order each: urgent work (the indexer's writes) runs before the queries already waiting, so a backlog of
  // reads (wallets polling for a loan) cannot hold back the writes that end it.
  const lanes: [urgent: (() => void)[], normal: (() => void)[]] = [[], []];
  let busy = false;
  function next(): void {
    const task = lanes[0].shift() ?? lanes[1].shift();
    busy = task !== undefined;
    task?.();
  }
  function serial<R>(fn: () => Promise<R>, urgent = false): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      lanes[urgent ? 0 : 1].push(() => {
        Promise.resolve().then(fn).then(resolve, reject).finally(next);
      });
      if (!busy) next();
    });
  }
  const direct: Queryable = {
    async query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
      const result = await counted(sql, () => db.query<T>(sql, toSqlParams(params)));
      return result.rows;
    },
  };
  return {
    engine: "pglite",
    query: (sql, params) => serial(() => direct.query(sql, params)),
    // one embedded connection: nothing to gain from naming a statement
    queryPrepared: (sql, params) => serial(() => direct.query(sql, params)),
    exec: (sql) => serial(async () => void (await db.exec(sql))),
    transaction: (fn, options) =>
      serial(
        () =>
          db.transaction(async (tx) =>
            fn({
              async query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
                return (await counted(sql, () => tx.query<T>(sql, toSqlParams(params)))).rows;
              },
            }),
          ),
        options?.urgent === true,
      ),
    tryAdvisoryLock: async () => true,
    async listen(channel, onPayload) {
      const stop = await serial(() => db.listen(channel, onPayload));
      // Stopping after the database closed (shutdown order) has nothing left to stop.
      return () => serial(() => stop()).catch(() => undefined);
    },
    close: () => serial(() => db.close()),
    dumpDataDir: () =>
      serial(async () => {
        await db.exec("CHECKPOINT");
        return db.dumpDataDir("gzip");
      }),
  };
}
