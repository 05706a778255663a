import { addressFromBytes } from "@cistern/sdk";
import type { RpcAccount, RpcClient } from "../solana/rpc-client.ts";
import type { AssetNft, AssetSource, NftType, TokenBalance } from "./asset-source.ts";
import { getMetadataAddress, type MetaplexMetadata, parseMetaplexMetadata } from "./metaplex-metadata.ts";

export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
/** SPL token account: mint (0..32), owner (32..64), amount u64 LE at 64. */
const TOKEN_ACCOUNT_SIZE = 165;
/** SPL mint: supply u64 LE at 36, decimals u8 at 44. */
const MINT_SIZE = 82;
const RPC_BATCH = 100;

function readU64(data: Uint8Array, offset: number): bigint {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(offset);
}

function nftType(meta: MetaplexMetadata): NftType {
  return meta.tokenStandard === 4 || meta.tokenStandard === 5 ? "ProgrammableNft" : "Nft";
}

function toNft(meta: MetaplexMetadata, owner: string | null): AssetNft {
  return {
    mint: meta.mint,
    name: meta.name,
    symbol: meta.symbol,
    image: meta.uri,
    collection: meta.collection?.verified ? meta.collection.key : null,
    nftType: nftType(meta),
    owner,
  };
}

async function fetchMany(rpc: RpcClient, pubkeys: string[]): Promise<(RpcAccount | null)[]> {
  const out: (RpcAccount | null)[] = [];
  for (let i = 0; i < pubkeys.length; i += RPC_BATCH) {
    out.push(...(await rpc.getMultipleAccounts(pubkeys.slice(i, i + RPC_BATCH))).accounts);
  }
  return out;
}

/** Asset source over a Solana RPC holding classic SPL mints with Metaplex metadata (the localnet demo world). */
export function createLocalnetAssetSource(rpc: RpcClient): AssetSource {
  async function holdings(owner: string): Promise<{ mint: string; amount: bigint }[]> {
    const accounts = await rpc.getTokenAccountsByOwner(owner, TOKEN_PROGRAM);
    const byMint = new Map<string, bigint>();
    for (const account of accounts) {
      if (account.data.length < TOKEN_ACCOUNT_SIZE) continue;
      const mint = getMint(account.data);
      byMint.set(mint, (byMint.get(mint) ?? 0n) + readU64(account.data, 64));
    }
    return [...byMint].map(([mint, amount]) => ({ mint, amount }));
  }
  return {
    name: "localnet",
    async fetchTokenBalances(owner) {
      const held = (await holdings(owner)).filter((h) => h.amount > 0n);
      const mints = await fetchMany(
        rpc,
        held.map((h) => h.mint),
      );
      const balances: TokenBalance[] = [];
      held.forEach((h, i) => {
        const mint = mints[i];
        if (mint === null || mint === undefined || mint.data.length < MINT_SIZE) return;
        const decimals = mint.data[44]!;
        // NFTs (0 decimals, supply 1) are assets, not token balances.
        if (decimals === 0 && readU64(mint.data, 36) === 1n) return;
        balances.push({ mint: h.mint, amount: h.amount, decimals });
      });
      return balances.sort((a, b) => (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0));
    },
    async fetchNfts(owner) {
      const candidates = (await holdings(owner)).filter((h) => h.amount === 1n);
      const metadataAddresses = await Promise.all(candidates.map((c) => getMetadataAddress(c.mint)));
      const accounts = await fetchMany(rpc, metadataAddresses);
      const nfts: AssetNft[] = [];
      for (const account of accounts) {
        const meta = account === null || account === undefined ? null : parseMetaplexMetadata(account.data);
        if (meta !== null) nfts.push(toNft(meta, owner));
      }
      return nfts;
    },
    async fetchAsset(mint) {
      const [account] = await fetchMany(rpc, [await getMetadataAddress(mint)]);
      const meta = account === null || account === undefined ? null : parseMetaplexMetadata(account.data);
      return meta === null || meta.mint !== mint ? null : toNft(meta, null);
    },
  };
}

function getMint(data: Uint8Array): string {
  return addressFromBytes(data.subarray(0, 32));
}
