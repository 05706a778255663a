export {
  decodeMetadata,
  encodeMetadata,
  METADATA_ACCOUNT_SIZE,
  type MetadataFields,
} from "@cistern/sdk";

import { decodeAddress } from "./base58.ts";
import { TOKEN_METADATA_PROGRAM_ADDRESS } from "./demo-world.ts";
import { findProgramAddressSync } from "./pda.ts";

/** The canonical metadata PDA ["metadata", program, mint]. */
export function getMetadataAddress(mint: string): string {
  return findProgramAddressSync(
    [Buffer.from("metadata"), decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS), decodeAddress(mint)],
    TOKEN_METADATA_PROGRAM_ADDRESS,
  )[0];
}
