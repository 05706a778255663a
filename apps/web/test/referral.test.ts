import { Keypair } from "@solana/web3.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { applyReferralFromUrl, getStoredReferrer } from "../src/referral/referral.ts";
import { clearToasts, toastStore } from "../src/toasts/toast-store.ts";

const alice = Keypair.generate().publicKey.toBase58();
const names = { alice };

beforeEach(() => clearToasts());
afterEach(() => {
  // biome-ignore lint/suspicious/noDocumentCookie: test cleanup of the referral cookie.
  document.cookie = "referral=; Max-Age=0; Path=/";
  vi.restoreAllMocks();
});

describe("referral", () => {
  it("accepts a plain wallet address as referral", () => {
    expect(applyReferralFromUrl(`https://app.test/?referral=${alice}`, {})).toBe(alice);
    expect(getStoredReferrer()).toBe(alice);
  });

  it("maps a configured name to its fixed address, stored in a 60-day cookie and toasts who referred the user", () => {
    const setter = vi.spyOn(document, "cookie", "set");
    expect(applyReferralFromUrl(`https://app.test/?referral=alice`, names)).toBe(alice);
    expect(setter).toHaveBeenCalledWith(`referral=${alice}; Max-Age=5184000; Path=/; SameSite=Lax`);
    expect(getStoredReferrer()).toBe(alice);
    expect(toastStore.get()).toMatchObject([
      { kind: "success", title: "Referral applied", description: `You were referred by ${alice}` },
    ]);
  });

  it("only logs an invalid referral", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(applyReferralFromUrl("https://app.test/?referral=xyz", names)).toBeNull();
    expect(warn).toHaveBeenCalledWith('Ignoring invalid referral "xyz": not a wallet address');
    expect(getStoredReferrer()).toBeNull();
    expect(toastStore.get()).toEqual([]);
  });

  it("ignores URLs without the parameter and a tampered cookie", () => {
    expect(applyReferralFromUrl("https://app.test/", names)).toBeNull();
    expect(getStoredReferrer("referral=garbage; other=1")).toBeNull();
    expect(getStoredReferrer(`a=1; referral=${alice}`)).toBe(alice);
  });
});
