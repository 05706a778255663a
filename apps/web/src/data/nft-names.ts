import { useConnection } from "@solana/wallet-adapter-react";
import { PublicKey } from "@solana/web3.js";
import { useQuery } from "@tanstack/react-query";

/** Metaplex Token Metadata program. */
export const TOKEN_METADATA_PROGRAM_ID = new PublicKey("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s");
/** Offset of `name` in a Metadata account: key (1) + update authority (32) + mint (32). */
const NAME_OFFSET = 65;

/** The canonical Metadata PDA of a mint: ["metadata", program, mint]. */
export function getMetadataAddress(mint: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync(
    [new TextEncoder().encode("metadata"), TOKEN_METADATA_PROGRAM_ID.toBytes(), mint.toBytes()],
    TOKEN_METADATA_PROGRAM_ID,
  )[0];
}

/**
 * The `name` of a Metaplex Metadata account (Borsh string: u32 length then UTF-8, NUL-padded), or
 * null when the data is not a Metadata V1 account or is truncated.
 */
export function decodeMetadataName(data: Uint8Array): string | null {
  if (data.length < NAME_OFFSET + 4 || data[0] !== 4) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const length = view.getUint32(NAME_OFFSET, true);
  const start = NAME_OFFSET + 4;
  if (length > 200 || start + length > data.length) return null;
  const name = new TextDecoder().decode(data.subarray(start, start + length)).replace(/\0+$/, "");
  return name === "" ? null : name;
}

/**
 * On-chain names of NFT mints (0-decimal tokens) from their Metaplex metadata, read in one
 * getMultipleAccounts call. Failures are logged and give no names.
 */
export function useNftNames(mints: readonly string[]) {
  const { connection } = useConnection();
  const sorted = [...mints].sort();
  return useQuery({
    queryKey: ["assets", "nft-names", connection.rpcEndpoint, sorted.join(",")],
    enabled: sorted.length > 0,
    queryFn: async (): Promise<Record<string, string>> => {
      try {
        const accounts = await connection.getMultipleAccountsInfo(
          sorted.map((mint) => getMetadataAddress(new PublicKey(mint))),
        );
        const names: Record<string, string> = {};
        accounts.forEach((account, i) => {
          const name = account ? decodeMetadataName(account.data) : null;
          if (name) names[sorted[i]!] = name;
        });
        return names;
      } catch (error) {
        console.error("An error occurred while fetching data", error);
        return {};
      }
    },
    staleTime: 5 * 60_000,
  });
}
