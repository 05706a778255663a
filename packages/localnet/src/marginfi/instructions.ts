import { createHash } from "node:crypto";
import { AccountRole, type Address, type Instruction } from "@solana/kit";
import { decodeAddress } from "../base58.ts";
import { TOKEN_PROGRAM_ADDRESS } from "../demo-world.ts";
import { findProgramAddressSync } from "../pda.ts";
import { MARGINFI_PROGRAM } from "../vendored-programs.ts";
import { getMarginfiFeeStateAddress, MARGINFI_FEE_WALLET } from "./fee-state.ts";

/**
 * marginfi v2 instructions (mrgn-0.1.1, the early-2025 build vendored in programs/marginfi.so), encoded by hand:
 * Anchor discriminator sha256("global:<name>")[..8], then the Borsh arguments; accounts in the order of each
 * instruction's `#[derive(Accounts)]` struct, then its remaining accounts.
 */

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
const RENT_SYSVAR = "SysvarRent111111111111111111111111111111111" as Address;
const { READONLY, WRITABLE, READONLY_SIGNER, WRITABLE_SIGNER } = AccountRole;
type Meta = { address: Address; role: AccountRole };

/** 1.0 as I80F48 (raw / 2^48). */
export const I80F48_ONE = 1n << 48n;

export function marginfiDiscriminator(name: string): Uint8Array {
  return Uint8Array.from(createHash("sha256").update(`global:${name}`).digest().subarray(0, 8));
}

/** `numerator / denominator` as I80F48 raw (floored). */
export function i80f48(numerator: bigint, denominator = 1n): bigint {
  return (numerator * I80F48_ONE) / denominator;
}

class Writer {
  private parts: number[] = [];
  bytes(b: Uint8Array): this {
    this.parts.push(...b);
    return this;
  }
  u8(v: number): this {
    this.parts.push(v & 0xff);
    return this;
  }
  u16(v: number): this {
    return this.u8(v).u8(v >> 8);
  }
  u64(v: bigint): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, v, true);
    return this.bytes(b);
  }
  i80f48(raw: bigint): this {
    const b = new Uint8Array(16);
    const v = new DataView(b.buffer);
    v.setBigUint64(0, BigInt.asUintN(64, raw), true);
    v.setBigInt64(8, BigInt.asIntN(64, raw >> 64n), true);
    return this.bytes(b);
  }
  key(a: string): this {
    return this.bytes(decodeAddress(a));
  }
  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

const ix = (
  accounts: Meta[],
  data: Uint8Array,
  programAddress = MARGINFI_PROGRAM as Address,
): Instruction => ({
  programAddress,
  accounts,
  data,
});
const a = (address: string, role: AccountRole): Meta => ({ address: address as Address, role });

/** marginfi's vault PDAs of a bank (seed = "liquidity_vault", "liquidity_vault_auth", ...; then the bank). */
export function marginfiBankVaults(bank: string) {
  const pda = (seed: string) =>
    findProgramAddressSync([new TextEncoder().encode(seed), decodeAddress(bank)], MARGINFI_PROGRAM)[0];
  return {
    liquidityVault: pda("liquidity_vault"),
    liquidityVaultAuthority: pda("liquidity_vault_auth"),
    insuranceVault: pda("insurance_vault"),
    insuranceVaultAuthority: pda("insurance_vault_auth"),
    feeVault: pda("fee_vault"),
    feeVaultAuthority: pda("fee_vault_auth"),
  };
}

/** marginfi_group_initialize(is_arena_group = false): accounts group (s, w), admin (s, w), fee state, system. */
export function marginfiGroupInitialize(input: { group: string; admin: string }): Instruction {
  return ix(
    [
      a(input.group, WRITABLE_SIGNER),
      a(input.admin, WRITABLE_SIGNER),
      a(getMarginfiFeeStateAddress()[0], READONLY),
      a(SYSTEM_PROGRAM, READONLY),
    ],
    new Writer().bytes(marginfiDiscriminator("marginfi_group_initialize")).u8(0).done(),
  );
}

/** A bank's interest-rate curve and fees (InterestRateConfigCompact), every figure an I80F48 raw. */
export interface MarginfiInterestRate {
  optimalUtilizationRate: bigint;
  plateauInterestRate: bigint;
  maxInterestRate: bigint;
  insuranceFeeFixedApr: bigint;
  insuranceIrFee: bigint;
  protocolFixedFeeApr: bigint;
  protocolIrFee: bigint;
  protocolOriginationFee: bigint;
}

/** BankConfigCompact. Operational state: 0 paused, 1 operational, 2 reduce-only. Risk tier 0 collateral. */
export interface MarginfiBankConfig {
  assetWeightInit: bigint;
  assetWeightMaint: bigint;
  liabilityWeightInit: bigint;
  liabilityWeightMaint: bigint;
  /** Base units; u64::MAX = no limit. */
  depositLimit: bigint;
  interestRate: MarginfiInterestRate;
  operationalState: number;
  borrowLimit: bigint;
  riskTier: number;
  /** 0 default, 1 SOL. */
  assetTag: number;
  /** USD; 0 = inactive. */
  totalAssetValueInitLimit: bigint;
  /** Seconds a price stays usable (>= 30). */
  oracleMaxAge: number;
}

function encodeBankConfig(w: Writer, c: MarginfiBankConfig): Writer {
  const r = c.interestRate;
  w.i80f48(c.assetWeightInit)
    .i80f48(c.assetWeightMaint)
    .i80f48(c.liabilityWeightInit)
    .i80f48(c.liabilityWeightMaint);
  w.u64(c.depositLimit);
  for (const v of [
    r.optimalUtilizationRate,
    r.plateauInterestRate,
    r.maxInterestRate,
    r.insuranceFeeFixedApr,
    r.insuranceIrFee,
    r.protocolFixedFeeApr,
    r.protocolIrFee,
    r.protocolOriginationFee,
  ])
    w.i80f48(v);
  w.u8(c.operationalState).u64(c.borrowLimit).u8(c.riskTier).u8(c.assetTag);
  w.bytes(new Uint8Array(6)).u64(c.totalAssetValueInitLimit).u16(c.oracleMaxAge);
  return w;
}

/**
 * lending_pool_add_bank: group, admin (s, w), fee payer (s, w), fee state, global fee wallet (w), mint, bank
 * (s, w; new keypair), then the liquidity / insurance / fee vault authority and vault PDAs, rent, token, system.
 */
export function marginfiAddBank(input: {
  group: string;
  admin: string;
  mint: string;
  bank: string;
  config: MarginfiBankConfig;
}): Instruction {
  const v = marginfiBankVaults(input.bank);
  return ix(
    [
      a(input.group, READONLY),
      a(input.admin, WRITABLE_SIGNER),
      a(input.admin, WRITABLE_SIGNER),
      a(getMarginfiFeeStateAddress()[0], READONLY),
      a(MARGINFI_FEE_WALLET, WRITABLE),
      a(input.mint, READONLY),
      a(input.bank, WRITABLE_SIGNER),
      a(v.liquidityVaultAuthority, READONLY),
      a(v.liquidityVault, WRITABLE),
      a(v.insuranceVaultAuthority, READONLY),
      a(v.insuranceVault, WRITABLE),
      a(v.feeVaultAuthority, READONLY),
      a(v.feeVault, WRITABLE),
      a(RENT_SYSVAR, READONLY),
      a(TOKEN_PROGRAM_ADDRESS, READONLY),
      a(SYSTEM_PROGRAM, READONLY),
    ],
    encodeBankConfig(new Writer().bytes(marginfiDiscriminator("lending_pool_add_bank")), input.config).done(),
  );
}

/** OracleSetup::PythPushOracle. */
export const ORACLE_SETUP_PYTH_PUSH = 3;

/**
 * lending_pool_configure_bank_oracle(setup, oracle key): group, admin (s), bank (w); remaining: the oracle
 * account marginfi validates (for a Pyth push oracle the key is the feed id and the account a PriceUpdateV2 of it).
 */
export function marginfiConfigureBankOracle(input: {
  group: string;
  admin: string;
  bank: string;
  setup: number;
  oracleKey: Uint8Array;
  oracleAccount: string;
}): Instruction {
  return ix(
    [
      a(input.group, READONLY),
      a(input.admin, READONLY_SIGNER),
      a(input.bank, WRITABLE),
      a(input.oracleAccount, READONLY),
    ],
    new Writer()
      .bytes(marginfiDiscriminator("lending_pool_configure_bank_oracle"))
      .u8(input.setup)
      .bytes(input.oracleKey)
      .done(),
  );
}

/**
 * lending_pool_configure_bank with only the operational state and / or the deposit limit set (BankConfigOpt,
 * every other field None): group, admin (s), bank (w).
 */
export function marginfiConfigureBank(input: {
  group: string;
  admin: string;
  bank: string;
  operationalState?: number;
  depositLimit?: bigint;
}): Instruction {
  const w = new Writer().bytes(marginfiDiscriminator("lending_pool_configure_bank"));
  w.u8(0).u8(0).u8(0).u8(0); // weights
  if (input.depositLimit === undefined) w.u8(0);
  else w.u8(1).u64(input.depositLimit);
  w.u8(0); // borrow limit
  if (input.operationalState === undefined) w.u8(0);
  else w.u8(1).u8(input.operationalState);
  // interest rate config, risk tier, asset tag, total asset value init limit, oracle max age,
  // permissionless bad debt settlement, freeze settings
  w.u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u8(0);
  return ix([a(input.group, READONLY), a(input.admin, READONLY_SIGNER), a(input.bank, WRITABLE)], w.done());
}

/** marginfi_account_initialize: group, account (s, w; new), authority (s), fee payer (s, w), system. */
export function marginfiAccountInitialize(input: {
  group: string;
  account: string;
  authority: string;
  feePayer: string;
}): Instruction {
  return ix(
    [
      a(input.group, READONLY),
      a(input.account, WRITABLE_SIGNER),
      a(input.authority, READONLY_SIGNER),
      a(input.feePayer, WRITABLE_SIGNER),
      a(SYSTEM_PROGRAM, READONLY),
    ],
    marginfiDiscriminator("marginfi_account_initialize"),
  );
}

/** lending_account_deposit(amount): group, account (w), authority (s), bank (w), source (w), liquidity vault (w), token. */
export function marginfiDeposit(input: {
  group: string;
  account: string;
  authority: string;
  bank: string;
  source: string;
  amount: bigint;
}): Instruction {
  return ix(
    [
      a(input.group, READONLY),
      a(input.account, WRITABLE),
      a(input.authority, READONLY_SIGNER),
      a(input.bank, WRITABLE),
      a(input.source, WRITABLE),
      a(marginfiBankVaults(input.bank).liquidityVault, WRITABLE),
      a(TOKEN_PROGRAM_ADDRESS, READONLY),
    ],
    new Writer().bytes(marginfiDiscriminator("lending_account_deposit")).u64(input.amount).done(),
  );
}

/** The risk engine's remaining accounts: (bank, its oracle account) for every balance the account keeps open. */
export type MarginfiHealthAccounts = { bank: string; oracle: string }[];

function outflow(
  name: "lending_account_withdraw" | "lending_account_borrow",
  input: {
    group: string;
    account: string;
    authority: string;
    bank: string;
    destination: string;
    health: MarginfiHealthAccounts;
  },
  args: Uint8Array,
): Instruction {
  const v = marginfiBankVaults(input.bank);
  return ix(
    [
      a(input.group, READONLY),
      a(input.account, WRITABLE),
      a(input.authority, READONLY_SIGNER),
      a(input.bank, WRITABLE),
      a(input.destination, WRITABLE),
      a(v.liquidityVaultAuthority, WRITABLE),
      a(v.liquidityVault, WRITABLE),
      a(TOKEN_PROGRAM_ADDRESS, READONLY),
      ...input.health.flatMap((h) => [a(h.bank, READONLY), a(h.oracle, READONLY)]),
    ],
    Uint8Array.from([...marginfiDiscriminator(name), ...args]),
  );
}

/**
 * lending_account_withdraw(amount, withdraw_all): group, account (w), authority (s), bank (w), destination (w),
 * liquidity vault authority (w), liquidity vault (w), token; remaining: the health accounts of the balances left.
 */
export function marginfiWithdraw(input: {
  group: string;
  account: string;
  authority: string;
  bank: string;
  destination: string;
  amount: bigint;
  withdrawAll?: boolean;
  health: MarginfiHealthAccounts;
}): Instruction {
  const w = new Writer().u64(input.amount);
  if (input.withdrawAll === undefined) w.u8(0);
  else w.u8(1).u8(input.withdrawAll ? 1 : 0);
  return outflow("lending_account_withdraw", input, w.done());
}

/** lending_account_borrow(amount): accounts as withdraw; remaining: the health accounts, the borrowed bank's too. */
export function marginfiBorrow(input: {
  group: string;
  account: string;
  authority: string;
  bank: string;
  destination: string;
  amount: bigint;
  health: MarginfiHealthAccounts;
}): Instruction {
  return outflow("lending_account_borrow", input, new Writer().u64(input.amount).done());
}

/** marginfi's error codes this project names (6000 + the MarginfiError variant's index). */
export const MARGINFI_ERROR = {
  BankAssetCapacityExceeded: 6003,
  InvalidOracleAccount: 6007,
  RiskEngineInitRejected: 6010,
  StaleOracle: 6017,
  BankPaused: 6018,
  BankReduceOnly: 6019,
  IllegalUtilizationRatio: 6028,
} as const;
