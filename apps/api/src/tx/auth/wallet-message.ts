import { SIGNED_LINK_MESSAGE } from "@cistern/protocol";
import {
  type Address,
  getBase58Encoder,
  getPublicKeyFromAddress,
  type SignatureBytes,
  verifySignature,
} from "@solana/kit";
import { badRequest } from "../tx-errors.ts";

/** The message a wallet signs to prove it may update its metadata (spec section 9; protocol's constant). */
export const LINK_WALLET_MESSAGE: string = SIGNED_LINK_MESSAGE;

/** Decodes a 64-byte ed25519 signature given as base58 or base64. */
export function decodeSignature(text: string): SignatureBytes {
  let bytes: Uint8Array | undefined;
  if (/^[1-9A-HJ-NP-Za-km-z]{80,90}$/.test(text)) {
    try {
      bytes = new Uint8Array(getBase58Encoder().encode(text));
    } catch {
      bytes = undefined;
    }
  }
  if ((bytes === undefined || bytes.length !== 64) && /^[A-Za-z0-9+/]{86}==$/.test(text))
    bytes = new Uint8Array(Buffer.from(text, "base64"));
  if (bytes === undefined || bytes.length !== 64)
    throw badRequest("signature must be 64 bytes, base58 or base64");
  return bytes as SignatureBytes;
}

/**
 * Checks that `signature` is `wallet`'s ed25519 signature of the exact link message (UTF-8). A wrong or
 * foreign signature is a 400. The message is fixed by the spec, so a signature stays valid once given.
 */
export async function assertWalletSignedLinkMessage(
  wallet: string,
  signature: string,
  message?: string,
): Promise<void> {
  if (message !== undefined && message !== LINK_WALLET_MESSAGE)
    throw badRequest(`message must be exactly '${LINK_WALLET_MESSAGE}'`);
  const key = await getPublicKeyFromAddress(wallet as Address);
  const ok = await verifySignature(
    key,
    decodeSignature(signature),
    new TextEncoder().encode(LINK_WALLET_MESSAGE),
  );
  if (!ok) throw badRequest(`signature is not ${wallet}'s signature of the link message`);
}
