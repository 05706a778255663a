import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import {
  type Address,
  createSolanaRpc,
  getBase58Decoder,
  getBase64Encoder,
  type Rpc,
  type SolanaRpcApi,
} from "@solana/kit";

/** The committed lending program build. */
export const LENDING_SO_PATH = join(import.meta.dirname, "../../../programs/lending/build/lending.so");
export const SWAP_VENUE_SO_PATH = join(
  import.meta.dirname,
  "../../../programs/swap-venue/build/swap-venue.so",
);
export const NFT_MARKET_SO_PATH = join(
  import.meta.dirname,
  "../../../programs/nft-market/build/nft-market.so",
);
export const LENDING_VENUE_SO_PATH = join(
  import.meta.dirname,
  "../../../programs/lending-venue/build/lending-venue.so",
);

/** A fresh temp dir under os.tmpdir(). */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `cistern-bootstrap-${prefix}-`));
}

/** A seeded localnet on random ports with a temp data dir, and a kit rpc on it. */
export async function startTestLocalnet(): Promise<
  LocalnetHandle & { rpc: Rpc<SolanaRpcApi>; cleanup(): Promise<void> }
> {
  const dataDir = tempDir("localnet");
  const net = await startLocalnet({ rpcPort: 0, dataDir, slotMs: 100 });
  return {
    ...net,
    rpc: createSolanaRpc(net.rpcUrl),
    cleanup: async () => {
      await net.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Account data (confirmed), or null when the account does not exist. */
export async function fetchData(rpc: Rpc<SolanaRpcApi>, address: Address): Promise<Uint8Array | null> {
  const { value } = await rpc.getAccountInfo(address, { encoding: "base64", commitment: "confirmed" }).send();
  return value ? new Uint8Array(getBase64Encoder().encode(value.data[0])) : null;
}

/** Token amount of an SPL token account, base units. */
export async function fetchTokenAmount(rpc: Rpc<SolanaRpcApi>, tokenAccount: Address): Promise<bigint> {
  const { value } = await rpc.getTokenAccountBalance(tokenAccount, { commitment: "confirmed" }).send();
  return BigInt(value.amount);
}

/** Addresses of the lending program's accounts whose first byte (account tag) is `tag`. */
export async function fetchProgramAccountsByTag(
  rpc: Rpc<SolanaRpcApi>,
  programAddress: Address,
  tag: number,
): Promise<Address[]> {
  const accounts = await rpc
    .getProgramAccounts(programAddress, {
      encoding: "base64",
      commitment: "confirmed",
      filters: [
        {
          memcmp: {
            offset: 0n,
            bytes: getBase58Decoder().decode(new Uint8Array([tag])) as never,
            encoding: "base58",
          },
        },
      ],
    })
    .send();
  return accounts.map((a) => a.pubkey).sort();
}
