import type { Address, Instruction } from "@solana/kit";
import {
  closeTokenAccount,
  createAssociatedTokenIdempotent,
  findAssociatedTokenAddress,
  NATIVE_MINT,
  syncNative,
  systemTransfer,
} from "./wire-instructions.ts";

/** Instructions around a program call that moves `mint` tokens from or to `owner`'s associated account. */
export interface CurrencyFlow {
  /** The owner's associated token account of the mint. */
  tokenAccount: Address;
  /** Before the call: create the ATA (idempotent); for SOL, wrap `wrapLamports` into it. */
  before: Instruction[];
  /** After the call: for SOL, close the ATA so every wrapped lamport returns to the owner. */
  after: Instruction[];
}

/**
 * ATA creation and SOL wrapping for `owner` and `mint`: non-SOL mints just get the ATA created
 * idempotently; SOL gets `wrapLamports` transferred and synced before, and the account closed after.
 */
export async function currencyFlow(owner: Address, mint: Address, wrapLamports = 0n): Promise<CurrencyFlow> {
  const tokenAccount = await findAssociatedTokenAddress(owner, mint);
  const before = [createAssociatedTokenIdempotent(owner, tokenAccount, owner, mint)];
  if (mint !== NATIVE_MINT) return { tokenAccount, before, after: [] };
  if (wrapLamports > 0n)
    before.push(systemTransfer(owner, tokenAccount, wrapLamports), syncNative(tokenAccount));
  return { tokenAccount, before, after: [closeTokenAccount(tokenAccount, owner, owner)] };
}
