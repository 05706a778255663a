/**
 * Client of the local lending venue (programs/lending-venue): one reserve per mint whose share price (index,
 * 12 decimals) grows with chain time at the reserve's rate; positions hold shares. Layout in
 * programs/lending-venue/LAYOUT.md. The maths here is bit-exact with the program's.
 */
import type { Address, Instruction, ProgramDerivedAddress, ReadonlyUint8Array } from "@solana/kit";
import { addressBytes, addressFromBytes } from "../address-text.ts";
import { findProgramDerivedAddress } from "../find-pda.ts";
import {
  readonly,
  type SignerInput,
  signer,
  signerAddress,
  writable,
} from "../instructions/account-metas.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
export const LENDING_RESERVE_SIZE = 160;
export const LENDING_POSITION_SIZE = 96;
/** The index (share price) is fixed-point with 12 decimals; a reserve starts at 1. */
export const INDEX_ONE = 1_000_000_000_000n;
/** Highest rate a reserve may pay, basis points a year. */
export const MAX_RESERVE_RATE_BPS = 10_000;
const YEAR_SECONDS = 31_536_000n;

/** The venue's error codes (15100-15199), by name. */
export const LENDING_VENUE_ERRORS = {
  InvalidInstruction: 15100,
  NotEnoughAccounts: 15101,
  MissingSigner: 15102,
  NotWritable: 15103,
  InvalidOwner: 15104,
  InvalidPda: 15105,
  AlreadyInitialized: 15106,
  InvalidTokenProgram: 15107,
  InvalidSystemProgram: 15108,
  InvalidMint: 15109,
  InvalidVault: 15110,
  InvalidTokenAccount: 15111,
  InvalidRate: 15112,
  ZeroAmount: 15113,
  InsufficientShares: 15114,
  MathOverflow: 15115,
  Unauthorized: 15116,
  PositionMismatch: 15117,
} as const;

const bytesOf = addressBytes;

/** Reserve PDA ["reserve", mint]: one per mint. */
export function findLendingReservePda(
  programAddress: Address,
  mint: Address,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["reserve", bytesOf(mint)] });
}

/** Vault PDA ["vault", reserve]: the reserve's token account (its authority is the reserve). */
export function findLendingVaultPda(
  programAddress: Address,
  reserve: Address,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["vault", bytesOf(reserve)] });
}

/** Position PDA ["position", reserve, owner]. */
export function findLendingPositionPda(
  programAddress: Address,
  reserve: Address,
  owner: Address,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["position", bytesOf(reserve), bytesOf(owner)] });
}

/** A decoded reserve. */
export interface LendingReserveAccount {
  rateBps: number;
  mint: Address;
  vault: Address;
  admin: Address;
  /** Share price at `lastUpdate`, 12 decimals. */
  index: bigint;
  totalShares: bigint;
  lastUpdate: bigint;
  createdAt: bigint;
}

/** A decoded position. */
export interface LendingPositionAccount {
  reserve: Address;
  owner: Address;
  shares: bigint;
  updatedAt: bigint;
}

function view(data: ReadonlyUint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}
const keyAt = (data: ReadonlyUint8Array, offset: number) => addressFromBytes(data.slice(offset, offset + 32));

/** Decodes a reserve account (checks size, tag and version). */
export function decodeLendingReserve(data: ReadonlyUint8Array): LendingReserveAccount {
  if (data.length !== LENDING_RESERVE_SIZE || data[0] !== 1 || data[1] !== 1)
    throw new Error("not a lending venue reserve");
  const v = view(data);
  return {
    rateBps: v.getUint32(4, true),
    mint: keyAt(data, 8),
    vault: keyAt(data, 40),
    admin: keyAt(data, 72),
    index: v.getBigUint64(104, true),
    totalShares: v.getBigUint64(112, true),
    lastUpdate: v.getBigInt64(120, true),
    createdAt: v.getBigInt64(128, true),
  };
}

/** Decodes a position account (checks size, tag and version). */
export function decodeLendingPosition(data: ReadonlyUint8Array): LendingPositionAccount {
  if (data.length !== LENDING_POSITION_SIZE || data[0] !== 2 || data[1] !== 1)
    throw new Error("not a lending venue position");
  const v = view(data);
  return {
    reserve: keyAt(data, 8),
    owner: keyAt(data, 40),
    shares: v.getBigUint64(72, true),
    updatedAt: v.getBigInt64(80, true),
  };
}

/** The index at `now`: index + floor(index x rateBps x elapsed / (10000 x 31536000)), as the program accrues it. */
export function accrueLendingIndex(
  reserve: Pick<LendingReserveAccount, "index" | "rateBps" | "lastUpdate">,
  now: bigint,
): bigint {
  if (now <= reserve.lastUpdate) return reserve.index;
  const elapsed = now - reserve.lastUpdate;
  return reserve.index + (reserve.index * BigInt(reserve.rateBps) * elapsed) / (10_000n * YEAR_SECONDS);
}

/** Shares a deposit buys: floor(amount x 1e12 / index) (rounding never favours the depositor). */
export function lendingSharesForAmount(amount: bigint, index: bigint): bigint {
  return (amount * INDEX_ONE) / index;
}

/** Tokens shares are worth: floor(shares x index / 1e12). */
export function lendingAmountForShares(shares: bigint, index: bigint): bigint {
  return (shares * index) / INDEX_ONE;
}

function withOpcode(opcode: number, size: number): { data: Uint8Array; view: DataView } {
  const data = new Uint8Array(size);
  data[0] = opcode;
  return { data, view: new DataView(data.buffer) };
}

/** 0 InitializeReserve: the admin creates the reserve of `mint` and its vault, paying at `rateBps` a year. */
export async function getInitializeLendingReserveInstruction(input: {
  programAddress: Address;
  admin: SignerInput;
  mint: Address;
  rateBps: number;
}): Promise<Instruction & { reserve: Address; vault: Address }> {
  const [reserve, bump] = await findLendingReservePda(input.programAddress, input.mint);
  const [vault, vaultBump] = await findLendingVaultPda(input.programAddress, reserve);
  const { data, view: v } = withOpcode(0, 7);
  v.setUint32(1, input.rateBps, true);
  data.set([bump, vaultBump], 5);
  return {
    programAddress: input.programAddress,
    reserve,
    vault,
    accounts: [
      signer(input.admin, true),
      writable(reserve),
      readonly(input.mint),
      writable(vault),
      readonly(SYSTEM_PROGRAM),
      readonly(TOKEN_PROGRAM),
    ],
    data,
  };
}

/** 1 SetRate: the reserve's admin changes its rate (interest so far accrues at the old one). */
export function getSetLendingRateInstruction(input: {
  programAddress: Address;
  admin: SignerInput;
  reserve: Address;
  rateBps: number;
}): Instruction {
  const { data, view: v } = withOpcode(1, 5);
  v.setUint32(1, input.rateBps, true);
  return {
    programAddress: input.programAddress,
    accounts: [signer(input.admin, false), writable(input.reserve)],
    data,
  };
}

/** 2 OpenPosition: creates `owner`'s position in the reserve (the payer pays its rent; the owner signs). */
export async function getOpenLendingPositionInstruction(input: {
  programAddress: Address;
  payer: SignerInput;
  owner: SignerInput;
  reserve: Address;
}): Promise<Instruction & { position: Address }> {
  const ownerAddress = signerAddress(input.owner);
  const [position, bump] = await findLendingPositionPda(input.programAddress, input.reserve, ownerAddress);
  const { data } = withOpcode(2, 2);
  data[1] = bump;
  return {
    programAddress: input.programAddress,
    position,
    accounts: [
      signer(input.payer, true),
      signer(input.owner, false),
      readonly(input.reserve),
      writable(position),
      readonly(SYSTEM_PROGRAM),
    ],
    data,
  };
}

function moving(
  opcode: 3 | 4,
  input: {
    programAddress: Address;
    owner: SignerInput;
    reserve: Address;
    vault: Address;
    position: Address;
    tokenAccount: Address;
  },
  value: bigint,
): Instruction {
  const { data, view: v } = withOpcode(opcode, 9);
  v.setBigUint64(1, value, true);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.owner, false),
      writable(input.reserve),
      writable(input.position),
      writable(input.vault),
      writable(input.tokenAccount),
      readonly(TOKEN_PROGRAM),
    ],
    data,
  };
}

/** 3 Deposit: `amount` from the owner's token account into the reserve for shares. */
export function getLendingDepositInstruction(
  input: Parameters<typeof moving>[1] & { amount: bigint },
): Instruction {
  return moving(3, input, input.amount);
}

/** 4 Withdraw: `shares` back to the owner's token account at the current index. */
export function getLendingWithdrawInstruction(
  input: Parameters<typeof moving>[1] & { shares: bigint },
): Instruction {
  return moving(4, input, input.shares);
}
