import {
  type Address,
  type FixedSizeCodec,
  getArrayCodec,
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
  u16,
  u32,
  u64,
  withReserved,
} from "../codecs/primitives.ts";
import { ACCOUNT_SIZE, ACCOUNT_TAG, MAX_COLLECTIONS } from "../constants.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import { decodeVersionedAccountWith, withAccountHeader } from "./account-codec.ts";

/** nft-pool: NFT collections as collateral; defi-pool: tokens as collateral. */
export type PoolType = "nft-pool" | "defi-pool";
/** Stored pool status (Closed is never stored: closing deletes the account). */
export type PoolStatus = "Open" | "Frozen";

/** Pool behaviour flags (byte 5). */
export interface PoolFlags {
  autoSell: boolean;
  /** nft-pool only. */
  mortgage: boolean;
  compounding: boolean;
}

/** Borrower conditions, checked from the oracle attestation when `isEnabled`. */
export interface PoolConditions {
  isEnabled: boolean;
  whitelistEnabled: boolean;
  /** 0..10000; stored for auto-sell, not used by take-loan. */
  liquidationThresholdBps: number;
  /** Minimum wallet age, seconds. */
  minAgeSeconds: bigint;
  /** Minimum count of past loans. */
  minLoanCount: bigint;
  /** Minimum volume, micro-USD. */
  minVolumeMicroUsd: bigint;
  /** Address Lookup Table listing allowed borrowers (null when none). */
  whitelist: Address | null;
}

/** One accepted collection (nft-pool) or collateral currency (defi-pool). */
export interface PoolCollection {
  /** nft-pool: collection id (= collection mint); defi-pool: collateral token mint. */
  id: Address;
  ltvBps: number;
  exposureBps: number;
  /** Outstanding principal against this entry, base units. */
  borrowedAmount: bigint;
  ongoingLoans: bigint;
}

/** A lending policy (PDA ["pool", owner, seed u64 LE]), 800 bytes (768 at layout v1). */
export interface PoolAccount {
  bump: number;
  poolType: PoolType;
  status: PoolStatus;
  flags: PoolFlags;
  owner: Address;
  bank: Address;
  /** = bank.mint. */
  currencyMint: Address;
  seed: bigint;
  loanAprBps: number;
  mortgageAprBps: number;
  minDurationSeconds: bigint;
  maxDurationSeconds: bigint;
  minAmountMicroUsd: bigint;
  maxAmountMicroUsd: bigint;
  conditions: PoolConditions;
  totalLoans: bigint;
  totalLiquidations: bigint;
  /** Interest paid by borrowers on repay (incl. protocol fee), base units. */
  totalInterest: bigint;
  /** Ongoing loans count. */
  currentLoans: bigint;
  totalMortgages: bigint;
  createdAt: bigint;
  updatedAt: bigint;
  lastLoanAt: bigint;
  collectionsUpdatedAt: bigint;
  lastMortgageAt: bigint;
  /** Outstanding principal of Ongoing loans, base units. */
  borrowedAmount: bigint;
  /** 1..8 entries. */
  collections: PoolCollection[];
  /** When Migrate brought the pool from layout v1 (unix seconds); 0 for a pool created at layout v2. */
  migratedAt: bigint;
  /** Layout the account is at (1 until Migrate after the 1.8 upgrade); set by the decoder. */
  layoutVersion?: number;
}

/** Codec of the flags byte. */
export function getPoolFlagsCodec(): FixedSizeCodec<PoolFlags, PoolFlags, 1> {
  return transformCodec(
    u8(),
    (flags: PoolFlags) => (flags.autoSell ? 1 : 0) | (flags.mortgage ? 2 : 0) | (flags.compounding ? 4 : 0),
    (byte: number) => ({
      autoSell: (byte & 1) !== 0,
      mortgage: (byte & 2) !== 0,
      compounding: (byte & 4) !== 0,
    }),
  );
}

/** Codec of the 56-byte stored collection entry. */
export function getPoolCollectionCodec(): FixedSizeCodec<PoolCollection, PoolCollection> {
  return getStructCodec([
    ["id", pubkey()],
    ["ltvBps", u16()],
    ["exposureBps", withReserved(u16(), 4)],
    ["borrowedAmount", u64()],
    ["ongoingLoans", u64()],
  ]) as FixedSizeCodec<PoolCollection, PoolCollection>;
}

/** Codec of the 64-byte stored conditions block (offsets 152..216). */
export function getPoolConditionsCodec(): FixedSizeCodec<PoolConditions, PoolConditions> {
  return getStructCodec([
    ["isEnabled", bool8()],
    ["whitelistEnabled", bool8()],
    ["liquidationThresholdBps", withReserved(u16(), 4)],
    ["minAgeSeconds", u64()],
    ["minLoanCount", u64()],
    ["minVolumeMicroUsd", u64()],
    ["whitelist", optionalPubkey()],
  ]) as FixedSizeCodec<PoolConditions, PoolConditions>;
}

const EMPTY_COLLECTION: PoolCollection = {
  id: "11111111111111111111111111111111" as Address,
  ltvBps: 0,
  exposureBps: 0,
  borrowedAmount: 0n,
  ongoingLoans: 0n,
};

type RawPool = Omit<PoolAccount, "collections"> & { collectionCount: number; collections: PoolCollection[] };

/** Codec of the whole Pool account (header included). */
let cachedPoolAccountCodec: FixedSizeCodec<PoolAccount, PoolAccount> | undefined;

export function getPoolAccountCodec(): FixedSizeCodec<PoolAccount, PoolAccount> {
  cachedPoolAccountCodec ??= buildPoolAccountCodec();
  return cachedPoolAccountCodec;
}

function buildPoolAccountCodec(): FixedSizeCodec<PoolAccount, PoolAccount> {
  const raw = getStructCodec([
    ["bump", u8()],
    ["poolType", u8Enum({ 0: "nft-pool", 1: "defi-pool" })],
    ["status", u8Enum({ 1: "Open", 2: "Frozen" })],
    ["flags", getPoolFlagsCodec()],
    ["collectionCount", withReserved(u8(), 1)],
    ["owner", pubkey()],
    ["bank", pubkey()],
    ["currencyMint", pubkey()],
    ["seed", u64()],
    ["loanAprBps", u32()],
    ["mortgageAprBps", u32()],
    ["minDurationSeconds", u64()],
    ["maxDurationSeconds", u64()],
    ["minAmountMicroUsd", u64()],
    ["maxAmountMicroUsd", u64()],
    ["conditions", getPoolConditionsCodec()],
    ["totalLoans", u64()],
    ["totalLiquidations", u64()],
    ["totalInterest", u64()],
    ["currentLoans", u64()],
    ["totalMortgages", u64()],
    ["createdAt", i64()],
    ["updatedAt", i64()],
    ["lastLoanAt", i64()],
    ["collectionsUpdatedAt", i64()],
    ["lastMortgageAt", i64()],
    ["borrowedAmount", withReserved(u64(), 16)],
    ["collections", getArrayCodec(getPoolCollectionCodec(), { size: MAX_COLLECTIONS })],
    ["migratedAt", withReserved(i64(), 24)],
  ]) as FixedSizeCodec<RawPool, RawPool>;
  return withAccountHeader(
    "Pool",
    transformCodec(
      raw,
      (pool: PoolAccount): RawPool => {
        if (pool.collections.length > MAX_COLLECTIONS) {
          throw new SdkError(
            SDK_ERROR.INVALID_ARGUMENT,
            `a pool holds at most ${MAX_COLLECTIONS} collections`,
          );
        }
        const collections = [...pool.collections];
        while (collections.length < MAX_COLLECTIONS) collections.push(EMPTY_COLLECTION);
        return { ...pool, collectionCount: pool.collections.length, collections };
      },
      (rawPool: RawPool): PoolAccount => {
        const { collectionCount, ...rest } = rawPool;
        return {
          ...rest,
          collections: rawPool.collections.slice(0, Math.min(collectionCount, MAX_COLLECTIONS)),
        };
      },
    ),
  );
}

/** Decodes Pool account data (checks size, tag and version). */
export function decodePoolAccount(data: ReadonlyUint8Array): PoolAccount {
  return decodeVersionedAccountWith("Pool", getPoolAccountCodec(), data);
}

/** Encodes a Pool account to its 800 bytes (current layout). */
export function encodePoolAccount(account: PoolAccount): ReadonlyUint8Array {
  return getPoolAccountCodec().encode(account);
}
