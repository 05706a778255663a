import { Type } from "@sinclair/typebox";
import { readBigInt, readNumber } from "../db/database.ts";
import { BaseUnitsString, EpochSeconds, Pubkey } from "../http/schemas.ts";

export const BANK_COLUMNS = `pubkey, owner, mint, vault, authority, bank_type, total_liquidity, available_liquidity,
  delegated_liquidity, cooldown_liquidity, cooldown_period, delegators, created_at, deposited_at, withdrawn_at,
  borrowed_at, repaid_at, frozen_until`;

export interface BankRow {
  pubkey: string;
  owner: string;
  mint: string;
  vault: string;
  authority: string;
  bank_type: string;
  total_liquidity: unknown;
  available_liquidity: unknown;
  delegated_liquidity: unknown;
  cooldown_liquidity: unknown;
  cooldown_period: unknown;
  delegators: string[] | null;
  created_at: unknown;
  deposited_at: unknown;
  withdrawn_at: unknown;
  borrowed_at: unknown;
  repaid_at: unknown;
  frozen_until: unknown;
}

/** A bank (spec section 3). Liquidity figures are base units of `mint` as decimal strings. */
export const BankSchema = Type.Object(
  {
    pubkey: Pubkey,
    owner: Pubkey,
    mint: Pubkey,
    vault: Pubkey,
    authority: Type.String({ description: "vault authority: the bank PDA itself" }),
    bankType: Type.String(),
    totalLiquidity: BaseUnitsString,
    availableLiquidity: BaseUnitsString,
    delegatedLiquidity: BaseUnitsString,
    cooldownLiquidity: BaseUnitsString,
    borrowedLiquidity: Type.String({ description: "total - available - delegated, base units" }),
    cooldownPeriod: Type.Integer({ description: "seconds" }),
    delegators: Type.Array(Type.String()),
    createdAt: EpochSeconds,
    depositedAt: EpochSeconds,
    withdrawnAt: EpochSeconds,
    borrowedAt: EpochSeconds,
    repaidAt: EpochSeconds,
    frozenUntil: EpochSeconds,
  },
  { $id: "Bank" },
);

/** Maps a banks row to the API shape. */
export function toBankView(row: BankRow) {
  const total = readBigInt(row.total_liquidity);
  const available = readBigInt(row.available_liquidity);
  const delegated = readBigInt(row.delegated_liquidity);
  return {
    pubkey: row.pubkey,
    owner: row.owner,
    mint: row.mint,
    vault: row.vault,
    authority: row.authority,
    bankType: row.bank_type,
    totalLiquidity: total.toString(),
    availableLiquidity: available.toString(),
    delegatedLiquidity: delegated.toString(),
    cooldownLiquidity: readBigInt(row.cooldown_liquidity).toString(),
    borrowedLiquidity: (total - available - delegated).toString(),
    cooldownPeriod: readNumber(row.cooldown_period),
    delegators: row.delegators ?? [],
    createdAt: readNumber(row.created_at),
    depositedAt: readNumber(row.deposited_at),
    withdrawnAt: readNumber(row.withdrawn_at),
    borrowedAt: readNumber(row.borrowed_at),
    repaidAt: readNumber(row.repaid_at),
    frozenUntil: readNumber(row.frozen_until),
  };
}
