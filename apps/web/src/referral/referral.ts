import { REFERRAL_COOKIE_MAX_AGE_SECONDS, REFERRAL_QUERY_PARAM } from "@cistern/protocol";
import { PublicKey } from "@solana/web3.js";
import { showToast } from "../toasts/toast-store.ts";

/** Name of the cookie holding the referrer's wallet address. */
export const REFERRAL_COOKIE = "referral";

/** True when `value` is a base58 wallet address (a valid 32-byte public key). */
export function isValidWalletAddress(value: string): boolean {
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}

/**
 * Resolves a referral query value: a configured name (case-insensitive) maps to its fixed address,
 * anything else is taken as an address. Returns null when the result is not a valid wallet address.
 */
export function resolveReferral(value: string, referralNames: Record<string, string>): string | null {
  const trimmed = value.trim();
  const address = referralNames[trimmed.toLowerCase()] ?? trimmed;
  return isValidWalletAddress(address) ? address : null;
}

/** The stored referrer address, or null. */
export function getStoredReferrer(cookie: string = document.cookie): string | null {
  for (const part of cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === REFERRAL_COOKIE) {
      const value = decodeURIComponent(rest.join("="));
      return isValidWalletAddress(value) ? value : null;
    }
  }
  return null;
}

/**
 * Reads the `referral` query parameter of a URL (called on every navigation). A valid referrer is
 * stored in the referral cookie for 60 days with a success toast; an invalid one is only logged.
 * Returns the stored address or null.
 */
export function applyReferralFromUrl(href: string, referralNames: Record<string, string>): string | null {
  const value = new URL(href).searchParams.get(REFERRAL_QUERY_PARAM);
  if (value === null || value === "") return null;
  const address = resolveReferral(value, referralNames);
  if (address === null) {
    console.warn(`Ignoring invalid referral "${value}": not a wallet address`);
    return null;
  }
  const secure = globalThis.location?.protocol === "https:" ? "; Secure" : "";
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not available in every browser we support.
  document.cookie = `${REFERRAL_COOKIE}=${encodeURIComponent(address)}; Max-Age=${REFERRAL_COOKIE_MAX_AGE_SECONDS}; Path=/; SameSite=Lax${secure}`;
  showToast({ kind: "success", title: "Referral applied", description: `You were referred by ${address}` });
  return address;
}
