import { type Address, type FixedSizeCodec, getStructCodec, type ReadonlyUint8Array } from "@solana/kit";
import {
  bool8,
  i64,
  optionalPubkey,
  pubkey,
  u8,
  u8Enum,
  u32,
  u64,
  withReserved,
} from "../codecs/primitives.ts";
import { ACCOUNT_SIZE, ACCOUNT_TAG } from "../constants.ts";
import { decodeAccountWith, withAccountHeader } from "./account-codec.ts";

/** Loan status; nothing leaves a final status (Repaid, Liquidated, Sold). */
export type LoanStatus = "Ongoing" | "Repaid" | "Liquidated" | "Sold";
/** Loan kind (only ClassicLoan is issued today). */
export type LoanKind = "ClassicLoan" | "MarginSwapLoan" | "RequestLoan" | "Mortgage";

/**
 * A loan (PDA ["loan", pool, borrower, nonce u64 LE]), 384 bytes. Amounts in base units (principal, interest
 * and fees of the currency mint; collateralAmount of the collateral mint); timestamps unix seconds (0 = not yet).
 */
export interface LoanAccount {
  bump: number;
  escrowBump: number;
  status: LoanStatus;
  kind: LoanKind;
  /** True for token collateral (defi-pool). */
  isDefi: boolean;
  borrower: Address;
  pool: Address;
  bank: Address;
  currencyMint: Address;
  collateralMint: Address;
  /** nft: attested collection id; defi: = collateral mint. */
  collection: Address;
  /** Token account PDA ["escrow", loan]. */
  escrow: Address;
  nonce: bigint;
  collateralAmount: bigint;
  principal: bigint;
  /** Total interest for the full duration, computed on chain. */
  interest: bigint;
  aprBps: number;
  durationSeconds: bigint;
  createdAt: bigint;
  /** createdAt + durationSeconds. */
  expiredAt: bigint;
  repaidAt: bigint;
  liquidatedAt: bigint;
  soldAt: bigint;
  /** Principal + owed interest actually paid. */
  repaidAmount: bigint;
  protocolFeePaid: bigint;
  /** Attested collateral value, loan-currency base units. */
  collateralValue: bigint;
  attestationSlot: bigint;
  /** The new loan when this loan was closed by Extend; null otherwise. */
  extendedTo: Address | null;
}

/** Codec of the whole Loan account (header included). */
let cachedLoanAccountCodec: FixedSizeCodec<LoanAccount, LoanAccount> | undefined;

export function getLoanAccountCodec(): FixedSizeCodec<LoanAccount, LoanAccount> {
  cachedLoanAccountCodec ??= buildLoanAccountCodec();
  return cachedLoanAccountCodec;
}

function buildLoanAccountCodec(): FixedSizeCodec<LoanAccount, LoanAccount> {
  return withAccountHeader(
    ACCOUNT_TAG.Loan,
    getStructCodec([
      ["bump", u8()],
      ["escrowBump", u8()],
      ["status", u8Enum({ 0: "Ongoing", 1: "Repaid", 2: "Liquidated", 3: "Sold" })],
      ["kind", u8Enum({ 0: "ClassicLoan", 1: "MarginSwapLoan", 2: "RequestLoan", 3: "Mortgage" })],
      ["isDefi", withReserved(bool8(), 1)],
      ["borrower", pubkey()],
      ["pool", pubkey()],
      ["bank", pubkey()],
      ["currencyMint", pubkey()],
      ["collateralMint", pubkey()],
      ["collection", pubkey()],
      ["escrow", pubkey()],
      ["nonce", u64()],
      ["collateralAmount", u64()],
      ["principal", u64()],
      ["interest", u64()],
      ["aprBps", withReserved(u32(), 4)],
      ["durationSeconds", u64()],
      ["createdAt", i64()],
      ["expiredAt", i64()],
      ["repaidAt", i64()],
      ["liquidatedAt", i64()],
      ["soldAt", i64()],
      ["repaidAmount", u64()],
      ["protocolFeePaid", u64()],
      ["collateralValue", u64()],
      ["attestationSlot", u64()],
      ["extendedTo", optionalPubkey()],
    ]) as FixedSizeCodec<LoanAccount, LoanAccount>,
  );
}

/** Decodes Loan account data (checks size, tag and version). */
export function decodeLoanAccount(data: ReadonlyUint8Array): LoanAccount {
  return decodeAccountWith("Loan", ACCOUNT_TAG.Loan, ACCOUNT_SIZE.Loan, getLoanAccountCodec(), data);
}

/** Encodes a Loan account to its 384 bytes. */
export function encodeLoanAccount(account: LoanAccount): ReadonlyUint8Array {
  return getLoanAccountCodec().encode(account);
}
