import type { Address, Instruction } from "@solana/kit";
import { INSTRUCTION_TAG, MAX_MIGRATE_LOANS } from "../constants.ts";
import { SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import { readonly, type SignerInput, signer, writable } from "./account-metas.ts";

/**
 * Migrate (tag 24): brings a pool and loans of that pool from layout v1 (written before the program's 1.8
 * upgrade) to the current layout. Anyone may send it; `payer` funds the rent of the bytes the accounts grow by.
 * Accounts already current are left alone; the program refuses the instruction when nothing needed migrating.
 */
export function getMigrateInstruction(input: {
  programAddress: Address;
  payer: SignerInput;
  pool: Address;
  /** Loans of `pool`, at most {@link MAX_MIGRATE_LOANS}. */
  loans: readonly Address[];
}): Instruction {
  if (input.loans.length > MAX_MIGRATE_LOANS)
    throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, `Migrate carries at most ${MAX_MIGRATE_LOANS} loans`);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.payer, true),
      readonly(SYSTEM_PROGRAM_ADDRESS),
      writable(input.pool),
      ...input.loans.map(writable),
    ],
    data: new Uint8Array([INSTRUCTION_TAG.Migrate]),
  };
}
