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

/** Request status: Open until a lender fills it or the borrower cancels it. */
export type RequestStatus = "Open" | "Filled" | "Cancelled";

/**
 * A borrower's loan request (PDA ["request", borrower, nonce u64 LE]), 288 bytes. The collateral waits in the
 * request's escrow (["escrow", request]) until a lender fills it or the borrower cancels. Amounts in base units
 * (principal of the currency mint, collateralAmount of the collateral mint); timestamps unix seconds.
 */
export interface RequestAccount {
  bump: number;
  escrowBump: number;
  status: RequestStatus;
  /** True for token collateral. */
  isDefi: boolean;
  borrower: Address;
  currencyMint: Address;
  collateralMint: Address;
  /** nft: the verified collection read from the NFT's metadata when posted; tokens: = collateral mint. */
  collection: Address;
  escrow: Address;
  nonce: bigint;
  collateralAmount: bigint;
  principal: bigint;
  durationSeconds: bigint;
  /** The highest APR the borrower accepts. */
  maxAprBps: number;
  createdAt: bigint;
  /** When it was filled or cancelled (0 while open). */
  closedAt: bigint;
  /** The loan that filled it; null otherwise. */
  loan: Address | null;
}

let cachedRequestAccountCodec: FixedSizeCodec<RequestAccount, RequestAccount> | undefined;

/** Codec of the whole Request account (header included). */
export function getRequestAccountCodec(): FixedSizeCodec<RequestAccount, RequestAccount> {
  cachedRequestAccountCodec ??= withAccountHeader(
    "Request",
    getStructCodec([
      ["bump", u8()],
      ["escrowBump", u8()],
      ["status", u8Enum({ 0: "Open", 1: "Filled", 2: "Cancelled" })],
      ["isDefi", withReserved(bool8(), 2)],
      ["borrower", pubkey()],
      ["currencyMint", pubkey()],
      ["collateralMint", pubkey()],
      ["collection", pubkey()],
      ["escrow", pubkey()],
      ["nonce", u64()],
      ["collateralAmount", u64()],
      ["principal", u64()],
      ["durationSeconds", u64()],
      ["maxAprBps", withReserved(u32(), 4)],
      ["createdAt", i64()],
      ["closedAt", i64()],
      ["loan", withReserved(optionalPubkey(), 32)],
    ]) as FixedSizeCodec<RequestAccount, RequestAccount>,
  );
  return cachedRequestAccountCodec;
}

/** Decodes Request account data (checks size, tag and version). */
export function decodeRequestAccount(data: ReadonlyUint8Array): RequestAccount {
  return decodeAccountWith("Request", getRequestAccountCodec(), data);
}
