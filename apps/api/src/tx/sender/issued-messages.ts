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
  const claimCosignUntil: IssuedMessageStore["claimCosignUntil"] = async (
    messageBytes,
    nowSeconds,
    blockHeight,
  ) => {
    const [row] = await db.query<{ last_valid_block_height: unknown }>(
      `UPDATE issued_transactions SET cosigned_at = $2
       WHERE hash = $1 AND cosigned_at IS NULL AND needs_oracle AND last_valid_block_height >= $3
       RETURNING last_valid_block_height`,
      [hashMessage(messageBytes), Math.floor(nowSeconds), blockHeight],
    );
    return row === undefined ? undefined : Number(row.last_valid_block_height);
  };
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
