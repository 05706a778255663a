/**
 * Chat client rules (spec section 9): 5 retry attempts, exponential backoff from 1 s with jitter,
 * keep-alive 0; sign-in message and socket close codes.
 */
import { CHAT_RETRY_ATTEMPTS, CHAT_RETRY_BASE_DELAY_MS, CHAT_SOCKET_CLOSE_CODES } from "./constants.ts";

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
