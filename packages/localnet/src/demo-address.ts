import { createHash } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";
import { keypairFromSecretKey, type LocalKeypair } from "./keypair.ts";

/**
 * Derives the stable demo address for a seed string: base58(sha256("cistern-demo:" + seed)).
 * Demo mints are written with setAccount, so they never sign and may lie on or off the curve.
 */
export function getDemoAddress(seed: string): string {
  const digest = createHash("sha256").update(`cistern-demo:${seed}`).digest();
  return getBase58Decoder().decode(digest);
}

/**
 * The stable demo keypair for a seed string: its ed25519 seed is sha256("cistern-demo-key:" + seed). For demo
 * accounts that must sign their own creation (pNFT mints created by Token Metadata, Core assets and collections).
 * Anyone can derive it: use it only for an account whose key matters at creation and never after.
 */
export function getDemoKeypair(seed: string): LocalKeypair {
  const digest = createHash("sha256").update(`cistern-demo-key:${seed}`).digest();
  const secretKey = new Uint8Array(64);
  secretKey.set(digest, 0);
  return keypairFromSecretKey(secretKey);
}
