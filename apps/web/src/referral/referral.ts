import {
  isValidPublicKey,
  REFERRAL_COOKIE_MAX_AGE_SECONDS,
  REFERRAL_QUERY_PARAM,
  resolveReferral,
} from "@cistern/protocol";
import { showToast } from "../toasts/toast-store.ts";

/** Name of the cookie holding the referrer's wallet address. */
export const REFERRAL_COOKIE = "referral";

/** The stored referrer address, or null. */
export function getStoredReferrer(cookie: string = document.cookie): string | null {
  for (const part of cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === REFERRAL_COOKIE) {
      const value = decodeURIComponent(rest.join("="));
      return isValidPublicKey(value) ? value : null;
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
  if (address === undefined) {
    console.warn(`Ignoring invalid referral "${value}": not a wallet address`);
    return null;
  }
  const secure = globalThis.location?.protocol === "https:" ? "; Secure" : "";
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not available in every browser we support.
  document.cookie = `${REFERRAL_COOKIE}=${encodeURIComponent(address)}; Max-Age=${REFERRAL_COOKIE_MAX_AGE_SECONDS}; Path=/; SameSite=Lax${secure}`;
  showToast({ kind: "success", title: "Referral applied", description: `You were referred by ${address}` });
  return address;
}
