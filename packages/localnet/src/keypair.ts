import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { encodeBase58 } from "./base58.ts";

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** An ed25519 keypair (solana-keygen file format: 64 bytes, seed then public key). */
export interface LocalKeypair {
  publicKey: Uint8Array;
  address: string;
  secretKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

function fromSeed(seed: Uint8Array): LocalKeypair {
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  const publicKey = Uint8Array.from(spki.subarray(spki.length - 32));
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, 32);
  return {
    publicKey,
    address: encodeBase58(publicKey),
    secretKey,
    sign: (message) => Uint8Array.from(sign(null, message, privateKey)),
  };
}

/** Generates a fresh keypair. */
export function generateLocalKeypair(): LocalKeypair {
  const { privateKey } = generateKeyPairSync("ed25519");
  const der = privateKey.export({ format: "der", type: "pkcs8" });
  return fromSeed(Uint8Array.from(der.subarray(der.length - 32)));
}

/** Builds a keypair from the 64-byte solana-keygen secret key. */
export function keypairFromSecretKey(secretKey: Uint8Array): LocalKeypair {
  if (secretKey.length !== 64) throw new Error("a keypair file holds 64 bytes");
  return fromSeed(secretKey.subarray(0, 32));
}

/** Loads a keypair JSON file (array of 64 numbers), generating and writing it (mode 0600) if missing. */
export function loadOrCreateKeypair(path: string): LocalKeypair {
  if (existsSync(path)) {
    const bytes = JSON.parse(readFileSync(path, "utf8")) as number[];
    return keypairFromSecretKey(Uint8Array.from(bytes));
  }
  const kp = generateLocalKeypair();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(Array.from(kp.secretKey)), { mode: 0o600 });
  return kp;
}
