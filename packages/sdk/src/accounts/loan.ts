import {
  type Address,
  type FixedSizeCodec,
  getStructCodec,
  type ReadonlyUint8Array,
  transformCodec,
} from "@solana/kit";
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
import {
  NFT_TYPE_BYTE,
  NFT_TYPE_PNFT_HELD,
  type NftStandard,
  nftStandardOf,
} from "../custody/nft-standard.ts";
import { decodeVersionedAccountWith, withAccountHeader } from "./account-codec.ts";

/** Loan status; nothing leaves a final status (Repaid, Liquidated, Sold). */
export type LoanStatus = "Ongoing" | "Repaid" | "Liquidated" | "Sold";
/** Loan kind (only ClassicLoan is issued today). */
export type LoanKind = "ClassicLoan" | "MarginSwapLoan" | "RequestLoan" | "Mortgage";

/**
 * A loan (PDA ["loan", pool, borrower, nonce u64 LE]), 424 bytes (384 at layout v1). Amounts in base units (principal, interest
 * and fees of the currency mint; collateralAmount of the collateral mint); timestamps unix seconds (0 = not yet).
 */
export interface LoanAccount {
  /** A programmable NFT the loan PDA owns in its associated token account (nftType 4, a filled request's custody);
   * absent: delegated and locked in the borrower's token account (nftType 1), or another standard. */
  pnftHeld?: boolean;
  bump: number;
  escrowBump: number;
  status: LoanStatus;
  kind: LoanKind;
  /** True for token collateral (defi-pool). */
  isDefi: boolean;
  /** The collateral's standard and so its custody (byte 7, nftType): Nft for classic escrow (and token loans). */
  nftType: NftStandard;
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
  /** The new loan when this loan was closed by Extend or Refinance; null otherwise. */
  extendedTo: Address | null;
  /** How the loan ended (layout v2); null for a loan still at layout v1, which did not record it. */
  closedBy: LoanClosedBy | null;
  /** The loan an Extend or Refinance replaced with this one; null otherwise (and at layout v1). */
  previousLoan: Address | null;
  /** Layout the account is at (1 until Migrate after the 1.8 upgrade); set by the decoder. */
  layoutVersion?: number;
}

/** How a loan ended (Loan.closedBy). */
export type LoanClosedBy = "Open" | "Repaid" | "Extended" | "Refinanced" | "Liquidated" | "Sold" | "AutoSold";

/** Codec of the whole Loan account (header included). */
let cachedLoanAccountCodec: FixedSizeCodec<LoanAccount, LoanAccount> | undefined;

export function getLoanAccountCodec(): FixedSizeCodec<LoanAccount, LoanAccount> {
  cachedLoanAccountCodec ??= buildLoanAccountCodec();
  return cachedLoanAccountCodec;
}

function buildLoanAccountCodec(): FixedSizeCodec<LoanAccount, LoanAccount> {
  return withAccountHeader(
    "Loan",
    getStructCodec([
      ["bump", u8()],
      ["escrowBump", u8()],
      ["status", u8Enum({ 0: "Ongoing", 1: "Repaid", 2: "Liquidated", 3: "Sold" })],
      ["kind", u8Enum({ 0: "ClassicLoan", 1: "MarginSwapLoan", 2: "RequestLoan", 3: "Mortgage" })],
      ["isDefi", bool8()],
      [
        "nftType",
        transformCodec(
          u8(),
          (v: NftStandard | undefined): number => NFT_TYPE_BYTE[v ?? "Nft"],
          (v: number): NftStandard => nftStandardOf(v),
        ),
      ],
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
      [
        "closedBy",
        withReserved(
          transformCodec(
            u8Enum({
              0: "Open",
              1: "Repaid",
              2: "Extended",
              3: "Refinanced",
              4: "Liquidated",
              5: "Sold",
              6: "AutoSold",
            }),
            (v: LoanClosedBy | null): LoanClosedBy => v ?? "Open",
            (v: LoanClosedBy): LoanClosedBy | null => v,
          ),
          7,
        ),
      ],
      ["previousLoan", optionalPubkey()],
    ]) as FixedSizeCodec<LoanAccount, LoanAccount>,
  );
}

/** Decodes Loan account data (checks size, tag and version). */
export function decodeLoanAccount(data: ReadonlyUint8Array): LoanAccount {
  const decoded = decodeVersionedAccountWith("Loan", getLoanAccountCodec(), data);
  // only a held pNFT's loan carries the flag (every other decodes as it always did)
  const loan = data[7] === NFT_TYPE_PNFT_HELD ? { ...decoded, pnftHeld: true } : decoded;
  return loan.layoutVersion === 1 ? { ...loan, closedBy: null } : loan;
}

/** A Loan account to encode: `nftType` may be left out (classic). */
export type LoanAccountInput = Omit<LoanAccount, "nftType"> & { nftType?: NftStandard };

/** Encodes a Loan account to its 424 bytes (current layout). */
export function encodeLoanAccount(account: LoanAccountInput): ReadonlyUint8Array {
  const bytes = getLoanAccountCodec().encode(account as LoanAccount);
  if (!account.pnftHeld) return bytes;
  const held = new Uint8Array(bytes);
  held[7] = NFT_TYPE_PNFT_HELD;
  return held;
}
