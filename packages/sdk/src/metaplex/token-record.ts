/** A programmable NFT's token record (Token Metadata): whether it is locked and who holds its delegate. */
import type { Address } from "@solana/kit";
import { addressFromBytes } from "../address-text.ts";

export interface TokenRecord {
  state: "Unlocked" | "Locked" | "Listed";
  /** The delegate (a loan PDA while a loan holds the pNFT); null when none. */
  delegate: Address | null;
}

/** Decodes a token record account: key, bump, state, rule set revision Option<u64>, delegate Option<Pubkey>. */
export function decodeTokenRecord(data: Uint8Array): TokenRecord {
  const state = data[2] === 1 ? "Locked" : data[2] === 2 ? "Listed" : "Unlocked";
  let at = 3;
  at += data[at] === 1 ? 9 : 1;
  const delegate = data[at] === 1 ? addressFromBytes(data.subarray(at + 1, at + 33)) : null;
  return { state, delegate };
}
