import { createHash } from "node:crypto";
import { decodeAddress } from "../base58.ts";
import { getDemoAddress } from "../demo-address.ts";
import { findProgramAddressSync } from "../pda.ts";
import { MARGINFI_PROGRAM } from "../vendored-programs.ts";
import type { WorldAdmin } from "../world-admin.ts";

/** marginfi's program-wide FeeState account: 8-byte discriminator + 256 bytes. */
export const MARGINFI_FEE_STATE_SIZE = 264;
/** The localnet's stand-in for marginfi's global fee admin and fee wallet (no program fees are charged). */
export const MARGINFI_FEE_WALLET = getDemoAddress("marginfi-global-fee-wallet");

/** marginfi's FeeState PDA ["feestate"]. */
export function getMarginfiFeeStateAddress(): [string, number] {
  return findProgramAddressSync([new TextEncoder().encode("feestate")], MARGINFI_PROGRAM);
}

/**
 * The FeeState bytes as marginfi's `init_global_fee_state` writes them (key, global fee admin, global fee wallet,
 * placeholder, flat bank-init fee 0, bump, program fee fixed 0 and rate 0).
 */
export function encodeMarginfiFeeState(): Uint8Array {
  const [key, bump] = getMarginfiFeeStateAddress();
  const data = new Uint8Array(MARGINFI_FEE_STATE_SIZE);
  data.set(createHash("sha256").update("account:FeeState").digest().subarray(0, 8), 0);
  data.set(decodeAddress(key), 8);
  data.set(decodeAddress(MARGINFI_FEE_WALLET), 40);
  data.set(decodeAddress(MARGINFI_FEE_WALLET), 72);
  data[116] = bump;
  return data;
}

/**
 * Writes marginfi's FeeState when it is missing. This mainnet build lets only marginfi's own multisig run
 * `init_global_fee_state`, so a localnet holds the account the way a validator cloning it from mainnet would.
 * Every other marginfi account (group, banks, user accounts) is made by real marginfi transactions.
 */
export async function ensureMarginfiFeeState(admin: WorldAdmin): Promise<boolean> {
  const [address] = getMarginfiFeeStateAddress();
  if (admin.readAccount(address)) return false;
  await admin.setAccount(address, {
    lamports: admin.chain.svm.minimumBalanceForRentExemption(BigInt(MARGINFI_FEE_STATE_SIZE)),
    data: encodeMarginfiFeeState(),
    owner: MARGINFI_PROGRAM,
    executable: false,
  });
  return true;
}
