/** Program addresses at a chosen bump, to attack what must take only the canonical one (issue #43, finding 2). */
import { createHash } from "node:crypto";
import { type Address, getAddressDecoder, getAddressEncoder, isOffCurveAddress } from "@solana/kit";

type Seed = string | Uint8Array;

/** The address of `seeds` + [bump] under `program`, or null when it is on the curve (no program address). */
export function pdaAt(program: Address, seeds: readonly Seed[], bump: number): Address | null {
  const hash = createHash("sha256");
  for (const seed of seeds) hash.update(typeof seed === "string" ? seed : Uint8Array.from(seed));
  hash.update(Uint8Array.of(bump));
  hash.update(Uint8Array.from(getAddressEncoder().encode(program)));
  hash.update("ProgramDerivedAddress");
  const address = getAddressDecoder().decode(hash.digest());
  return isOffCurveAddress(address) ? address : null;
}

/** The canonical program address (highest bump off the curve) and the next one below it. */
export function canonicalAndNext(
  program: Address,
  seeds: readonly Seed[],
): { canonical: [Address, number]; other: [Address, number] } {
  const found: [Address, number][] = [];
  for (let bump = 255; bump >= 0 && found.length < 2; bump--) {
    const address = pdaAt(program, seeds, bump);
    if (address !== null) found.push([address, bump]);
  }
  if (found.length < 2) throw new Error("fewer than two program addresses");
  return { canonical: found[0]!, other: found[1]! };
}

export const keyBytes = (a: Address): Uint8Array => Uint8Array.from(getAddressEncoder().encode(a));
