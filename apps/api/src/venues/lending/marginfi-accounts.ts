import { MARGINFI_BANK_STATE_OFFSET, type MarginfiBankState, marginfiBankStateOf } from "@cistern/protocol";
import { type Address, getAddressDecoder, type ReadonlyUint8Array } from "@solana/kit";

/**
 * marginfi v2's Bank and MarginfiAccount as its published IDL (0.1.7) lays them out, decoded with our own
 * code, and its interest-rate curve in exact fixed point. marginfi keeps every share value, share count and
 * rate as I80F48: a signed 128-bit little-endian integer whose value is raw / 2^48. We keep the raw bigint and
 * floor only when turning a figure into base units or basis points, so nothing rounds in the depositor's favour.
 */

/** Anchor discriminators (sha256("account:<Name>")[0..8]) of the two accounts we read. */
export const MARGINFI_BANK_DISCRIMINATOR = Uint8Array.from([142, 49, 166, 242, 50, 66, 97, 188]);
export const MARGINFI_ACCOUNT_DISCRIMINATOR = Uint8Array.from([67, 178, 130, 109, 126, 114, 28, 42]);
export const MARGINFI_BANK_SIZE = 1864;
export const MARGINFI_ACCOUNT_SIZE = 2312;
/** marginfi v2's program on mainnet-beta. */
export const MARGINFI_MAINNET_PROGRAM_ID = "MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA" as Address;

/** 1.0 in I80F48 raw units. */
export const I80F48_ONE = 1n << 48n;
const U32_MAX = 0xffff_ffffn;
const CURVE_MULTIPOINT = 1;
const BALANCE_SLOTS = 16;
const BALANCE_SIZE = 104;

/** marginfi's BankOperationalState; "unknown" for a byte a newer marginfi may write (packages/protocol's rule). */
export type MarginfiOperationalState = MarginfiBankState;

export interface MarginfiInterestRateConfig {
  optimalUtilizationRate: bigint;
  plateauInterestRate: bigint;
  maxInterestRate: bigint;
  insuranceFeeFixedApr: bigint;
  insuranceIrFee: bigint;
  protocolFixedFeeApr: bigint;
  protocolIrFee: bigint;
  /** Multipoint curve: base rate at 0% and 100% utilization, u32 out of 1000%. */
  zeroUtilRate: number;
  hundredUtilRate: number;
  /** Multipoint curve: up to five (utilization u32 out of 100%, rate u32 out of 1000%) points; util 0 = unused. */
  points: { util: number; rate: number }[];
  /** 0 legacy (optimal/plateau/max), 1 multipoint. */
  curveType: number;
}

/** A marginfi bank (one per mint in a group). Every I80F48 field is its raw bigint. */
export interface MarginfiBank {
  mint: Address;
  mintDecimals: number;
  group: Address;
  assetShareValue: bigint;
  liabilityShareValue: bigint;
  liquidityVault: Address;
  totalAssetShares: bigint;
  totalLiabilityShares: bigint;
  lastUpdate: bigint;
  depositLimit: bigint;
  borrowLimit: bigint;
  interestRate: MarginfiInterestRateConfig;
  operationalState: MarginfiOperationalState;
  /** OracleSetup (3: Pyth push oracle, whose key is the Pyth feed id) and the first oracle key. */
  oracleSetup: number;
  oracleKey: Address;
}

export interface MarginfiBalance {
  bank: Address;
  /** I80F48 raw. */
  assetShares: bigint;
  /** I80F48 raw. */
  liabilityShares: bigint;
}

/** A marginfi account: its group, authority and active balances. */
export interface MarginfiAccount {
  group: Address;
  authority: Address;
  balances: MarginfiBalance[];
}

const addressDecoder = getAddressDecoder();
const keyAt = (data: ReadonlyUint8Array, offset: number): Address =>
  addressDecoder.decode(data.subarray(offset, offset + 32));
const view = (data: ReadonlyUint8Array) => new DataView(data.buffer, data.byteOffset, data.byteLength);

/** The I80F48 at `offset`, raw (signed 128-bit little endian). */
export function i80f48At(data: ReadonlyUint8Array, offset: number): bigint {
  const v = view(data);
  const low = v.getBigUint64(offset, true);
  const high = v.getBigInt64(offset + 8, true);
  return (high << 64n) | low;
}

function checkHeader(data: ReadonlyUint8Array, discriminator: Uint8Array, size: number, what: string): void {
  if (data.length !== size || discriminator.some((byte, i) => data[i] !== byte)) {
    throw new Error(`not a marginfi ${what}`);
  }
}

export function decodeMarginfiBank(data: ReadonlyUint8Array): MarginfiBank {
  checkHeader(data, MARGINFI_BANK_DISCRIMINATOR, MARGINFI_BANK_SIZE, "bank");
  const v = view(data);
  const points: { util: number; rate: number }[] = [];
  for (let i = 0; i < 5; i++) {
    points.push({ util: v.getUint32(504 + i * 8, true), rate: v.getUint32(508 + i * 8, true) });
  }
  const state = marginfiBankStateOf(data[MARGINFI_BANK_STATE_OFFSET] ?? 0);
  return {
    mint: keyAt(data, 8),
    mintDecimals: data[40] ?? 0,
    group: keyAt(data, 41),
    assetShareValue: i80f48At(data, 80),
    liabilityShareValue: i80f48At(data, 96),
    liquidityVault: keyAt(data, 112),
    totalLiabilityShares: i80f48At(data, 256),
    totalAssetShares: i80f48At(data, 272),
    lastUpdate: v.getBigInt64(288, true),
    depositLimit: v.getBigUint64(360, true),
    borrowLimit: v.getBigUint64(776, true),
    interestRate: {
      optimalUtilizationRate: i80f48At(data, 368),
      plateauInterestRate: i80f48At(data, 384),
      maxInterestRate: i80f48At(data, 400),
      insuranceFeeFixedApr: i80f48At(data, 416),
      insuranceIrFee: i80f48At(data, 432),
      protocolFixedFeeApr: i80f48At(data, 448),
      protocolIrFee: i80f48At(data, 464),
      zeroUtilRate: v.getUint32(496, true),
      hundredUtilRate: v.getUint32(500, true),
      points,
      curveType: data[544] ?? 0,
    },
    operationalState: state,
    oracleSetup: data[609] ?? 0,
    oracleKey: keyAt(data, 610),
  };
}

export function decodeMarginfiAccount(data: ReadonlyUint8Array): MarginfiAccount {
  checkHeader(data, MARGINFI_ACCOUNT_DISCRIMINATOR, MARGINFI_ACCOUNT_SIZE, "account");
  const balances: MarginfiBalance[] = [];
  for (let i = 0; i < BALANCE_SLOTS; i++) {
    const at = 72 + i * BALANCE_SIZE;
    if (data[at] === 0) continue;
    balances.push({
      bank: keyAt(data, at + 1),
      assetShares: i80f48At(data, at + 40),
      liabilityShares: i80f48At(data, at + 56),
    });
  }
  return { group: keyAt(data, 8), authority: keyAt(data, 40), balances };
}

/** What `shares` of a bank's deposits are worth, base units, floored (as a withdrawal pays). */
export function marginfiAssetAmount(bank: MarginfiBank, shares: bigint): bigint {
  const raw = (shares * bank.assetShareValue) / I80F48_ONE;
  return raw <= 0n ? 0n : raw / I80F48_ONE;
}

/** The bank's deposits in base units (floored), as marginfi checks its deposit limit. */
export function marginfiTotalDeposits(bank: MarginfiBank): bigint {
  return marginfiAssetAmount(bank, bank.totalAssetShares);
}

/** Borrowed over deposited, I80F48 raw (0 without deposits), clamped to [0, 1]. */
export function marginfiUtilization(bank: MarginfiBank): bigint {
  const assets = bank.totalAssetShares * bank.assetShareValue;
  if (assets <= 0n) return 0n;
  const utilization = (bank.totalLiabilityShares * bank.liabilityShareValue * I80F48_ONE) / assets;
  return utilization < 0n ? 0n : utilization > I80F48_ONE ? I80F48_ONE : utilization;
}

const rateFromU32 = (rate: number): bigint => (BigInt(rate) * 10n * I80F48_ONE) / U32_MAX;
const utilFromU32 = (util: number): bigint => (BigInt(util) * I80F48_ONE) / U32_MAX;

function lerp(x0: bigint, y0: bigint, x1: bigint, y1: bigint, x: bigint): bigint {
  if (x1 <= x0 || y1 < y0) return y0;
  return y0 + ((x - x0) * (y1 - y0)) / (x1 - x0);
}

/** The curve's base rate (a yearly fraction, I80F48 raw) at `utilization`. */
export function marginfiBaseRate(config: MarginfiInterestRateConfig, utilization: bigint): bigint {
  if (config.curveType === CURVE_MULTIPOINT) {
    let prevUtil = 0n;
    let prevRate = rateFromU32(config.zeroUtilRate);
    for (const point of config.points.filter((p) => p.util !== 0)) {
      const util = utilFromU32(point.util);
      const rate = rateFromU32(point.rate);
      if (utilization <= util) return lerp(prevUtil, prevRate, util, rate, utilization);
      prevUtil = util;
      prevRate = rate;
    }
    return lerp(prevUtil, prevRate, I80F48_ONE, rateFromU32(config.hundredUtilRate), utilization);
  }
  const { optimalUtilizationRate: optimal, plateauInterestRate: plateau, maxInterestRate: max } = config;
  if (optimal <= 0n) return plateau;
  if (utilization <= optimal) return (utilization * plateau) / optimal;
  return plateau + ((utilization - optimal) * (max - plateau)) / (I80F48_ONE - optimal);
}

/** The yearly rates a bank pays its depositors and charges its borrowers now, basis points (floored). */
export function marginfiRatesBps(bank: MarginfiBank): {
  lendingRateBps: number;
  borrowingRateBps: number;
  utilizationBps: number;
} {
  const utilization = marginfiUtilization(bank);
  const base = marginfiBaseRate(bank.interestRate, utilization);
  const c = bank.interestRate;
  const lending = (base * utilization) / I80F48_ONE;
  const borrowing =
    (base * (I80F48_ONE + c.insuranceIrFee + c.protocolIrFee)) / I80F48_ONE +
    c.insuranceFeeFixedApr +
    c.protocolFixedFeeApr;
  const bps = (fraction: bigint) => Number((fraction * 10_000n) / I80F48_ONE);
  return {
    lendingRateBps: bps(lending),
    borrowingRateBps: bps(borrowing),
    utilizationBps: bps(utilization),
  };
}
