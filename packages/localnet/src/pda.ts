import { createHash } from "node:crypto";
import { address, isOffCurveAddress } from "@solana/kit";
import { decodeAddress, encodeBase58 } from "./base58.ts";

const PDA_MARKER = Buffer.from("ProgramDerivedAddress");

/**
 * Synchronous find_program_address: the first off-curve sha256(seeds, bump, program, marker) from
 * bump 255 down. Synchronous so admin writes can read-modify-write without yielding.
 */
export function findProgramAddressSync(seeds: Uint8Array[], programAddress: string): [string, number] {
  const program = decodeAddress(programAddress);
  for (let bump = 255; bump >= 0; bump--) {
    const h = createHash("sha256");
    for (const s of seeds) h.update(s);
    h.update(Uint8Array.of(bump));
    h.update(program);
    h.update(PDA_MARKER);
    const candidate = encodeBase58(h.digest());
    if (isOffCurveAddress(address(candidate))) return [candidate, bump];
  }
  throw new Error("no viable program address bump");
}
