import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import { loadOrCreateKeypair } from "@cistern/localnet";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { BOOTSTRAP_ERROR, BootstrapError } from "./bootstrap-error.ts";

/** File mode of every key file: owner read/write only. */
export const KEY_FILE_MODE = 0o600;

/** The keys a cluster is bootstrapped with (all generated into `<dataDir>/keys/`). */
export interface ClusterKeys {
  /** Its address is the lending program id. */
  program: KeyPairSigner;
  /** Pays for everything, upgrade authority of the program, config.admin. */
  admin: KeyPairSigner;
  /** Must co-sign every take-loan / extend (config.oracle). */
  oracle: KeyPairSigner;
  /** Wallet owning the token accounts that receive protocol fees (config.treasury). */
  treasury: KeyPairSigner;
}

/** Folder of the key files inside a data dir. */
export function getKeysDir(dataDir: string): string {
  return join(dataDir, "keys");
}

/**
 * Loads a solana-keygen keypair file (64-byte JSON array), generating it when missing; the file mode is
 * forced to 0600 either way.
 * @param path - path of the keypair JSON file (parent folders are created)
 */
export async function loadOrCreateKeyFile(path: string): Promise<KeyPairSigner> {
  const existed = existsSync(path);
  let secretKey: Uint8Array;
  try {
    secretKey = loadOrCreateKeypair(path).secretKey;
  } catch (cause) {
    throw new BootstrapError(
      BOOTSTRAP_ERROR.KEY_FILE_INVALID,
      `${path} is not a 64-byte keypair JSON array (delete it to generate a new key)`,
      { cause },
    );
  }
  if (existed) chmodSync(path, KEY_FILE_MODE);
  try {
    return await createKeyPairSignerFromBytes(secretKey);
  } catch (cause) {
    throw new BootstrapError(
      BOOTSTRAP_ERROR.KEY_FILE_INVALID,
      `${path}: public key does not match secret key`,
      { cause },
    );
  }
}

/**
 * Loads (or generates) program-keypair.json, admin.json, oracle.json and treasury.json in
 * `<dataDir>/keys/`.
 */
export async function loadOrCreateClusterKeys(dataDir: string): Promise<ClusterKeys> {
  const dir = getKeysDir(dataDir);
  return {
    program: await loadOrCreateKeyFile(join(dir, "program-keypair.json")),
    admin: await loadOrCreateKeyFile(join(dir, "admin.json")),
    oracle: await loadOrCreateKeyFile(join(dir, "oracle.json")),
    treasury: await loadOrCreateKeyFile(join(dir, "treasury.json")),
  };
}
