import { createHash } from "node:crypto";
import type { ReadonlyUint8Array } from "@solana/kit";

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
 * Hashes (SHA-256) of the messages the builder issued, kept until their blockhash expires. This store is
 * in memory, so it serves one API process: the co-signing routes must run in the process that built the
 * message. Moving it to PostgreSQL (a table keyed by hash with the expiry height) only needs this interface.
 */
export interface IssuedMessageStore {
  remember(messageBytes: ReadonlyUint8Array, issued: IssuedMessage): void;
  lookup(messageBytes: ReadonlyUint8Array): IssuedMessage | undefined;
  /** Forgets messages whose blockhash expired before `blockHeight`. */
  prune(blockHeight: number): void;
  readonly size: number;
}

/** SHA-256 of message bytes, hex. */
export function hashMessage(messageBytes: ReadonlyUint8Array): string {
  return createHash("sha256")
    .update(messageBytes as Uint8Array)
    .digest("hex");
}

/** Creates the in-memory store. */
export function createIssuedMessageStore(): IssuedMessageStore {
  const byHash = new Map<string, IssuedMessage>();
  return {
    remember(messageBytes, issued) {
      byHash.set(hashMessage(messageBytes), issued);
    },
    lookup(messageBytes) {
      return byHash.get(hashMessage(messageBytes));
    },
    prune(blockHeight) {
      for (const [hash, issued] of byHash) if (issued.lastValidBlockHeight < blockHeight) byHash.delete(hash);
    },
    get size() {
      return byHash.size;
    },
  };
}
