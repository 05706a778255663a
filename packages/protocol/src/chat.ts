/**
 * Chat client rules (spec section 9): 5 retry attempts, exponential backoff from 1 s with jitter,
 * keep-alive 0; sign-in message and socket close codes.
 */
import {
  CHAT_MESSAGE_MAX_CHARS,
  CHAT_RETRY_ATTEMPTS,
  CHAT_RETRY_BASE_DELAY_MS,
  CHAT_SOCKET_CLOSE_CODES,
  getChatSignInMessage,
} from "./constants.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";
import { isValidPublicKey } from "./validation.ts";

/** Jitter added to each retry delay: 300..3000 ms. */
export const CHAT_RETRY_JITTER_MIN_MS = 300;
export const CHAT_RETRY_JITTER_MAX_MS = 3000;

/**
 * Delay before retry number `retries` (0-based): 1000 ms x 2^retries plus a jitter of 300..3000 ms
 * drawn from `random` (a function returning [0, 1), Math.random by default).
 */
export function getChatRetryDelayMs(retries: number, random: () => number = Math.random): number {
  const jitter = Math.floor(
    random() * (CHAT_RETRY_JITTER_MAX_MS - CHAT_RETRY_JITTER_MIN_MS) + CHAT_RETRY_JITTER_MIN_MS,
  );
  return CHAT_RETRY_BASE_DELAY_MS * 2 ** retries + jitter;
}

/** True while another retry is allowed after `retries` failed attempts. */
export function shouldRetryChat(retries: number): boolean {
  return retries < CHAT_RETRY_ATTEMPTS;
}

/** True for one of the chat socket's defined close codes. */
export function isChatSocketCloseCode(code: number): boolean {
  return (CHAT_SOCKET_CLOSE_CODES as readonly number[]).includes(code);
}

/** The credential the web keeps after the wallet signed the chat login message (spec: message, signature, userId). */
export interface ChatCredential {
  /** The login message exactly as the API issued it. */
  message: string;
  /** The wallet's ed25519 signature of `message`, base58. */
  signature: string;
  /** The wallet address. */
  userId: string;
}

/** True when `value` has the credential's shape (strings of plausible lengths); the API still verifies it. */
export function isChatCredential(value: unknown): value is ChatCredential {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.message === "string" &&
    v.message.length > 0 &&
    v.message.length <= 400 &&
    typeof v.signature === "string" &&
    /^[1-9A-HJ-NP-Za-km-z]{80,90}$/.test(v.signature) &&
    typeof v.userId === "string" &&
    isValidPublicKey(v.userId) &&
    v.message.startsWith(getChatSignInMessage(v.userId))
  );
}

/** Local storage key of a wallet's chat credential. */
export function getChatCredentialStorageKey(wallet: string): string {
  return `cistern-chat-credential:${wallet}`;
}

/** The HTTP Authorization header value that carries a credential to the GraphQL endpoint. */
export function toChatAuthorization(credential: ChatCredential): string {
  const json = JSON.stringify(credential);
  const base64 =
    typeof Buffer !== "undefined"
      ? Buffer.from(json, "utf8").toString("base64")
      : btoa(String.fromCharCode(...new TextEncoder().encode(json)));
  return `Chat ${base64}`;
}

/** Reads a credential from an Authorization header value; null when absent or malformed. */
export function fromChatAuthorization(header: string | undefined): ChatCredential | null {
  const m = /^Chat ([A-Za-z0-9+/=]{1,1200})$/.exec(header ?? "");
  if (m === null) return null;
  try {
    const json =
      typeof Buffer !== "undefined"
        ? Buffer.from(m[1]!, "base64").toString("utf8")
        : new TextDecoder().decode(Uint8Array.from(atob(m[1]!), (c) => c.charCodeAt(0)));
    const value: unknown = JSON.parse(json);
    return isChatCredential(value) ? value : null;
  } catch {
    return null;
  }
}

/** Room of a loan: readable and writable by its borrower and its pool's owner only. */
export function getLoanRoomId(loanAddress: string): string {
  return `loan:${loanAddress}`;
}

/** Room of two wallets' direct messages; the same id whichever of them opens it. */
export function getDirectRoomId(walletA: string, walletB: string): string {
  const [first, second] = walletA < walletB ? [walletA, walletB] : [walletB, walletA];
  return `dm:${first}:${second}`;
}

/** What a room id names, or null when it is not a well-formed room id. */
export function parseRoomId(
  roomId: string,
): { kind: "loan"; loan: string } | { kind: "direct"; members: [string, string] } | null {
  const loan = /^loan:([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(roomId);
  if (loan !== null) return { kind: "loan", loan: loan[1]! };
  const dm = /^dm:([1-9A-HJ-NP-Za-km-z]{32,44}):([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(roomId);
  if (dm !== null && dm[1]! < dm[2]!) return { kind: "direct", members: [dm[1]!, dm[2]!] };
  return null;
}

/**
 * A message text as it is stored: trimmed, line breaks kept, other control characters refused; at most
 * {@link CHAT_MESSAGE_MAX_CHARS} characters. Stored and shown as plain text, never as HTML.
 */
export function normaliseChatText(text: string): string {
  const trimmed = text.replace(/\r\n?/g, "\n").trim();
  if (trimmed.length === 0) throw new CisternError(ERROR_CODES.CHAT_MESSAGE_EMPTY);
  if ([...trimmed].length > CHAT_MESSAGE_MAX_CHARS)
    throw new CisternError(ERROR_CODES.CHAT_MESSAGE_TOO_LONG, { max: CHAT_MESSAGE_MAX_CHARS });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u0009\u000b-\u001f\u007f]/.test(trimmed))
    throw new CisternError(ERROR_CODES.CHAT_INVALID_INPUT, {
      field: "text",
      why: "control characters are not allowed",
    });
  return trimmed;
}
