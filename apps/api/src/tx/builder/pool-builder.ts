import { randomBytes } from "node:crypto";
import {
  AUTO_SELL_LOAN_LIQUIDATION,
  AUTO_SELL_MORTGAGE_LIQUIDATION,
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

/**
 * Keys a client may send from the spec's pool form or payload for settings the lending program does not have;
 * refused by {@link assertNoIgnoredPoolSettings} unless they say what the program does anyway.
 */
export interface IgnoredSettingsInput {
  isCompoundInterestEnabled?: boolean;
  param: { isCompoundInterestEnabled?: boolean };
}

/** POST /nft|defi/create-pool body (spec "Pool creation payload"). */
export interface CreatePoolInput extends IgnoredSettingsInput {
  bank: string;
  owner: string;
  amount: bigint;
  mint: string;
  seed?: bigint;
  param: { apr: number; limits: LimitsInput; isCompoundInterestEnabled?: boolean } & CollateralInput;
}

/** Conditions of the update payload. */
export interface ConditionsInput {
  minAge: string;
  minLoan: string;
  minVolume: string;
  /** Only 0 (no threshold) is accepted: the program has no liquidation threshold. */
  liquidationThreshold?: number;
  isEnabled: number;
  isWhitelistEnabled: number;
  whitelist: string;
  whitelistAddresses?: string[];
}

/** POST /nft|defi/update-pool body (spec "Pool update payload"). */
export interface UpdatePoolInput extends IgnoredSettingsInput {
  pool: string;
  owner: string;
  status?: "Open" | "Frozen";
  enableAutoSell?: boolean;
  disableAutoSell?: boolean;
  enableMortgage?: boolean;
  disableMortgage?: boolean;
  param: {
    apr: number;
    isCompoundInterestEnabled?: boolean;
    loanApr?: number;
    mortgageApr?: number;
    limits: LimitsInput;
    conditions?: ConditionsInput;
    liquidation?: { isAutoSellEnabled: boolean; loanLiquidation?: number; mortgageLiquidation?: number };
  } & CollateralInput;
}

/** What the program does where a compounding switch would be (the one behaviour there is). */
const INTEREST_RULE =
  "the lending program has no compounding switch: a pool's share of repaid interest always goes back into its " +
  "bank's available liquidity, where it is lent again until the owner withdraws it";

/** What the program does at auto-sell, whatever a liquidation figure says. */
const AUTO_SELL_RULE =
  "the lending program has no such setting: its auto-sell has one rule (an overdue loan's collateral is sold " +
  "only when the sale brings principal and the interest owed into the bank; otherwise it goes to the pool owner)";

/**
 * Refuses, with a 400 naming the key, every setting a pool payload can carry that the lending program would store
 * or drop without ever acting on it: compounding (any value: there is no switch), a liquidation threshold other
 * than 0 (none: no borrower is refused for past liquidations), and liquidation figures other than the spec's
 * fixed values (1000 / 2000), which the spec's client always sends and which set nothing.
 */
export function assertNoIgnoredPoolSettings(
  input: IgnoredSettingsInput & { param: Partial<UpdatePoolInput["param"]> },
): void {
  if (input.isCompoundInterestEnabled !== undefined)
    throw badRequest(`isCompoundInterestEnabled is not a setting: ${INTEREST_RULE}; leave it out`);
  if (input.param.isCompoundInterestEnabled !== undefined)
    throw badRequest(`param.isCompoundInterestEnabled is not a setting: ${INTEREST_RULE}; leave it out`);
  const threshold = input.param.conditions?.liquidationThreshold;
  if (threshold !== undefined && threshold !== 0)
    throw badRequest(
      "param.conditions.liquidationThreshold must be 0: the lending program has no liquidation threshold " +
        "(no borrower is refused for past liquidations)",
    );
  const liquidation = input.param.liquidation;
  for (const [key, fixed] of [
    ["loanLiquidation", AUTO_SELL_LOAN_LIQUIDATION],
    ["mortgageLiquidation", AUTO_SELL_MORTGAGE_LIQUIDATION],
  ] as const) {
    const value = liquidation?.[key];
    if (value !== undefined && value !== fixed)
      throw badRequest(
        `param.liquidation.${key} must be ${fixed} (the spec's fixed value) or left out: ${AUTO_SELL_RULE}`,
      );
  }
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
  assertNoIgnoredPoolSettings(input);
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
  assertNoIgnoredPoolSettings(input);
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
    // the compounding bit and the liquidation threshold are read by no instruction: written as "none"
    flags: { autoSell, mortgage, compounding: false },
    loanAprBps: loanApr,
    mortgageAprBps: type === "nft-pool" && mortgage ? (input.param.mortgageApr ?? loanApr) : 0,
    ...limits(input.param.limits),
    conditions: c
      ? {
          isEnabled: c.isEnabled === 1,
          whitelistEnabled: whitelistOn,
          liquidationThresholdBps: 0,
          minAgeSeconds: integerString("param.conditions.minAge", c.minAge),
          minLoanCount: integerString("param.conditions.minLoan", c.minLoan),
          minVolumeMicroUsd: usdToMicro("param.conditions.minVolume", c.minVolume),
          whitelist: whitelistOn && newWhitelist === null ? address(c.whitelist) : null,
        }
      : { ...current.conditions, liquidationThresholdBps: 0 },
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
