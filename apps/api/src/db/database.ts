/** A value that can be bound as a SQL parameter. bigint is sent as its decimal text. */
export type SqlValue = string | number | bigint | boolean | null | Date | string[];

/** Anything that runs a parameterised query ($1, $2 ...) and returns rows. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
}

/**
 * The small query interface both engines implement: PGlite (embedded, WASM) and PostgreSQL (`pg`).
 * The same SQL serves both.
 */
export interface Database extends Queryable {
  readonly engine: "pglite" | "postgres";
  /**
   * query() for a hot route: PostgreSQL prepares the statement once per connection and reuses its plan (no
   * planning per call). Only for SQL texts drawn from a small fixed set, as each distinct text stays prepared.
   */
  queryPrepared<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Runs several statements separated by semicolons, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Runs fn inside BEGIN/COMMIT; rolls back when fn throws. `urgent`: on the one embedded connection (PGlite), it
   * runs before the queries already waiting (the indexer's writes: what every poll waits for); PostgreSQL ignores it.
   */
  transaction<R>(fn: (tx: Queryable) => Promise<R>, options?: { urgent?: boolean }): Promise<R>;
  /**
   * Tries to take a session-level advisory lock and keeps it until close().
   * PGlite is single-process, so its caller is trivially the only holder.
   */
  tryAdvisoryLock(key: number): Promise<boolean>;
  /**
   * LISTENs on `channel` and calls `onPayload` with each NOTIFY payload, from this process or any other on the
   * same database; resolves to a function that stops listening. (PostgreSQL: one dedicated connection that
   * reconnects; PGlite: its own listen.)
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Converts bound values: bigint -> decimal string (NUMERIC columns), others unchanged. */
export function toSqlParams(params: readonly SqlValue[] | undefined): unknown[] {
  return (params ?? []).map((p) => (typeof p === "bigint" ? p.toString() : p));
}

/** Reads a NUMERIC / BIGINT column (string, number or bigint depending on engine) as bigint. */
export function readBigInt(value: unknown): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") return BigInt(value);
  if (typeof value === "string") return BigInt(value);
  return 0n;
}

/** Reads a nullable NUMERIC / BIGINT column as bigint or null. */
export function readNullableBigInt(value: unknown): bigint | null {
  return value === null || value === undefined ? null : readBigInt(value);
}

/** Reads a BIGINT column holding epoch seconds or a count (fits a JS number) as a number. */
export function readNumber(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return Number(value);
}

/** Reads a nullable BIGINT column as number or null. */
export function readNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}
