import { deriveProgramAddress } from "@cistern/sdk";
import type { Address } from "@solana/kit";

/**
 * Synchronous find_program_address (the SDK's derivation, the one the API and the web use). Synchronous so admin
 * writes can read-modify-write without yielding.
 */
export function findProgramAddressSync(seeds: Uint8Array[], programAddress: string): [string, number] {
  const [pda, bump] = deriveProgramAddress({ programAddress: programAddress as Address, seeds });
  return [pda, bump];
}
