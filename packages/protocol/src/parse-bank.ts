/**
 * Bank server view -> parsed bank (spec section 3 "Bank").
 */
import {
  type JsonRecord,
  readAmount,
  readOptionalAmount,
  readOptionalString,
  readRecord,
  readSeconds,
  readString,
} from "./server-fields.ts";

/** A lender's bank for one currency. Liquidity in base units, times in epoch seconds. */
export interface Bank {
  pubkey: string;
  owner: string;
  mint: string;
  vault: string;
  authority: string;
  bankType: string;
  totalLiquidity: bigint;
  availableLiquidity: bigint;
  delegatedLiquidity: bigint;
  cooldownLiquidity: bigint;
  /** total - available - delegated (never below 0). */
  borrowedLiquidity: bigint;
  /** Seconds. */
  cooldownPeriod: number;
  delegators: string[];
  createdAt: number;
  depositedAt: number;
  withdrawnAt: number;
  borrowedAt: number;
  repaidAt: number;
  frozenUntil: number;
}

/**
 * Borrowed liquidity of a bank: `total - available - delegated`, base units, floored at 0 when
 * the server's totals are momentarily inconsistent.
 */
export function computeBorrowedLiquidity(total: bigint, available: bigint, delegated: bigint): bigint {
  const borrowed = total - available - delegated;
  return borrowed > 0n ? borrowed : 0n;
}

function readBankType(raw: JsonRecord): string {
  const value = raw.bankType;
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && !Array.isArray(value)) return Object.keys(value)[0] ?? "";
  return "";
}

/** Parse a bank from the API (amounts as decimal strings or numbers). */
export function parseBank(input: unknown): Bank {
  const raw = readRecord("bank", "bank", input);
  const e = "bank";
  const totalLiquidity = readAmount(e, "totalLiquidity", raw.totalLiquidity);
  const availableLiquidity = readAmount(e, "availableLiquidity", raw.availableLiquidity);
  const delegatedLiquidity = readOptionalAmount(e, "delegatedLiquidity", raw.delegatedLiquidity);
  const delegators = Array.isArray(raw.delegators)
    ? raw.delegators.map((d, i) => readString(e, `delegators[${i}]`, d))
    : [];
  return {
    pubkey: readString(e, "pubkey", raw.pubkey),
    owner: readString(e, "owner", raw.owner),
    mint: readString(e, "mint", raw.mint),
    vault: readOptionalString(e, "vault", raw.vault),
    authority: readOptionalString(e, "authority", raw.authority),
    bankType: readBankType(raw),
    totalLiquidity,
    availableLiquidity,
    delegatedLiquidity,
    cooldownLiquidity: readOptionalAmount(e, "cooldownLiquidity", raw.cooldownLiquidity),
    borrowedLiquidity: computeBorrowedLiquidity(totalLiquidity, availableLiquidity, delegatedLiquidity),
    cooldownPeriod: readSeconds(e, "cooldownPeriod", raw.cooldownPeriod),
    delegators,
    createdAt: readSeconds(e, "createdAt", raw.createdAt),
    depositedAt: readSeconds(e, "depositedAt", raw.depositedAt),
    withdrawnAt: readSeconds(e, "withdrawnAt", raw.withdrawnAt),
    borrowedAt: readSeconds(e, "borrowedAt", raw.borrowedAt),
    repaidAt: readSeconds(e, "repaidAt", raw.repaidAt),
    frozenUntil: readSeconds(e, "frozenUntil", raw.frozenUntil),
  };
}
