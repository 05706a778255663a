import {
  type ChatCredential,
  encodeBase58,
  getChatCredentialStorageKey,
  isChatCredential,
  toChatAuthorization,
} from "@cistern/protocol";
import type { PublicKey } from "@solana/web3.js";
import { requestJson } from "../tx/http-client.ts";
import { signMessageOrThrow } from "../wallet/wallet-errors.ts";

/** A refusal from the chat: its numeric code (8xxx) and the server's one plain sentence. */
export class ChatError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "ChatError";
    this.code = code;
  }
}

/** Codes that mean the credential itself is no good: the app forgets it and asks to sign in again. */
export const CREDENTIAL_CODES: readonly number[] = [8101, 8102];

/** The chat's GraphQL endpoint for an API base URL (HTTP, or ws/wss for the socket). */
export function getChatEndpoint(apiUrl: string, socket = false): string {
  const url = `${apiUrl.replace(/\/$/, "")}/graphql`;
  return socket ? url.replace(/^http/, "ws") : url;
}

/** Runs a query or mutation over HTTP; a GraphQL error becomes a ChatError with its code. */
export async function chatRequest<T>(
  apiUrl: string,
  query: string,
  variables: Record<string, unknown>,
  credential: ChatCredential | null,
): Promise<T> {
  const body = await requestJson<{
    data?: T | null;
    errors?: { message: string; extensions?: { code?: unknown } }[];
  }>(getChatEndpoint(apiUrl), {
    body: { query, variables },
    headers: credential === null ? {} : { authorization: toChatAuthorization(credential) },
  });
  const error = body.errors?.[0];
  if (error !== undefined) {
    const code = typeof error.extensions?.code === "number" ? error.extensions.code : 8000;
    throw new ChatError(code, error.message);
  }
  return body.data as T;
}

/** The wallet's cached credential, or null when none is stored or it is not a valid one for this wallet. */
export function loadChatCredential(wallet: string): ChatCredential | null {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(getChatCredentialStorageKey(wallet)) ?? "null");
    return isChatCredential(value) && value.userId === wallet ? value : null;
  } catch {
    return null;
  }
}

export function saveChatCredential(credential: ChatCredential): void {
  localStorage.setItem(getChatCredentialStorageKey(credential.userId), JSON.stringify(credential));
}

export function clearChatCredential(wallet: string): void {
  localStorage.removeItem(getChatCredentialStorageKey(wallet));
}

/**
 * Signs in: asks the API for the login message ('Access Cistern chat as {wallet}', a nonce and an expiry), has
 * the wallet sign it, and returns the credential {message, signature, userId}. Wallets that cannot sign
 * messages (Ledger) throw the spec's WALLET_SIGN_MESSAGE_UNSUPPORTED.
 */
export async function signInToChat(
  apiUrl: string,
  wallet: {
    publicKey: PublicKey;
    walletName: string | null;
    signMessage?: ((message: Uint8Array) => Promise<Uint8Array>) | undefined;
  },
): Promise<ChatCredential> {
  const userId = wallet.publicKey.toBase58();
  const { loginMessage } = await chatRequest<{ loginMessage: { message: string } }>(
    apiUrl,
    "mutation Login($wallet: String!) { loginMessage(wallet: $wallet) { message } }",
    { wallet: userId },
    null,
  );
  const signature = await signMessageOrThrow(wallet, new TextEncoder().encode(loginMessage.message));
  return { message: loginMessage.message, signature: encodeBase58(signature), userId };
}
