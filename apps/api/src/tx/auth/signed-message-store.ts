import { randomBytes } from "node:crypto";
import type { Queryable } from "../../db/database.ts";

/** What a signed message is for; each purpose has its own first line. */
export type SignedMessagePurpose =
  | "link"
  | "chat-login"
  | "calendar-feed"
  | "address-link"
  | "address-unlink";

/** A message issued for one wallet to sign once before `expiresAt` (epoch seconds). */
export interface IssuedSignedMessage {
  nonce: string;
  wallet: string;
  purpose: SignedMessagePurpose;
  message: string;
  expiresAt: number;
}

/** Why a presented message is refused. */
export type ConsumeRefusal = "unknown" | "other-wallet" | "other-purpose" | "altered" | "expired" | "used";

/**
 * The single-use signed-message store in the database: every API process issues into and consumes from the
 * same table, and consuming is one conditional UPDATE, so a message is accepted exactly once.
 */
export interface SignedMessageStore {
  issue(input: {
    wallet: string;
    purpose: SignedMessagePurpose;
    firstLine: string;
    nowSeconds: number;
  }): Promise<IssuedSignedMessage>;
  /** Marks the message used if it is the one issued, unexpired and unused; otherwise says why not. */
  consume(input: {
    nonce: string;
    wallet: string;
    purpose: SignedMessagePurpose;
    message: string;
    nowSeconds: number;
  }): Promise<{ ok: true } | { ok: false; refusal: ConsumeRefusal }>;
}

/** How long an issued message may wait for its signature. */
export const SIGNED_MESSAGE_TTL_SECONDS = 600;

/** The message text: the purpose's first line, then the wallet, nonce and expiry on their own lines. */
export function formatSignedMessage(
  firstLine: string,
  wallet: string,
  nonce: string,
  expiresAt: number,
): string {
  return `${firstLine}\nWallet: ${wallet}\nNonce: ${nonce}\nExpires: ${new Date(expiresAt * 1000).toISOString()}`;
}

/** The nonce line of a message, or null. */
export function readNonce(message: string): string | null {
  return /^Nonce: ([0-9a-f]{32})$/m.exec(message)?.[1] ?? null;
}

/** Creates the store over the API's database (PostgreSQL or PGlite, same SQL). */
export function createSignedMessageStore(db: Queryable): SignedMessageStore {
  return {
    async issue({ wallet, purpose, firstLine, nowSeconds }) {
      const now = Math.floor(nowSeconds);
      await db.query("DELETE FROM signed_messages WHERE expires_at < $1", [now - SIGNED_MESSAGE_TTL_SECONDS]);
      const nonce = randomBytes(16).toString("hex");
      const expiresAt = now + SIGNED_MESSAGE_TTL_SECONDS;
      const message = formatSignedMessage(firstLine, wallet, nonce, expiresAt);
      await db.query(
        "INSERT INTO signed_messages (nonce, wallet, purpose, message, expires_at) VALUES ($1, $2, $3, $4, $5)",
        [nonce, wallet, purpose, message, expiresAt],
      );
      return { nonce, wallet, purpose, message, expiresAt };
    },
    async consume({ nonce, wallet, purpose, message, nowSeconds }) {
      const now = Math.floor(nowSeconds);
      const taken = await db.query<{ nonce: string }>(
        `UPDATE signed_messages SET used_at = $5
         WHERE nonce = $1 AND wallet = $2 AND purpose = $3 AND message = $4 AND used_at IS NULL AND expires_at >= $5
         RETURNING nonce`,
        [nonce, wallet, purpose, message, now],
      );
      if (taken.length === 1) return { ok: true };
      const [row] = await db.query<{
        wallet: string;
        purpose: string;
        message: string;
        expires_at: unknown;
        used_at: unknown;
      }>("SELECT wallet, purpose, message, expires_at, used_at FROM signed_messages WHERE nonce = $1", [
        nonce,
      ]);
      const refusal: ConsumeRefusal =
        row === undefined
          ? "unknown"
          : row.wallet !== wallet
            ? "other-wallet"
            : row.purpose !== purpose
              ? "other-purpose"
              : row.message !== message
                ? "altered"
                : row.used_at !== null
                  ? "used"
                  : "expired";
      return { ok: false, refusal };
    },
  };
}
