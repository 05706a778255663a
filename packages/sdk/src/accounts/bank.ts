import { type Address, type FixedSizeCodec, getStructCodec, type ReadonlyUint8Array } from "@solana/kit";
import { i64, pubkey, u8, u8Enum, u64, withReserved } from "../codecs/primitives.ts";
import { decodeAccountWith, withAccountHeader } from "./account-codec.ts";

/** Bank type (only Standard exists). */
export type BankType = "Standard";

/**
 * A lender's bank for one currency (PDA ["bank", owner, mint]), 256 bytes. Amounts are base units of `mint`;
 * timestamps unix seconds (0 = never).
 */
export interface BankAccount {
  bump: number;
  vaultBump: number;
  bankType: BankType;
  /** Currency mint decimals, read at creation. */
  decimals: number;
  owner: Address;
  mint: Address;
  /** Token account PDA ["vault", bank], authority = the bank PDA. */
  vault: Address;
  /** Deposits - withdrawals + lender interest share - liquidated principal. */
  totalLiquidity: bigint;
  /** Tokens in the vault that are not lent out. */
  availableLiquidity: bigint;
  /** Principal delegated to the pinned lending venue, at cost (its yield is added to total when it comes back). */
  delegatedLiquidity: bigint;
  /** Always 0: the local lending venue has no withdrawal cooldown. */
  cooldownLiquidity: bigint;
  /** Always 0 (no cooldown). */
  cooldownPeriod: bigint;
  createdAt: bigint;
  depositedAt: bigint;
  withdrawnAt: bigint;
  borrowedAt: bigint;
  repaidAt: bigint;
  frozenUntil: bigint;
  /** Count of Ongoing loans drawing on this bank. */
  ongoingLoans: bigint;
  /** Who besides the owner may delegate idle liquidity (the system program's address: nobody). */
  delegationKeeper: Address;
  /**
   * Protocol fees paid into the vault by repayments (Repay, MarketSell, Extend, Refinance) and not yet moved to the
   * treasury by CollectFees; never part of availableLiquidity.
   */
  feesOwed: bigint;
}

/** Codec of the whole Bank account (header included). */
let cachedBankAccountCodec: FixedSizeCodec<BankAccount, BankAccount> | undefined;

export function getBankAccountCodec(): FixedSizeCodec<BankAccount, BankAccount> {
  cachedBankAccountCodec ??= buildBankAccountCodec();
  return cachedBankAccountCodec;
}

function buildBankAccountCodec(): FixedSizeCodec<BankAccount, BankAccount> {
  return withAccountHeader(
    "Bank",
    getStructCodec([
      ["bump", u8()],
      ["vaultBump", u8()],
      ["bankType", u8Enum({ 0: "Standard" })],
      ["decimals", withReserved(u8(), 2)],
      ["owner", pubkey()],
      ["mint", pubkey()],
      ["vault", pubkey()],
      ["totalLiquidity", u64()],
      ["availableLiquidity", u64()],
      ["delegatedLiquidity", u64()],
      ["cooldownLiquidity", u64()],
      ["cooldownPeriod", u64()],
      ["createdAt", i64()],
      ["depositedAt", i64()],
      ["withdrawnAt", i64()],
      ["borrowedAt", i64()],
      ["repaidAt", i64()],
      ["frozenUntil", i64()],
      ["ongoingLoans", u64()],
      ["delegationKeeper", pubkey()],
      ["feesOwed", withReserved(u64(), 16)],
    ]) as FixedSizeCodec<BankAccount, BankAccount>,
  );
}

/** Decodes Bank account data (checks size, tag and version). */
export function decodeBankAccount(data: ReadonlyUint8Array): BankAccount {
  return decodeAccountWith("Bank", getBankAccountCodec(), data);
}

/** Encodes a Bank account to its 256 bytes. */
export function encodeBankAccount(account: BankAccount): ReadonlyUint8Array {
  return getBankAccountCodec().encode(account);
}

/** borrowedLiquidity = total - available - delegated (not stored on chain). */
export function getBankBorrowedLiquidity(bank: BankAccount): bigint {
  return bank.totalLiquidity - bank.availableLiquidity - bank.delegatedLiquidity;
}
