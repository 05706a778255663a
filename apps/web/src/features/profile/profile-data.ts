import { useApiQuery } from "../../kit/api.ts";

/** A wallet's profile as /user/user answers it (null until the wallet saves one). */
export interface UserProfile {
  username: string;
  image: string;
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null) throw new Error(`${what}: expected an object`);
  return value as Record<string, unknown>;
}

function readProfile(raw: unknown): UserProfile | null {
  if (raw === null || raw === undefined) return null;
  const r = asRecord(raw, "profile");
  return { username: String(r.username ?? ""), image: String(r.image ?? "") };
}

/** Parses /user/multiple-users into address -> profile (wallets without one are left out). */
export function parseUserProfiles(body: unknown): Map<string, UserProfile> {
  if (!Array.isArray(body)) throw new Error("users: expected an array");
  const out = new Map<string, UserProfile>();
  for (const item of body) {
    const r = asRecord(item, "user");
    const profile = readProfile(r.profile);
    if (profile !== null && profile.username !== "") out.set(String(r.pubkey), profile);
  }
  return out;
}

/** Parses /user/user. */
export function parseUserProfile(body: unknown): UserProfile | null {
  return readProfile(asRecord(body, "user").profile);
}

/** Droplets of a wallet (/user/user-droplets). */
export interface Droplets {
  droplets: number;
  borrowedUsdDays: number;
  lentUsdDays: number;
}

export function parseDroplets(body: unknown): Droplets {
  const r = asRecord(body, "droplets");
  return {
    droplets: Number(r.droplets ?? 0),
    borrowedUsdDays: Number(r.borrowedUsdDays ?? 0),
    lentUsdDays: Number(r.lentUsdDays ?? 0),
  };
}

/** What a referrer brought (/user/referrals). */
export interface ReferralFigures {
  walletsReferred: number;
  transactions: number;
  loans: number;
  volumeUsd: number;
}

export function parseReferralFigures(body: unknown): ReferralFigures {
  const r = asRecord(body, "referrals");
  return {
    walletsReferred: Number(r.walletsReferred ?? 0),
    transactions: Number(r.transactions ?? 0),
    loans: Number(r.loans ?? 0),
    volumeUsd: Number(r.volumeUsd ?? 0),
  };
}

/** Profiles of the given wallets (one request for all of them, at most 100), refreshed with scope "profile". */
export function useProfiles(addresses: readonly string[]) {
  const unique = [...new Set(addresses)].sort().slice(0, 100);
  return useApiQuery("profile", "/user/multiple-users", { pubkeys: unique.join(",") }, parseUserProfiles, {
    enabled: unique.length > 0,
  });
}
