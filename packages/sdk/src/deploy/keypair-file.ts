import { readFile } from "node:fs/promises";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";

/**
 * Reads a Solana CLI keypair file (JSON array of 64 numbers: secret key then public key) as a kit signer.
 * @param path - path of the keypair JSON file
 */
export async function readKeypairFile(path: string): Promise<KeyPairSigner> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (cause) {
    throw new SdkError(SDK_ERROR.INVALID_KEYPAIR_FILE, `cannot read keypair file ${path}`, { cause });
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 64 ||
    !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)
  ) {
    throw new SdkError(SDK_ERROR.INVALID_KEYPAIR_FILE, `${path} is not a 64-byte keypair JSON array`);
  }
  try {
    return await createKeyPairSignerFromBytes(new Uint8Array(parsed as number[]));
  } catch (cause) {
    throw new SdkError(SDK_ERROR.INVALID_KEYPAIR_FILE, `${path}: public key does not match secret key`, {
      cause,
    });
  }
}
