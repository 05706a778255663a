import {
  type Address,
  getBase58Encoder,
  getPublicKeyFromAddress,
  type SignatureBytes,
  verifySignature,
} from "@solana/kit";
import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";
import { badRequest } from "../tx-errors.ts";
import {
  type ConsumeRefusal,
  readNonce,
  type SignedMessagePurpose,
  type SignedMessageStore,
} from "./signed-message-store.ts";

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

/** True when `signature` (base58 or base64; a malformed one throws 400) is `wallet`'s ed25519 signature of `message`. */
export async function isWalletSignature(
  wallet: string,
  message: string,
  signature: string,
): Promise<boolean> {
  const key = await getPublicKeyFromAddress(wallet as Address);
  return verifySignature(key, decodeSignature(signature), new TextEncoder().encode(message));
}

const REFUSALS: Record<ConsumeRefusal, string> = {
  unknown: "this message was not issued by this API: request a new one",
  "other-wallet": "this message was issued for another wallet",
  "other-purpose": "this message was issued for another purpose",
  altered: "the signed message differs from the one issued",
  expired: "this message has expired: request a new one",
  used: "this signed message was already used: sign a new one",
};

/**
 * Accepts `wallet`'s signature of a message the API issued for `purpose`, once: the ed25519 signature must
 * verify over the exact message, whose nonce must be unused and unexpired. Throws a coded 400 / 409 otherwise.
 */
export async function acceptSignedMessage(
  store: SignedMessageStore,
  input: {
    wallet: string;
    purpose: SignedMessagePurpose;
    message: string;
    signature: string;
    nowSeconds: number;
  },
): Promise<void> {
  const nonce = readNonce(input.message);
  if (nonce === null) {
    throw new ApiError(
      ERROR_CODES.SIGNED_MESSAGE_REFUSED,
      "message has no nonce: request one from POST /user/link-message",
    );
  }
  if (!(await isWalletSignature(input.wallet, input.message, input.signature)))
    throw new ApiError(
      ERROR_CODES.SIGNATURE_INVALID,
      `signature is not ${input.wallet}'s signature of the message`,
    );
  const r = await store.consume({
    nonce,
    wallet: input.wallet,
    purpose: input.purpose,
    message: input.message,
    nowSeconds: input.nowSeconds,
  });
  if (!r.ok) {
    const code =
      r.refusal === "used" ? ERROR_CODES.SIGNED_MESSAGE_REPLAYED : ERROR_CODES.SIGNED_MESSAGE_REFUSED;
    throw new ApiError(code, REFUSALS[r.refusal]);
  }
}
