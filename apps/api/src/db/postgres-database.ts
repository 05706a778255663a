import pg from "pg";
import { type Database, type SqlValue, toSqlParams } from "./database.ts";

/** Opens a PostgreSQL connection pool for `connectionString` behind the Database interface. */
export async function openPostgresDatabase(connectionString: string, maxConnections = 10): Promise<Database> {
  // Named (prepared) statements keep one generic plan instead of being planned again at each call; only
  // queryPrepared names its statements, and their SQL is written to suit one plan for any parameters.
  // Connections stay open once made (no idle timeout), with the statements prepared on them: a burst after a
  // quiet minute then waits for no server process to start and no statement to be prepared again.
  const pool = new pg.Pool({
    connectionString,
    max: maxConnections,
    idleTimeoutMillis: 0,
    options: "-c plan_cache_mode=force_generic_plan",
  });
  // An idle client error (server restart) must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  await pool.query("SELECT 1");
  let lockClient: pg.PoolClient | undefined;
  const listeners = new Set<() => Promise<void>>();
  const statementNames = new Map<string, string>();
  return {
    engine: "postgres",
    async query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
      const result = await pool.query(sql, toSqlParams(params));
      return result.rows as T[];
    },
    async queryPrepared<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
      let name = statementNames.get(sql);
      if (name === undefined) {
        name = `cistern_${statementNames.size + 1}`;
        statementNames.set(sql, name);
      }
      const result = await pool.query({ name, text: sql, values: toSqlParams(params) });
      return result.rows as T[];
    },
    async exec(sql: string): Promise<void> {
      await pool.query(sql);
    },
    async transaction<R>(fn: Parameters<Database["transaction"]>[0]): Promise<R> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn({
          async query<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
            return (await client.query(sql, toSqlParams(params))).rows as T[];
          },
        });
        await client.query("COMMIT");
        return result as R;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async tryAdvisoryLock(key: number): Promise<boolean> {
      if (lockClient === undefined) lockClient = await pool.connect();
      const rows = await lockClient.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
        key,
      ]);
      return rows.rows[0]?.locked === true;
    },
    async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
      let stopped = false;
      let client: pg.Client | undefined;
      const connect = async (): Promise<void> => {
        const c = new pg.Client({ connectionString });
        c.on("notification", (n) => {
          if (n.channel === channel && n.payload !== undefined) onPayload(n.payload);
        });
        // A dropped connection (server restart) reconnects after a second; NOTIFYs sent meanwhile are lost,
        // which readers cover by reloading history when they reconnect.
        c.on("error", () => undefined);
        c.on("end", () => {
          if (!stopped) setTimeout(() => void connect().catch(() => undefined), 1000);
        });
        await c.connect();
        await c.query(`LISTEN ${channel}`);
        client = c;
      };
      await connect();
      listeners.add(stop);
      async function stop(): Promise<void> {
        stopped = true;
        listeners.delete(stop);
        await client?.end().catch(() => undefined);
      }
      return stop;
    },
    async close(): Promise<void> {
      for (const stop of [...listeners]) await stop();
      if (lockClient !== undefined) {
        // Give the session locks back before the connection goes, so another process can lead at once.
        await lockClient.query("SELECT pg_advisory_unlock_all()").catch(() => undefined);
        lockClient.release(true);
        lockClient = undefined;
      }
      await pool.end();
    },
  };
}
