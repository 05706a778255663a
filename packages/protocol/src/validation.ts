/**
 * Input validation rules (spec section 5): public keys, referral addresses, image URLs, mobile
 * wallet association.
 */
import { decodeBase58 } from "./base58.ts";
import { MOBILE_WALLET_ASSOCIATION_PORT_MAX, MOBILE_WALLET_ASSOCIATION_PORT_MIN } from "./constants.ts";
import { CisternError, ERROR_CODES } from "./errors.ts";

/** Smallest and largest decoded size of an address the product accepts (spec: 32 to 44 bytes). */
export const PUBLIC_KEY_MIN_BYTES = 32;
export const PUBLIC_KEY_MAX_BYTES = 44;

/** True when `value` is base58 text decoding to 32..44 bytes. */
export function isValidPublicKey(value: unknown): value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > 64) return false;
  const bytes = decodeBase58(value);
  return bytes !== undefined && bytes.length >= PUBLIC_KEY_MIN_BYTES && bytes.length <= PUBLIC_KEY_MAX_BYTES;
}

/** The public key, or CisternError INVALID_PUBLIC_KEY (7000). */
export function assertPublicKey(value: unknown): string {
  if (!isValidPublicKey(value))
    throw new CisternError(ERROR_CODES.INVALID_PUBLIC_KEY, { value: String(value) });
  return value;
}

/**
 * Resolve a `referral` query value: a known alias maps to its wallet address; the result must be
 * a valid wallet address. Returns undefined for anything else (the caller logs and ignores it).
 */
export function resolveReferral(
  value: string | null | undefined,
  aliases: Readonly<Record<string, string>> = {},
): string | undefined {
  if (!value) return undefined;
  const address = Object.hasOwn(aliases, value) ? aliases[value] : value;
  return isValidPublicKey(address) ? address : undefined;
}

/** The referral address, or CisternError INVALID_REFERRAL_ADDRESS (7001). */
export function assertReferralAddress(value: unknown): string {
  if (!isValidPublicKey(value)) {
    throw new CisternError(ERROR_CODES.INVALID_REFERRAL_ADDRESS, { value: String(value) });
  }
  return value;
}

/** Result of the image URL rule that needs no network. */
export type ImageUrlCheck =
  | { ok: true; needsContentTypeCheck: false }
  | { ok: true; needsContentTypeCheck: true; url: string }
  | { ok: false; error: CisternError };

/**
 * Image URL rule: empty is accepted; a URL containing 'twimg' is rejected; anything else must
 * still pass a HEAD request returning an image content type (done by the API).
 */
export function checkImageUrl(url: string | null | undefined): ImageUrlCheck {
  const text = (url ?? "").trim();
  if (text === "") return { ok: true, needsContentTypeCheck: false };
  if (text.includes("twimg")) {
    return { ok: false, error: new CisternError(ERROR_CODES.IMAGE_URL_REJECTED, { url: text }) };
  }
  return { ok: true, needsContentTypeCheck: true, url: text };
}

/** True for an image content type ("image/png", "image/svg+xml; charset=utf-8"...). */
export function isImageContentType(contentType: string | null | undefined): boolean {
  return typeof contentType === "string" && /^image\/[\w.+-]+/i.test(contentType.trim());
}

/** Throws MOBILE_WALLET_PORT_OUT_OF_RANGE unless 49152 <= port <= 65535 (an integer). */
export function assertAssociationPort(port: number): number {
  if (
    !Number.isInteger(port) ||
    port < MOBILE_WALLET_ASSOCIATION_PORT_MIN ||
    port > MOBILE_WALLET_ASSOCIATION_PORT_MAX
  ) {
    throw new CisternError(ERROR_CODES.MOBILE_WALLET_PORT_OUT_OF_RANGE, { port });
  }
  return port;
}

/** Throws MOBILE_WALLET_FORBIDDEN_BASE_URL unless the wallet base URL is a valid https URL. */
export function assertWalletBaseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CisternError(ERROR_CODES.MOBILE_WALLET_FORBIDDEN_BASE_URL);
  }
  if (parsed.protocol !== "https:") throw new CisternError(ERROR_CODES.MOBILE_WALLET_FORBIDDEN_BASE_URL);
  return parsed;
}
