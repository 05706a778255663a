import {
  type Address,
  type FixedSizeCodec,
  getStructCodec,
  getTupleCodec,
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
import { ACCOUNT_SIZE, ACCOUNT_TAG } from "../constants.ts";
import {
  NFT_TYPE_BYTE,
  NFT_TYPE_PNFT_HELD,
  type NftStandard,
  nftStandardOf,
} from "../custody/nft-standard.ts";
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
  /** The collateral's standard and so its custody (byte 6): Nft for the classic escrow (and tokens). */
  nftType: NftStandard;
  /** A programmable NFT the request PDA owns in its associated token account (nftType 4: every pNFT request); absent
   * otherwise. */
  pnftHeld?: boolean;
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
  /** CompressedNft: the asset id's and the tree config's PDA bumps (byte 256, 257); a programmable NFT: its metadata's
   * and master edition's; 0 otherwise. */
  custodyBumps: readonly [number, number];
  /** CompressedNft: the leaf's nonce (its index in the tree); 0 otherwise. */
  leafNonce: number;
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
      ["isDefi", bool8()],
      [
        "nftType",
        withReserved(
          transformCodec(
            u8(),
            (v: NftStandard): number => NFT_TYPE_BYTE[v],
            (v: number): NftStandard => nftStandardOf(v),
          ),
          1,
        ),
      ],
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
      ["loan", optionalPubkey()],
      ["custodyBumps", withReserved(getTupleCodec([u8(), u8()]), 2)],
      ["leafNonce", withReserved(u32(), 24)],
    ]) as FixedSizeCodec<RequestAccount, RequestAccount>,
  );
  return cachedRequestAccountCodec;
}

/** Decodes Request account data (checks size, tag and version). */
export function decodeRequestAccount(data: ReadonlyUint8Array): RequestAccount {
  const request = decodeAccountWith("Request", getRequestAccountCodec(), data);
  // only a held pNFT's request carries the flag (every other decodes as it always did)
  return data[6] === NFT_TYPE_PNFT_HELD ? { ...request, pnftHeld: true } : request;
}
