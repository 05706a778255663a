import { createHash } from "node:crypto";
import type { ReadonlyUint8Array } from "@solana/kit";
import type { Queryable } from "../../db/database.ts";

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
  /** Marks the message co-signed; false when it was co-signed before (by any process). */
  claimCosign(messageBytes: ReadonlyUint8Array, nowSeconds: number): Promise<boolean>;
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

/** Creates the store over the API's database (PostgreSQL or PGlite, same SQL). */
export function createIssuedMessageStore(db: Queryable): IssuedMessageStore {
  return {
    async remember(messageBytes, issued) {
      await db.query(
        `INSERT INTO issued_transactions (hash, kind, needs_oracle, last_valid_block_height)
         VALUES ($1, $2, $3, $4) ON CONFLICT (hash) DO NOTHING`,
        [hashMessage(messageBytes), issued.kind, issued.needsOracle, issued.lastValidBlockHeight],
      );
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
    async claimCosign(messageBytes, nowSeconds) {
      const rows = await db.query(
        "UPDATE issued_transactions SET cosigned_at = $2 WHERE hash = $1 AND cosigned_at IS NULL RETURNING hash",
        [hashMessage(messageBytes), Math.floor(nowSeconds)],
      );
      return rows.length === 1;
    },
    async prune(blockHeight) {
      await db.query("DELETE FROM issued_transactions WHERE last_valid_block_height < $1", [blockHeight]);
    },
    async count() {
      const [row] = await db.query<{ n: unknown }>("SELECT count(*) AS n FROM issued_transactions");
      return Number(row?.n ?? 0);
    },
  };
}
