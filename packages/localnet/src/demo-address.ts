import { createHash } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";

/**
 * Derives the stable demo address for a seed string: base58(sha256("cistern-demo:" + seed)).
 * Demo mints are written with setAccount, so they never sign and may lie on or off the curve.
 */
export function getDemoAddress(seed: string): string {
  const digest = createHash("sha256").update(`cistern-demo:${seed}`).digest();
  return getBase58Decoder().decode(digest);
}
