/**
 * Client of the local swap venue (programs/swap-venue): a constant-product AMM, one pool per mint pair, its
 * layout in programs/swap-venue/LAYOUT.md. The quote maths here is bit-exact with the program's.
 */
import type { Address, Instruction, ProgramDerivedAddress, ReadonlyUint8Array } from "@solana/kit";
import { addressBytes, addressFromBytes } from "../address-text.ts";
import { findProgramDerivedAddress } from "../find-pda.ts";
import { readonly, type SignerInput, signer, writable } from "../instructions/account-metas.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
/** Size of a swap pool account, bytes. */
export const SWAP_POOL_SIZE = 144;
/** Largest fee a swap pool may charge, basis points. */
export const MAX_SWAP_FEE_BPS = 1000;

/** The venue's error codes (15000-15099), by name. */
export const SWAP_VENUE_ERRORS = {
  InvalidInstruction: 15000,
  NotEnoughAccounts: 15001,
  MissingSigner: 15002,
  NotWritable: 15003,
  InvalidOwner: 15004,
  InvalidPda: 15005,
  AlreadyInitialized: 15006,
  InvalidTokenProgram: 15007,
  InvalidSystemProgram: 15008,
  InvalidMint: 15009,
  InvalidVault: 15010,
  InvalidTokenAccount: 15011,
  InvalidFee: 15012,
  ZeroAmount: 15013,
  SlippageExceeded: 15014,
  EmptyPool: 15015,
  MathOverflow: 15016,
} as const;

const bytesOf = addressBytes;

function compareBytes(a: ReadonlyUint8Array, b: ReadonlyUint8Array): number {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** The pair's mints in pool order (byte order of the addresses). */
export function sortSwapMints(x: Address, y: Address): [Address, Address] {
  return compareBytes(bytesOf(x), bytesOf(y)) < 0 ? [x, y] : [y, x];
}

/** Pool PDA ["pool", mint a, mint b] with the mints in pool order. */
export function findSwapPoolPda(
  programAddress: Address,
  x: Address,
  y: Address,
): Promise<ProgramDerivedAddress> {
  const [a, b] = sortSwapMints(x, y);
  return findProgramDerivedAddress({ programAddress, seeds: ["pool", bytesOf(a), bytesOf(b)] });
}

/** Vault PDA ["vault", pool, mint]: the pool's token account of `mint`. */
export function findSwapVaultPda(
  programAddress: Address,
  pool: Address,
  mint: Address,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["vault", bytesOf(pool), bytesOf(mint)] });
}

/** A decoded swap pool account. */
export interface SwapPoolAccount {
  feeBps: number;
  mintA: Address;
  mintB: Address;
  vaultA: Address;
  vaultB: Address;
}

/** Decodes a swap pool account (checks size, tag and version). */
export function decodeSwapPool(data: ReadonlyUint8Array): SwapPoolAccount {
  if (data.length !== SWAP_POOL_SIZE || data[0] !== 1 || data[1] !== 1)
    throw new Error("not a swap pool account");
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const key = (offset: number) => addressFromBytes(data.slice(offset, offset + 32));
  return {
    feeBps: view.getUint16(6, true),
    mintA: key(8),
    mintB: key(40),
    vaultA: key(72),
    vaultB: key(104),
  };
}

/** The swap of `amountIn` against the reserves: what the program pays out and the fee the pool keeps. */
export interface SwapQuote {
  amountOut: bigint;
  feeAmount: bigint;
  /** How far the execution price is below the pool's spot price, basis points (rounded up). */
  priceImpactBps: number;
}

/**
 * Exact-input quote, bit-exact with the program: fee = ceil(amountIn x feeBps / 10000), amountOut =
 * floor(reserveOut x (amountIn - fee) / (reserveIn + amountIn - fee)).
 */
export function quoteSwapExactIn(
  reserveIn: bigint,
  reserveOut: bigint,
  amountIn: bigint,
  feeBps: number,
): SwapQuote {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n)
    return { amountOut: 0n, feeAmount: 0n, priceImpactBps: 0 };
  const feeAmount = (amountIn * BigInt(feeBps) + 9_999n) / 10_000n;
  const inAfterFee = amountIn - feeAmount;
  const amountOut = (reserveOut * inAfterFee) / (reserveIn + inAfterFee);
  // spot output = amountIn x reserveOut / reserveIn; impact = 1 - amountOut / spot
  const spot = amountIn * reserveOut;
  const impact = spot === 0n ? 0n : 10_000n - (amountOut * reserveIn * 10_000n) / spot;
  return { amountOut, feeAmount, priceImpactBps: Number(impact < 0n ? 0n : impact) };
}

function u64le(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, true);
  return out;
}

/** 0 InitializePool: creates the pool of the pair and its two vaults (the payer pays their rent). */
export async function getInitializeSwapPoolInstruction(input: {
  programAddress: Address;
  payer: SignerInput;
  mintX: Address;
  mintY: Address;
  feeBps: number;
}): Promise<Instruction & { pool: Address }> {
  const [mintA, mintB] = sortSwapMints(input.mintX, input.mintY);
  const [pool, bump] = await findSwapPoolPda(input.programAddress, mintA, mintB);
  const [vaultA, bumpA] = await findSwapVaultPda(input.programAddress, pool, mintA);
  const [vaultB, bumpB] = await findSwapVaultPda(input.programAddress, pool, mintB);
  const data = new Uint8Array(6);
  data[0] = 0;
  new DataView(data.buffer).setUint16(1, input.feeBps, true);
  data.set([bump, bumpA, bumpB], 3);
  return {
    programAddress: input.programAddress,
    pool,
    accounts: [
      signer(input.payer, true),
      writable(pool),
      readonly(mintA),
      readonly(mintB),
      writable(vaultA),
      writable(vaultB),
      readonly(SYSTEM_PROGRAM),
      readonly(TOKEN_PROGRAM),
    ],
    data,
  };
}

/** 1 AddLiquidity: the depositor's tokens of the pair go into the vaults (no shares: the operator seeds it). */
export async function getAddSwapLiquidityInstruction(input: {
  programAddress: Address;
  depositor: SignerInput;
  pool: SwapPoolAccount & { address: Address };
  depositorTokenA: Address;
  depositorTokenB: Address;
  amountA: bigint;
  amountB: bigint;
}): Promise<Instruction> {
  const data = new Uint8Array(17);
  data[0] = 1;
  data.set(u64le(input.amountA), 1);
  data.set(u64le(input.amountB), 9);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.depositor, false),
      writable(input.depositorTokenA),
      writable(input.depositorTokenB),
      readonly(input.pool.address),
      writable(input.pool.vaultA),
      writable(input.pool.vaultB),
      readonly(TOKEN_PROGRAM),
    ],
    data,
  };
}

/** 2 Swap: exact input from `source` (mint in) to `destination` (mint out); refused below `minAmountOut`. */
export function getSwapInstruction(input: {
  programAddress: Address;
  user: SignerInput;
  source: Address;
  destination: Address;
  pool: Address;
  vaultIn: Address;
  vaultOut: Address;
  amountIn: bigint;
  minAmountOut: bigint;
}): Instruction {
  const data = new Uint8Array(17);
  data[0] = 2;
  data.set(u64le(input.amountIn), 1);
  data.set(u64le(input.minAmountOut), 9);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.user, false),
      writable(input.source),
      writable(input.destination),
      readonly(input.pool),
      writable(input.vaultIn),
      writable(input.vaultOut),
      readonly(TOKEN_PROGRAM),
    ],
    data,
  };
}
