import { randomBytes } from "node:crypto";
import {
  EMPTY_WHITELIST_ADDRESS,
  MIN_LOAN_DURATION_SECONDS,
  parseUnitsFloor,
  toPlainDecimalString,
} from "@cistern/protocol";
import {
  address,
  findBankPda,
  findPoolPda,
  getClosePoolInstruction,
  getCreatePoolInstruction,
  getUpdatePoolInstruction,
  type PoolAccount,
  type PoolParams,
  type PoolType,
} from "@cistern/sdk";
import type { Address, Instruction } from "@solana/kit";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { depositInstructions } from "./bank-builder.ts";
import { createWhitelistInstructions, packInOrder, parseWhitelistAddresses } from "./whitelist-builder.ts";

/** Limits of a creation/update payload: seconds and whole USD. */
export interface LimitsInput {
  minDuration: number;
  maxDuration: number;
  maxAmountUsd: number | string;
  minAmountUsd: number | string;
}

/** Collateral entries: `collections` (nft-pool) or `currencies` (defi-pool); ltv and exposure in bps. */
export interface CollateralInput {
  collections?: { collection: string; collectionLtv: number; exposure: number }[];
  currencies?: { currency: string; currencyLtv: number; exposure: number }[];
}

/** POST /nft|defi/create-pool body (spec "Pool creation payload"). */
export interface CreatePoolInput {
  bank: string;
  owner: string;
  amount: bigint;
  mint: string;
  seed?: bigint;
  param: { apr: number; limits: LimitsInput } & CollateralInput;
}

/** Conditions of the update payload. */
export interface ConditionsInput {
  minAge: string;
  minLoan: string;
  minVolume: string;
  liquidationThreshold: number;
  isEnabled: number;
  isWhitelistEnabled: number;
  whitelist: string;
  whitelistAddresses?: string[];
}

/** POST /nft|defi/update-pool body (spec "Pool update payload"). */
export interface UpdatePoolInput {
  pool: string;
  owner: string;
  status?: "Open" | "Frozen";
  enableAutoSell?: boolean;
  disableAutoSell?: boolean;
  enableMortgage?: boolean;
  disableMortgage?: boolean;
  param: {
    apr: number;
    loanApr?: number;
    mortgageApr?: number;
    limits: LimitsInput;
    conditions?: ConditionsInput;
    liquidation?: { isAutoSellEnabled: boolean; loanLiquidation?: number; mortgageLiquidation?: number };
  } & CollateralInput;
}

function usdToMicro(field: string, value: number | string): bigint {
  try {
    return parseUnitsFloor(toPlainDecimalString(value), 6);
  } catch {
    throw badRequest(`${field} must be a non-negative USD amount`);
  }
}

function integerString(field: string, text: string): bigint {
  if (!/^\d{1,20}$/.test(text)) throw badRequest(`${field} must be a non-negative integer string`);
  return BigInt(text);
}

function collateralParams(type: PoolType, input: CollateralInput): PoolParams["collections"] {
  if (type === "nft-pool") {
    if (input.currencies !== undefined)
      throw badRequest("param.currencies is for defi-pools; use param.collections");
    if (!input.collections?.length) throw badRequest("param.collections must list at least one collection");
    return input.collections.map((c) => ({
      id: address(c.collection),
      ltvBps: c.collectionLtv,
      exposureBps: c.exposure,
    }));
  }
  if (input.collections !== undefined)
    throw badRequest("param.collections is for nft-pools; use param.currencies");
  if (!input.currencies?.length) throw badRequest("param.currencies must list at least one collateral token");
  return input.currencies.map((c) => ({
    id: address(c.currency),
    ltvBps: c.currencyLtv,
    exposureBps: c.exposure,
  }));
}

function limits(input: LimitsInput) {
  if (input.minDuration !== MIN_LOAN_DURATION_SECONDS)
    throw badRequest(`param.limits.minDuration must be ${MIN_LOAN_DURATION_SECONDS} (one day)`);
  return {
    maxDurationSeconds: BigInt(input.maxDuration),
    minAmountMicroUsd: usdToMicro("param.limits.minAmountUsd", input.minAmountUsd),
    maxAmountMicroUsd: usdToMicro("param.limits.maxAmountUsd", input.maxAmountUsd),
  };
}

/** Reads a pool and checks it exists, has the route's type and belongs to `owner` (400 otherwise). */
export async function requireOwnedPool(
  tx: TxContext,
  pool: string,
  owner: string,
  type: PoolType,
): Promise<PoolAccount> {
  const account = await tx.state.getPool(pool);
  if (account === null) throw badRequest(`unknown pool ${pool}`);
  if (account.owner !== owner) throw badRequest(`${owner} is not the owner of pool ${pool}`);
  if (account.poolType !== type) throw badRequest(`pool ${pool} is a ${account.poolType}, not a ${type}`);
  return account;
}

/** CreateBank (when missing) + Deposit (when amount > 0) + CreatePool. */
export async function createPoolInstructions(
  tx: TxContext,
  type: PoolType,
  input: CreatePoolInput,
): Promise<{ pool: Address; bank: Address; seed: bigint; instructions: Instruction[] }> {
  const owner = address(input.owner);
  const mint = address(input.mint);
  const [bank] = await findBankPda(tx.programId, owner, mint);
  if (input.bank !== bank)
    throw badRequest(`bank ${input.bank} is not the bank of ${owner} for ${mint} (${bank})`);
  const seed = input.seed ?? randomBytes(8).readBigUInt64LE(0);
  const [pool] = await findPoolPda(tx.programId, owner, seed);
  const deposit = await depositInstructions(tx, owner, mint, input.amount);
  const params: PoolParams = {
    flags: { autoSell: false, mortgage: false, compounding: false },
    loanAprBps: input.param.apr,
    mortgageAprBps: 0,
    ...limits(input.param.limits),
    conditions: {
      isEnabled: false,
      whitelistEnabled: false,
      liquidationThresholdBps: 0,
      minAgeSeconds: 0n,
      minLoanCount: 0n,
      minVolumeMicroUsd: 0n,
      whitelist: null,
    },
    collections: collateralParams(type, input.param),
  };
  const create = await getCreatePoolInstruction({
    programAddress: tx.programId,
    owner,
    currencyMint: mint,
    poolType: type,
    seed,
    params,
  });
  return { pool, bank, seed, instructions: [...deposit.instructions, create] };
}

/**
 * UpdatePool with the payload's parameters; flags not mentioned keep their current value. With the whitelist
 * enabled and a non-empty `whitelistAddresses`, a new lookup table (authority and payer: the owner) is created
 * and extended with them first, and the pool's whitelist set to it: `groups` is then one transaction when
 * everything fits, else several to send in order (a bundle).
 */
export async function updatePoolInstructions(
  tx: TxContext,
  type: PoolType,
  input: UpdatePoolInput,
): Promise<{ pool: Address; instructions: Instruction[]; groups: Instruction[][]; whitelist?: Address }> {
  const current = await requireOwnedPool(tx, input.pool, input.owner, type);
  if (input.enableAutoSell && input.disableAutoSell)
    throw badRequest("enableAutoSell and disableAutoSell conflict");
  if (input.enableMortgage && input.disableMortgage)
    throw badRequest("enableMortgage and disableMortgage conflict");
  if (type === "defi-pool" && (input.enableMortgage || input.param.mortgageApr))
    throw badRequest("defi-pools have no mortgage");
  const c = input.param.conditions;
  const whitelistOn = c !== undefined && c.isWhitelistEnabled === 1;
  const newWhitelist =
    whitelistOn && c.whitelistAddresses !== undefined && c.whitelistAddresses.length > 0
      ? parseWhitelistAddresses("param.conditions.whitelistAddresses", c.whitelistAddresses)
      : null;
  if (whitelistOn && newWhitelist === null && (c.whitelist === EMPTY_WHITELIST_ADDRESS || c.whitelist === ""))
    throw badRequest(
      "param.conditions.whitelist must be a lookup table address when the whitelist is enabled",
    );
  if (whitelistOn && newWhitelist === null) {
    const [alt] = await tx.state.getAccounts([c.whitelist]);
    if (alt?.owner !== "AddressLookupTab1e1111111111111111111111111")
      throw badRequest(`param.conditions.whitelist ${c.whitelist} is not an address lookup table`);
  }
  const mortgage = input.enableMortgage ? true : input.disableMortgage ? false : current.flags.mortgage;
  const autoSell = input.enableAutoSell
    ? true
    : input.disableAutoSell
      ? false
      : (input.param.liquidation?.isAutoSellEnabled ?? current.flags.autoSell);
  const loanApr = input.param.loanApr ?? input.param.apr;
  if (input.param.loanApr !== undefined && input.param.loanApr !== input.param.apr)
    throw badRequest("param.loanApr must equal param.apr");
  const params: PoolParams = {
    flags: { autoSell, mortgage, compounding: current.flags.compounding },
    loanAprBps: loanApr,
    mortgageAprBps: type === "nft-pool" && mortgage ? (input.param.mortgageApr ?? loanApr) : 0,
    ...limits(input.param.limits),
    conditions: c
      ? {
          isEnabled: c.isEnabled === 1,
          whitelistEnabled: whitelistOn,
          liquidationThresholdBps: c.liquidationThreshold,
          minAgeSeconds: integerString("param.conditions.minAge", c.minAge),
          minLoanCount: integerString("param.conditions.minLoan", c.minLoan),
          minVolumeMicroUsd: usdToMicro("param.conditions.minVolume", c.minVolume),
          whitelist: whitelistOn && newWhitelist === null ? address(c.whitelist) : null,
        }
      : current.conditions,
    collections: collateralParams(type, input.param),
  };
  for (const entry of current.collections) {
    if (entry.ongoingLoans > 0n && !params.collections.some((p) => p.id === entry.id))
      throw unprocessable(`collection ${entry.id} has ongoing loans and cannot be removed`);
  }
  const owner = address(input.owner);
  const created = newWhitelist ? await createWhitelistInstructions(tx, owner, newWhitelist) : null;
  if (created) params.conditions = { ...params.conditions, whitelist: created.table };
  const ix = getUpdatePoolInstruction({
    programAddress: tx.programId,
    owner,
    pool: address(input.pool),
    poolType: type,
    status: input.status ?? current.status,
    params,
  });
  if (!created) return { pool: address(input.pool), instructions: [ix], groups: [[ix]] };
  const instructions = [...created.instructions, ix];
  const groups = packInOrder((ixs) => tx.factory.fits(owner, ixs), instructions);
  return { pool: address(input.pool), instructions, groups, whitelist: created.table };
}

/** ClosePool; refused (422) while the pool has ongoing loans. */
export async function closePoolInstructions(
  tx: TxContext,
  type: PoolType,
  input: { pool: string; owner: string },
): Promise<Instruction[]> {
  const current = await requireOwnedPool(tx, input.pool, input.owner, type);
  if (current.currentLoans > 0n)
    throw unprocessable(`pool ${input.pool} has ${current.currentLoans} ongoing loans and cannot be closed`);
  return [
    getClosePoolInstruction({
      programAddress: tx.programId,
      owner: address(input.owner),
      pool: address(input.pool),
    }),
  ];
}
