import type { DasCompressedAsset, DasProof } from "@cistern/sdk";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { fetchUpstream } from "../http/upstream-fetch.ts";
import type { AssetNft, AssetSource, NftType, TokenBalance } from "./asset-source.ts";

/** A DAS asset (Metaplex's Digital Asset Standard API), the fields this adapter reads. */
export interface DasAsset {
  id: string;
  interface: string;
  content?: {
    metadata?: { name?: string; symbol?: string };
    links?: { image?: string };
    files?: { uri?: string; cdn_uri?: string; mime?: string }[];
    json_uri?: string;
  };
  grouping?: { group_key: string; group_value: string }[];
  compression?: {
    compressed?: boolean;
    data_hash?: string;
    creator_hash?: string;
    tree?: string;
    leaf_id?: number;
  };
  ownership?: { owner?: string; delegate?: string | null };
  token_info?: { balance?: number | string; decimals?: number };
}

/** getAssetProof's answer (DAS). */
export interface DasAssetProof {
  root: string;
  proof: string[];
  node_index: number;
  leaf: string;
  tree_id: string;
}

/**
 * What a Bubblegum V1 instruction on a compressed NFT needs, read from DAS at build time: the leaf's fields (for a V1
 * leaf the nonce is its index) and a proof against the tree's current root, all its `depth` nodes (a transaction
 * passes those below the tree's canopy).
 */
export interface CompressedLeafProof {
  assetId: string;
  tree: string;
  leafIndex: number;
  nonce: bigint;
  owner: string;
  delegate: string;
  dataHash: string;
  creatorHash: string;
  root: string;
  proof: string[];
}

/** Pages of `getAssetsByOwner`, and the most assets one `getAssetBatch` takes (DAS limits). */
export const DAS_PAGE_SIZE = 1000;
export const DAS_BATCH_SIZE = 1000;
const FUNGIBLE = new Set(["FungibleToken", "FungibleAsset"]);

function nftType(asset: DasAsset): NftType | null {
  if (FUNGIBLE.has(asset.interface)) return null;
  if (asset.compression?.compressed) return "CompressedNft";
  if (asset.interface === "MplCoreAsset") return "CoreNft";
  if (asset.interface === "ProgrammableNFT") return "ProgrammableNft";
  return "Nft";
}

/**
 * An asset's image, as a hosted DAS gives it from the asset's JSON metadata: its links' image, else its first image
 * file; else its uri when that is itself an image (an inline `data:image/...`), never the JSON document's address.
 */
function imageOf(asset: DasAsset): string {
  const c = asset.content;
  const file = c?.files?.find((f) => f.mime?.startsWith("image/") && (f.cdn_uri || f.uri));
  const inline = c?.json_uri?.startsWith("data:image/") ? c.json_uri : "";
  return c?.links?.image || file?.cdn_uri || file?.uri || inline;
}

function toNft(asset: DasAsset): AssetNft | null {
  const type = nftType(asset);
  if (type === null) return null;
  return {
    mint: asset.id,
    name: asset.content?.metadata?.name ?? "",
    symbol: asset.content?.metadata?.symbol ?? "",
    image: imageOf(asset),
    // DAS groups an asset under a collection only once the collection is verified
    collection: asset.grouping?.find((g) => g.group_key === "collection")?.group_value ?? null,
    nftType: type,
    owner: asset.ownership?.owner ?? null,
  };
}

/**
 * The production asset source: a DAS JSON-RPC endpoint (`getAssetsByOwner` with fungibles shown, `getAsset`,
 * `getAssetBatch`; `getAssetProof` for a compressed leaf); token balances come sorted by mint. Each call has a 30 s timeout; a timeout, a network error, a 429 or a 5xx is retried with
 * exponential backoff (`Retry-After` when the provider sends one) up to `retries` times, then answers
 * UPSTREAM_FAILED, which the routes turn into a degraded answer, never a crash.
 */
export function createDasAssetSource(
  url: string,
  options: { timeoutMs?: number; retries?: number; backoffMs?: number } = {},
): AssetSource & {
  fetchAssets(mints: string[]): Promise<(AssetNft | null)[]>;
  fetchCompressedLeaf(assetId: string): Promise<CompressedLeafProof | null>;
  fetchCompressedAsset(assetId: string): Promise<{ asset: DasCompressedAsset; proof: DasProof } | null>;
} {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 250;
  let id = 1;

  async function call<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const response = await fetchUpstream(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
      },
      { what: `DAS ${method}`, timeoutMs, retries, backoffMs },
    );
    const body = (await response.json().catch(() => null)) as {
      result?: T;
      error?: { message?: string };
    } | null;
    if (!response.ok || body === null || body.error !== undefined || !("result" in body))
      throw new ApiError(
        ERROR_CODES.UPSTREAM_FAILED,
        `DAS ${method} failed: ${body?.error?.message ?? `answered ${response.status}`}`,
      );
    return body.result as T;
  }

  async function owned(owner: string): Promise<DasAsset[]> {
    const items: DasAsset[] = [];
    for (let page = 1; ; page++) {
      const result = await call<{ items: DasAsset[]; total: number }>("getAssetsByOwner", {
        ownerAddress: owner,
        page,
        limit: DAS_PAGE_SIZE,
        displayOptions: { showFungible: true },
      });
      items.push(...result.items);
      if (result.items.length < DAS_PAGE_SIZE) return items;
    }
  }

  return {
    name: "das",
    async fetchTokenBalances(owner) {
      return (await owned(owner))
        .filter((a) => FUNGIBLE.has(a.interface) && a.token_info?.balance !== undefined)
        .map(
          (a): TokenBalance => ({
            mint: a.id,
            amount: BigInt(a.token_info!.balance!),
            decimals: a.token_info?.decimals ?? 0,
          }),
        )
        .filter((b) => b.amount > 0n)
        .sort((a, b) => (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0));
    },
    async fetchNfts(owner) {
      return (await owned(owner)).map(toNft).filter((n): n is AssetNft => n !== null);
    },
    async fetchAsset(mint) {
      const asset = await call<DasAsset | null>("getAsset", { id: mint }).catch((error: unknown) => {
        // DAS answers an unknown id with a JSON-RPC error: not found, not a failure
        if (error instanceof ApiError && /not found/i.test(error.message)) return null;
        throw error;
      });
      return asset === null ? null : toNft(asset);
    },
    async fetchImage(id) {
      const asset = await call<DasAsset | null>("getAsset", { id }).catch((error: unknown) => {
        if (error instanceof ApiError && /not found/i.test(error.message)) return null;
        throw error;
      });
      return asset === null ? null : imageOf(asset) || null;
    },
    async fetchCompressedLeaf(assetId) {
      const asset = await call<DasAsset | null>("getAsset", { id: assetId }).catch((error: unknown) => {
        if (error instanceof ApiError && /not found/i.test(error.message)) return null;
        throw error;
      });
      const c = asset?.compression;
      const owner = asset?.ownership?.owner;
      if (!c?.compressed || !c.tree || c.leaf_id === undefined || !c.data_hash || !c.creator_hash || !owner)
        return null;
      const proof = await call<DasAssetProof>("getAssetProof", { id: assetId });
      if (proof.tree_id !== c.tree)
        throw new ApiError(
          ERROR_CODES.UPSTREAM_FAILED,
          `DAS getAssetProof answered another tree for ${assetId}`,
        );
      return {
        assetId,
        tree: c.tree,
        leafIndex: c.leaf_id,
        nonce: BigInt(c.leaf_id),
        owner,
        delegate: asset?.ownership?.delegate ?? owner,
        dataHash: c.data_hash,
        creatorHash: c.creator_hash,
        root: proof.root,
        proof: proof.proof,
      };
    },
    /** getAsset and a fresh getAssetProof of a compressed asset (null: DAS knows no compressed asset by this id). */
    async fetchCompressedAsset(assetId) {
      const asset = await call<DasCompressedAsset | null>("getAsset", { id: assetId }).catch(
        (error: unknown) => {
          if (error instanceof ApiError && /not found/i.test(error.message)) return null;
          throw error;
        },
      );
      if (!asset?.compression?.compressed) return null;
      const proof = await call<DasProof>("getAssetProof", { id: assetId });
      return { asset, proof };
    },
    async fetchAssets(mints) {
      const out: (AssetNft | null)[] = [];
      for (let i = 0; i < mints.length; i += DAS_BATCH_SIZE) {
        const ids = mints.slice(i, i + DAS_BATCH_SIZE);
        const assets = await call<(DasAsset | null)[]>("getAssetBatch", { ids });
        out.push(...ids.map((_, k) => (assets[k] ? toNft(assets[k]!) : null)));
      }
      return out;
    },
  };
}
