import { CisternError, ERROR_CODES } from "@cistern/protocol";
import type { PublicKey } from "@solana/web3.js";
import { requestJson } from "../tx/http-client.ts";

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/**
 * Has the wallet sign the link message the API issues (the spec's line, the wallet, a nonce and an expiry;
 * accepted once): the proof of ownership that POST /pool/update and /user/update take. Throws
 * WALLET_SIGN_MESSAGE_UNSUPPORTED for wallets that cannot sign messages (Ledger).
 */
export async function signLinkMessage(
  apiUrl: string,
  wallet: { publicKey: PublicKey; signMessage?: (message: Uint8Array) => Promise<Uint8Array> },
): Promise<{ message: string; signature: string }> {
  if (!wallet.signMessage) throw new CisternError(ERROR_CODES.WALLET_SIGN_MESSAGE_UNSUPPORTED);
  const { message } = await requestJson<{ message: string }>(`${apiUrl}/user/link-message`, {
    body: { wallet: wallet.publicKey.toBase58() },
  });
  const signature = await wallet.signMessage(new TextEncoder().encode(message));
  return { message, signature: toBase64(signature) };
}
