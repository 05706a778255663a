import { decodeAddress, encodeBase58 } from "./base58.ts";
import { findProgramAddressSync } from "./pda.ts";

/** SPL Token program. */
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
/** SPL Token-2022 program. */
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
/** Associated Token Account program. */
export const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
/** Wrapped SOL mint. */
export const NATIVE_MINT = "So11111111111111111111111111111111111111112";
/** Bytes of a mint without extensions. */
export const MINT_SIZE = 82;
/** Bytes of a token account without extensions. */
export const TOKEN_ACCOUNT_SIZE = 165;

/** Decoded SPL mint. */
export interface MintState {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

/** Decoded SPL token account. */
export interface TokenAccountState {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: "uninitialized" | "initialized" | "frozen";
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

const view = (d: Uint8Array) => new DataView(d.buffer, d.byteOffset, d.byteLength);
const optKey = (d: Uint8Array, at: number) =>
  view(d).getUint32(at, true) === 1 ? encodeBase58(d.subarray(at + 4, at + 36)) : null;

/** Whether `data` (owned by a token program) is a mint. */
export function isMintData(data: Uint8Array, program: string): boolean {
  if (data.length === MINT_SIZE) return true;
  return program === TOKEN_2022_PROGRAM && data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === 1;
}

/** Whether `data` (owned by a token program) is a token account. */
export function isTokenAccountData(data: Uint8Array, program: string): boolean {
  if (data.length === TOKEN_ACCOUNT_SIZE) return true;
  return program === TOKEN_2022_PROGRAM && data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === 2;
}

/** Decodes a mint (first 82 bytes). */
export function decodeMint(d: Uint8Array): MintState {
  const v = view(d);
  return {
    mintAuthority: optKey(d, 0),
    supply: v.getBigUint64(36, true),
    decimals: d[44]!,
    isInitialized: d[45] === 1,
    freezeAuthority: optKey(d, 46),
  };
}

/** Decodes a token account (first 165 bytes). */
export function decodeTokenAccount(d: Uint8Array): TokenAccountState {
  const v = view(d);
  const stateByte = d[108];
  return {
    mint: encodeBase58(d.subarray(0, 32)),
    owner: encodeBase58(d.subarray(32, 64)),
    amount: v.getBigUint64(64, true),
    delegate: optKey(d, 72),
    state: stateByte === 1 ? "initialized" : stateByte === 2 ? "frozen" : "uninitialized",
    isNative: v.getUint32(109, true) === 1 ? v.getBigUint64(113, true) : null,
    delegatedAmount: v.getBigUint64(121, true),
    closeAuthority: optKey(d, 129),
  };
}

function putOptKey(d: Uint8Array, at: number, key: Uint8Array | null): void {
  view(d).setUint32(at, key ? 1 : 0, true);
  if (key) d.set(key, at + 4);
}

/** Encodes an initialized classic SPL mint (82 bytes). */
export function encodeMint(m: {
  mintAuthority: Uint8Array | null;
  supply: bigint;
  decimals: number;
  freezeAuthority: Uint8Array | null;
}): Uint8Array {
  const d = new Uint8Array(MINT_SIZE);
  putOptKey(d, 0, m.mintAuthority);
  view(d).setBigUint64(36, m.supply, true);
  d[44] = m.decimals;
  d[45] = 1;
  putOptKey(d, 46, m.freezeAuthority);
  return d;
}

/** Encodes an initialized classic SPL token account (165 bytes). */
export function encodeTokenAccount(a: {
  mint: Uint8Array;
  owner: Uint8Array;
  amount: bigint;
  isNativeRentReserve: bigint | null;
}): Uint8Array {
  const d = new Uint8Array(TOKEN_ACCOUNT_SIZE);
  d.set(a.mint, 0);
  d.set(a.owner, 32);
  const v = view(d);
  v.setBigUint64(64, a.amount, true);
  d[108] = 1;
  if (a.isNativeRentReserve !== null) {
    v.setUint32(109, 1, true);
    v.setBigUint64(113, a.isNativeRentReserve, true);
  }
  return d;
}

/** Formats base units as the exact decimal string agave calls uiAmountString. */
export function formatUiAmount(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, "0");
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole;
}

/** agave's UiTokenAmount. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const uiAmountString = formatUiAmount(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/** The associated token account of (owner, mint) under a token program. */
export function getAssociatedTokenAddress(owner: string, mint: string, tokenProgram = TOKEN_PROGRAM): string {
  return findProgramAddressSync(
    [decodeAddress(owner), decodeAddress(tokenProgram), decodeAddress(mint)],
    ASSOCIATED_TOKEN_PROGRAM,
  )[0];
}
