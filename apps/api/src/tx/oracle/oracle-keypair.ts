import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { addressBytes, readKeypairFile } from "@cistern/sdk";
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from "@solana/kit";
import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";

/** Loads the oracle keypair (see loadServiceKeypair). */
export function loadOracleKeypair(path: string, generate: boolean): Promise<KeyPairSigner> {
  return loadServiceKeypair(path, generate, "oracle");
}

/**
 * Loads a key of the server (`role`: oracle, keeper) from `path` (Solana CLI JSON). When the file is missing
 * and `generate` is true (localnet only) a new keypair is written there (mode 0600); otherwise a missing
 * file is a configuration error.
 */
export async function loadServiceKeypair(
  path: string,
  generate: boolean,
  role: string,
): Promise<KeyPairSigner> {
  if (!existsSync(path)) {
    if (!generate) {
      throw new ApiError(
        ERROR_CODES.CONFIG_INVALID,
        `Invalid configuration: ${role} keypair ${path} is missing (generated only on localnet)`,
      );
    }
    const seed = new Uint8Array(randomBytes(32));
    const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
    const secret = [...seed, ...addressBytes(signer.address)];
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, JSON.stringify(secret), { mode: 0o600 });
    await chmod(path, 0o600);
    return signer;
  }
  try {
    return await readKeypairFile(path);
  } catch (cause) {
    throw new ApiError(
      ERROR_CODES.CONFIG_INVALID,
      `Invalid configuration: ${role} keypair ${path} unreadable`,
      {
        cause,
      },
    );
  }
}
