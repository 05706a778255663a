import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { type Database, type Queryable, type SqlValue, toSqlParams } from "./database.ts";

/**
 * Opens the embedded PGlite database. `dataDir` undefined keeps it in memory (tests);
 * otherwise the directory is created and the database persists there.
 */
export async function openPgliteDatabase(dataDir: string | undefined): Promise<Database> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  // PGlite runs one query at a time; serialise callers so a transaction is never interleaved.
  let chain: Promise<unknown> = Promise.resolve();
  function serial<R>(fn: () => Promise<R>): Promise<R> {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  }
  const direct: Queryable = {
    async query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
      const result = await db.query<T>(sql, toSqlParams(params));
      return result.rows;
    },
  };
  return {
    engine: "pglite",
    query: (sql, params) => serial(() => direct.query(sql, params)),
    // one embedded connection: nothing to gain from naming a statement
    queryPrepared: (sql, params) => serial(() => direct.query(sql, params)),
    exec: (sql) => serial(async () => void (await db.exec(sql))),
    transaction: (fn) =>
      serial(() =>
        db.transaction(async (tx) =>
          fn({
            async query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
              return (await tx.query<T>(sql, toSqlParams(params))).rows;
            },
          }),
        ),
      ),
    tryAdvisoryLock: async () => true,
    async listen(channel, onPayload) {
      const stop = await serial(() => db.listen(channel, onPayload));
      // Stopping after the database closed (shutdown order) has nothing left to stop.
      return () => serial(() => stop()).catch(() => undefined);
    },
    close: () => serial(() => db.close()),
  };
}
