import { createHash } from "node:crypto";
import type { ReadonlyUint8Array } from "@solana/kit";
import type { Queryable, SqlValue } from "../../db/database.ts";

/** What the builder remembers about a message it issued. */
export interface IssuedMessage {
  /** The transaction kind the builder answered with. */
  kind: string;
  /** The message needs the oracle's signature (take-loan / extend). */
  needsOracle: boolean;
  /** After this block height the blockhash is expired and the message is forgotten. */
  lastValidBlockHeight: number;
}

/**
 * Hashes (SHA-256) of the messages the builder issued, kept in the database until their blockhash expires,
 * so any API process over the same database co-signs a message another one built, and only once.
 */
export interface IssuedMessageStore {
  remember(messageBytes: ReadonlyUint8Array, issued: IssuedMessage): Promise<void>;
  lookup(messageBytes: ReadonlyUint8Array): Promise<IssuedMessage | undefined>;
  /**
   * Marks the message co-signed; false when it was co-signed before (by any process), or is unknown, or (with
   * `blockHeight`) does not need the oracle or expired before that height.
   */
  claimCosign(messageBytes: ReadonlyUint8Array, nowSeconds: number, blockHeight?: number): Promise<boolean>;
  /** claimCosign with `blockHeight`, answering the claimed message's last valid block height (undefined: not claimed). */
  claimCosignUntil(
    messageBytes: ReadonlyUint8Array,
    nowSeconds: number,
    blockHeight: number,
  ): Promise<number | undefined>;
  /** Forgets messages whose blockhash expired before `blockHeight`. */
  prune(blockHeight: number): Promise<void>;
  /** How many messages are remembered. */
  count(): Promise<number>;
}

/** SHA-256 of message bytes, hex. */
export function hashMessage(messageBytes: ReadonlyUint8Array): string {
  return createHash("sha256")
    .update(messageBytes as Uint8Array)
    .digest("hex");
}

/** Most rows one INSERT of remembered messages carries. */
const REMEMBER_BATCH_ROWS = 500;

/**
 * Creates the store over the API's database (PostgreSQL or PGlite, same SQL). Messages remembered while an
 * INSERT is in flight (or in one event-loop turn) go to the database together in one statement; each caller
 * resumes once its row is stored.
 */
export function createIssuedMessageStore(db: Queryable): IssuedMessageStore {
  type Waiting = { row: SqlValue[]; done: (error?: unknown) => void };
  let queue: Waiting[] = [];
  let inFlight = false;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (inFlight || queue.length === 0) return;
    inFlight = true;
    const batch = queue.slice(0, REMEMBER_BATCH_ROWS);
    queue = queue.slice(batch.length);
    const values = batch.map((_, i) => `($${4 * i + 1}, $${4 * i + 2}, $${4 * i + 3}, $${4 * i + 4})`);
    db.query(
      `INSERT INTO issued_transactions (hash, kind, needs_oracle, last_valid_block_height)
       VALUES ${values.join(", ")} ON CONFLICT (hash) DO NOTHING`,
      batch.flatMap((w) => w.row),
    ).then(
      () => settle(batch),
      (error) => settle(batch, error ?? new Error("insert failed")),
    );
  };
  const settle = (batch: Waiting[], error?: unknown) => {
    inFlight = false;
    for (const w of batch) w.done(error);
    flush();
  };
  // Claims asked for while one UPDATE is in flight (or in one event-loop turn) go to the database together in
  // one statement; a message claimed twice in one batch is claimed by the first caller only.
  type Claim = {
    hash: string;
    now: number;
    height: number;
    done: (height?: number, error?: unknown) => void;
  };
  let claims: Claim[] = [];
  let claiming = false;
  let claimScheduled = false;
  const flushClaims = () => {
    claimScheduled = false;
    if (claiming || claims.length === 0) return;
    claiming = true;
    const batch = claims.slice(0, REMEMBER_BATCH_ROWS);
    claims = claims.slice(batch.length);
    const first = new Map<string, Claim>();
    for (const c of batch) if (!first.has(c.hash)) first.set(c.hash, c);
    const unique = [...first.values()];
    const settle = (rows: { hash: string; last_valid_block_height: unknown }[], error?: unknown) => {
      claiming = false;
      const won = new Map(rows.map((r) => [r.hash, Number(r.last_valid_block_height)]));
      for (const c of batch)
        if (error !== undefined) c.done(undefined, error);
        else c.done(first.get(c.hash) === c ? won.get(c.hash) : undefined);
      flushClaims();
    };
    db.query<{ hash: string; last_valid_block_height: unknown }>(
      `UPDATE issued_transactions t SET cosigned_at = f.now
       FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS f(hash, now, height)
       WHERE t.hash = f.hash AND t.cosigned_at IS NULL AND t.needs_oracle AND t.last_valid_block_height >= f.height
       RETURNING t.hash, t.last_valid_block_height`,
      [unique.map((c) => c.hash), unique.map((c) => String(c.now)), unique.map((c) => String(c.height))],
    ).then(
      (rows) => settle(rows),
      (error) => settle([], error ?? new Error("claim failed")),
    );
  };
  const claimCosignUntil: IssuedMessageStore["claimCosignUntil"] = (messageBytes, nowSeconds, blockHeight) =>
    new Promise<number | undefined>((resolve, reject) => {
      claims.push({
        hash: hashMessage(messageBytes),
        now: Math.floor(nowSeconds),
        height: blockHeight,
        done: (height, error) => (error === undefined ? resolve(height) : reject(error)),
      });
      if (!claimScheduled && !claiming) {
        claimScheduled = true;
        setImmediate(flushClaims);
      }
    });
  return {
    remember(messageBytes, issued) {
      return new Promise<void>((resolve, reject) => {
        queue.push({
          row: [hashMessage(messageBytes), issued.kind, issued.needsOracle, issued.lastValidBlockHeight],
          done: (error) => (error === undefined ? resolve() : reject(error)),
        });
        if (!scheduled && !inFlight) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    async lookup(messageBytes) {
      const [row] = await db.query<{ kind: string; needs_oracle: boolean; last_valid_block_height: unknown }>(
        "SELECT kind, needs_oracle, last_valid_block_height FROM issued_transactions WHERE hash = $1",
        [hashMessage(messageBytes)],
      );
      return row === undefined
        ? undefined
        : {
            kind: row.kind,
            needsOracle: row.needs_oracle,
            lastValidBlockHeight: Number(row.last_valid_block_height),
          };
    },
    async claimCosign(messageBytes, nowSeconds, blockHeight) {
      if (blockHeight !== undefined)
        return (await claimCosignUntil(messageBytes, nowSeconds, blockHeight)) !== undefined;
      const rows = await db.query(
        "UPDATE issued_transactions SET cosigned_at = $2 WHERE hash = $1 AND cosigned_at IS NULL RETURNING hash",
        [hashMessage(messageBytes), Math.floor(nowSeconds)],
      );
      return rows.length === 1;
    },
    claimCosignUntil,
    async prune(blockHeight) {
      await db.query("DELETE FROM issued_transactions WHERE last_valid_block_height < $1", [blockHeight]);
    },
    async count() {
      const [row] = await db.query<{ n: unknown }>("SELECT count(*) AS n FROM issued_transactions");
      return Number(row?.n ?? 0);
    },
  };
}
