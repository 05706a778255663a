import {
  type Address,
  type Codec,
  getArrayCodec,
  getStructCodec,
  getU8Codec,
  type Instruction,
} from "@solana/kit";
import { getPoolFlagsCodec, type PoolFlags, type PoolStatus, type PoolType } from "../accounts/pool.ts";
import { bool8, optionalPubkey, pubkey, u8, u8Enum, u16, u32, u64 } from "../codecs/primitives.ts";
import {
  INSTRUCTION_TAG,
  MAX_APR_BPS,
  MAX_COLLECTIONS,
  MAX_POOL_DURATION_SECONDS,
  MIN_DURATION_SECONDS,
} from "../constants.ts";
import { SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import { findBankPda, findPoolPda } from "../pda.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import { readonly, type SignerInput, signer, signerAddress, writable } from "./account-metas.ts";

/** A pool entry as set by CreatePool / UpdatePool. */
export interface PoolCollectionParams {
  /** nft-pool: collection id (collection mint); defi-pool: collateral token mint. */
  id: Address;
  /** 1..10000. */
  ltvBps: number;
  /** 1..10000: share of the bank's total liquidity this entry may borrow. */
  exposureBps: number;
}

/** Pool parameters shared by CreatePool and UpdatePool (94 + 36 n bytes). */
export interface PoolParams {
  flags: PoolFlags;
  loanAprBps: number;
  /** Must be 0 for defi-pools. */
  mortgageAprBps: number;
  maxDurationSeconds: bigint;
  minAmountMicroUsd: bigint;
  maxAmountMicroUsd: bigint;
  conditions: {
    isEnabled: boolean;
    whitelistEnabled: boolean;
    liquidationThresholdBps: number;
    minAgeSeconds: bigint;
    minLoanCount: bigint;
    minVolumeMicroUsd: bigint;
    /** Address Lookup Table of allowed borrowers; required when whitelistEnabled. */
    whitelist: Address | null;
  };
  /** 1..8 entries with unique ids. */
  collections: PoolCollectionParams[];
}

/** Codec of PoolParams (94 + 36 n bytes; collection count as a u8 prefix). */
export function getPoolParamsCodec(): Codec<PoolParams, PoolParams> {
  return getStructCodec([
    ["flags", getPoolFlagsCodec()],
    ["loanAprBps", u32()],
    ["mortgageAprBps", u32()],
    ["maxDurationSeconds", u64()],
    ["minAmountMicroUsd", u64()],
    ["maxAmountMicroUsd", u64()],
    [
      "conditions",
      getStructCodec([
        ["isEnabled", bool8()],
        ["whitelistEnabled", bool8()],
        ["liquidationThresholdBps", u16()],
        ["minAgeSeconds", u64()],
        ["minLoanCount", u64()],
        ["minVolumeMicroUsd", u64()],
        ["whitelist", optionalPubkey()],
      ]),
    ],
    [
      "collections",
      getArrayCodec(
        getStructCodec([
          ["id", pubkey()],
          ["ltvBps", u16()],
          ["exposureBps", u16()],
        ]),
        { size: getU8Codec() },
      ),
    ],
  ]) as unknown as Codec<PoolParams, PoolParams>;
}

const bpsInRange = (value: number, min: number) => Number.isInteger(value) && value >= min && value <= 10_000;

/**
 * Checks pool parameters against the program's limits so a bad pool fails before it is sent.
 * Throws an {@link SdkError} (INVALID_ARGUMENT) naming the first bad field.
 */
export function assertValidPoolParams(poolType: PoolType, params: PoolParams): void {
  const fail = (message: string): never => {
    throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, `invalid pool params: ${message}`);
  };
  if (!Number.isInteger(params.loanAprBps) || params.loanAprBps < 1 || params.loanAprBps > MAX_APR_BPS)
    fail(`loanAprBps must be 1..${MAX_APR_BPS}`);
  if (
    !Number.isInteger(params.mortgageAprBps) ||
    params.mortgageAprBps < 0 ||
    params.mortgageAprBps > MAX_APR_BPS
  )
    fail(`mortgageAprBps must be 0..${MAX_APR_BPS}`);
  if (poolType === "defi-pool" && (params.mortgageAprBps !== 0 || params.flags.mortgage))
    fail("defi-pools have no mortgage");
  if (
    params.maxDurationSeconds < MIN_DURATION_SECONDS ||
    params.maxDurationSeconds > MAX_POOL_DURATION_SECONDS
  )
    fail(`maxDurationSeconds must be ${MIN_DURATION_SECONDS}..${MAX_POOL_DURATION_SECONDS}`);
  if (
    params.maxAmountMicroUsd <= 0n ||
    params.minAmountMicroUsd < 0n ||
    params.maxAmountMicroUsd < params.minAmountMicroUsd
  )
    fail("need 0 <= minAmountMicroUsd <= maxAmountMicroUsd and maxAmountMicroUsd > 0");
  if (!bpsInRange(params.conditions.liquidationThresholdBps, 0))
    fail("liquidationThresholdBps must be 0..10000");
  if (params.conditions.whitelistEnabled && params.conditions.whitelist === null)
    fail("whitelist address required when whitelistEnabled");
  const n = params.collections.length;
  if (n < 1 || n > MAX_COLLECTIONS) fail(`1..${MAX_COLLECTIONS} collections required`);
  if (new Set(params.collections.map((c) => c.id)).size !== n) fail("collection ids must be unique");
  for (const c of params.collections) {
    if (!bpsInRange(c.ltvBps, 1)) fail(`ltvBps of ${c.id} must be 1..10000`);
    if (!bpsInRange(c.exposureBps, 1)) fail(`exposureBps of ${c.id} must be 1..10000`);
  }
}

/** Decoded CreatePool data. */
export interface CreatePoolData {
  tag: number;
  poolBump: number;
  poolType: PoolType;
  seed: bigint;
  params: PoolParams;
}

/** Codec of CreatePool data (105 + 36 n bytes). */
export function getCreatePoolDataCodec(): Codec<CreatePoolData, CreatePoolData> {
  return getStructCodec([
    ["tag", u8()],
    ["poolBump", u8()],
    ["poolType", u8Enum({ 0: "nft-pool", 1: "defi-pool" })],
    ["seed", u64()],
    ["params", getPoolParamsCodec()],
  ]) as unknown as Codec<CreatePoolData, CreatePoolData>;
}

/**
 * CreatePool (tag 5): publishes a pool drawing on the owner's bank for `currencyMint`.
 * @param input.seed - any u64 making the pool PDA ["pool", owner, seed] new
 */
export async function getCreatePoolInstruction(input: {
  programAddress: Address;
  owner: SignerInput;
  currencyMint: Address;
  poolType: PoolType;
  seed: bigint;
  params: PoolParams;
}): Promise<Instruction> {
  assertValidPoolParams(input.poolType, input.params);
  const owner = signerAddress(input.owner);
  const [pool, poolBump] = await findPoolPda(input.programAddress, owner, input.seed);
  const [bank] = await findBankPda(input.programAddress, owner, input.currencyMint);
  return {
    programAddress: input.programAddress,
    accounts: [signer(input.owner, true), writable(pool), readonly(bank), readonly(SYSTEM_PROGRAM_ADDRESS)],
    data: getCreatePoolDataCodec().encode({
      tag: INSTRUCTION_TAG.CreatePool,
      poolBump,
      poolType: input.poolType,
      seed: input.seed,
      params: input.params,
    }),
  };
}

/** Decoded UpdatePool data. */
export interface UpdatePoolData {
  tag: number;
  status: PoolStatus;
  params: PoolParams;
}

/** Codec of UpdatePool data (96 + 36 n bytes). */
export function getUpdatePoolDataCodec(): Codec<UpdatePoolData, UpdatePoolData> {
  return getStructCodec([
    ["tag", u8()],
    ["status", u8Enum({ 1: "Open", 2: "Frozen" })],
    ["params", getPoolParamsCodec()],
  ]) as unknown as Codec<UpdatePoolData, UpdatePoolData>;
}

/**
 * UpdatePool (tag 6, pool owner only): sets status and replaces the parameters and collection list
 * (an entry whose id stays keeps its counters).
 * @param input.poolType - the pool's type, for client-side validation of the params
 */
export function getUpdatePoolInstruction(input: {
  programAddress: Address;
  owner: SignerInput;
  pool: Address;
  poolType: PoolType;
  status: PoolStatus;
  params: PoolParams;
}): Instruction {
  assertValidPoolParams(input.poolType, input.params);
  return {
    programAddress: input.programAddress,
    accounts: [signer(input.owner, false), writable(input.pool)],
    data: getUpdatePoolDataCodec().encode({
      tag: INSTRUCTION_TAG.UpdatePool,
      status: input.status,
      params: input.params,
    }),
  };
}

/** ClosePool (tag 7, pool owner only, no ongoing loans): deletes the pool; its rent goes to the owner. */
export function getClosePoolInstruction(input: {
  programAddress: Address;
  owner: SignerInput;
  pool: Address;
}): Instruction {
  return {
    programAddress: input.programAddress,
    accounts: [signer(input.owner, true), writable(input.pool)],
    data: new Uint8Array([INSTRUCTION_TAG.ClosePool]),
  };
}
