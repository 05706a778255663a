import {
  CHAT_SESSION_SECONDS,
  type ChatCredential,
  CisternError,
  ERROR_CODES,
  getChatSignInMessage,
  isChatCredential,
} from "@cistern/protocol";
import type { Queryable } from "../db/database.ts";
import {
  createSignedMessageStore,
  type IssuedSignedMessage,
  readNonce,
} from "../tx/auth/signed-message-store.ts";
import { isWalletSignature } from "../tx/auth/wallet-message.ts";

/** Verified credentials kept in memory so a busy socket or page does not verify ed25519 on every request. */
const CACHE_MAX_ENTRIES = 10_000;

/** Chat sign-in: issues login messages and turns a presented credential into the wallet it proves. */
export interface ChatAuth {
  issueLoginMessage(wallet: string, nowSeconds: number): Promise<IssuedSignedMessage>;
  /** The credential's wallet, or a coded refusal (8102 with the reason). */
  verify(credential: unknown, nowSeconds: number): Promise<string>;
}

function refuse(reason: string): never {
  throw new CisternError(ERROR_CODES.CHAT_CREDENTIAL_REFUSED, { reason });
}

/**
 * The login message is the spec's sign-in line ('Access Cistern chat as {wallet}') with a nonce and expiry,
 * from the single-use signed-message store. Its first valid presentation consumes it and opens a session
 * (chat_sessions) that accepts the same credential for CHAT_SESSION_SECONDS, in every API process.
 */
export function createChatAuth(db: Queryable): ChatAuth {
  const store = createSignedMessageStore(db);
  const verified = new Map<string, { wallet: string; message: string; expiresAt: number }>();

  async function findSession(nonce: string, credential: ChatCredential, now: number): Promise<number | null> {
    const [row] = await db.query<{ expires_at: unknown }>(
      "SELECT expires_at FROM chat_sessions WHERE nonce = $1 AND wallet = $2 AND signature = $3 AND expires_at >= $4",
      [nonce, credential.userId, credential.signature, now],
    );
    return row === undefined ? null : Number(row.expires_at);
  }

  return {
    issueLoginMessage(wallet, nowSeconds) {
      return store.issue({
        wallet,
        purpose: "chat-login",
        firstLine: getChatSignInMessage(wallet),
        nowSeconds,
      });
    },

    async verify(credential, nowSeconds) {
      const now = Math.floor(nowSeconds);
      if (!isChatCredential(credential)) refuse("the credential is not a signed chat login message");
      const hit = verified.get(credential.signature);
      if (
        hit !== undefined &&
        hit.expiresAt >= now &&
        hit.wallet === credential.userId &&
        hit.message === credential.message
      )
        return hit.wallet;
      const nonce = readNonce(credential.message);
      if (nonce === null) refuse("the message has no nonce");
      let valid = false;
      try {
        valid = await isWalletSignature(credential.userId, credential.message, credential.signature);
      } catch {
        valid = false;
      }
      if (!valid) refuse("the signature is not this wallet's signature of the message");
      let expiresAt = await findSession(nonce, credential, now);
      if (expiresAt === null) {
        const consumed = await store.consume({
          nonce,
          wallet: credential.userId,
          purpose: "chat-login",
          message: credential.message,
          nowSeconds: now,
        });
        if (consumed.ok) {
          expiresAt = now + CHAT_SESSION_SECONDS;
          await db.query(
            `INSERT INTO chat_sessions (nonce, wallet, signature, expires_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (nonce) DO NOTHING`,
            [nonce, credential.userId, credential.signature, expiresAt],
          );
        } else {
          // Another request may have opened the session with this credential a moment ago.
          expiresAt = await findSession(nonce, credential, now);
          if (expiresAt === null)
            refuse(consumed.refusal === "expired" ? "the sign-in expired" : "this sign-in is not valid");
        }
      }
      if (verified.size >= CACHE_MAX_ENTRIES) verified.clear();
      verified.set(credential.signature, {
        wallet: credential.userId,
        message: credential.message,
        expiresAt,
      });
      return credential.userId;
    },
  };
}
