/**
 * DAS assets in the published response shape (Metaplex Digital Asset Standard API, as Helius serves it): interface,
 * id, content (json_uri, metadata; links and files stay empty: the localnet does not fetch off-chain JSON),
 * authorities, compression, grouping, royalty, creators, ownership, supply, mutable, burnt, and token_info for
 * fungibles.
 */
import { encodeBase58 } from "../base58.ts";
import type { IndexedMetadata, IndexedTokenAccount } from "./account-index.ts";
import type { CompressedLeaf } from "./compressed-index.ts";
import type { CoreAsset } from "./core-asset.ts";

export type DasInterface = "V1_NFT" | "ProgrammableNFT" | "MplCoreAsset" | "FungibleToken" | "FungibleAsset";

/** A DAS asset (the fields the localnet fills). */
export interface DasAssetJson {
  interface: DasInterface;
  id: string;
  content: {
    $schema: string;
    json_uri: string;
    files: unknown[];
    metadata: { name: string; symbol: string };
    links: Record<string, string>;
  };
  authorities: { address: string; scopes: string[] }[];
  compression: {
    eligible: boolean;
    compressed: boolean;
    data_hash: string;
    creator_hash: string;
    asset_hash: string;
    tree: string;
    seq: number;
    leaf_id: number;
  };
  grouping: { group_key: string; group_value: string; verified?: boolean }[];
  royalty: {
    royalty_model: string;
    target: null;
    percent: number;
    basis_points: number;
    primary_sale_happened: boolean;
    locked: boolean;
  };
  creators: { address: string; share: number; verified: boolean }[];
  ownership: {
    frozen: boolean;
    delegated: boolean;
    delegate: string | null;
    ownership_model: "single" | "token";
    owner: string;
  };
  supply: { print_max_supply: number; print_current_supply: number; edition_nonce: number | null } | null;
  mutable: boolean;
  burnt: boolean;
  token_info?: {
    /** Base units: a JSON number while exact (below 2^53), a decimal string above. Absent for a mint by itself. */
    balance?: number | string;
    supply: number | string;
    decimals: number;
    token_program: string;
    associated_token_address?: string;
    symbol?: string;
  };
}

const SCHEMA = "https://schema.metaplex.com/nft1.0.json";
const NOT_COMPRESSED: DasAssetJson["compression"] = {
  eligible: false,
  compressed: false,
  data_hash: "",
  creator_hash: "",
  asset_hash: "",
  tree: "",
  seq: 0,
  leaf_id: 0,
};

const content = (name: string, symbol: string, uri: string): DasAssetJson["content"] => ({
  $schema: SCHEMA,
  json_uri: uri,
  files: [],
  metadata: { name, symbol },
  links: {},
});

const royalty = (bps: number, primarySale: boolean): DasAssetJson["royalty"] => ({
  royalty_model: "creators",
  target: null,
  percent: bps / 10_000,
  basis_points: bps,
  primary_sale_happened: primarySale,
  locked: false,
});

function grouping(
  collection: { key: string; verified: boolean } | null,
  showUnverified: boolean,
): DasAssetJson["grouping"] {
  if (!collection || (!collection.verified && !showUnverified)) return [];
  return [{ group_key: "collection", group_value: collection.key, verified: collection.verified }];
}

/** A Token Metadata NFT (classic or programmable) held in `holder`. */
export function tokenMetadataAsset(
  meta: IndexedMetadata,
  holder: IndexedTokenAccount | null,
  showUnverified: boolean,
): DasAssetJson {
  const programmable = meta.tokenStandard === 4 || meta.tokenStandard === 5;
  const collection = meta.collection
    ? { key: encodeBase58(meta.collection.key), verified: meta.collection.verified }
    : null;
  return {
    interface: programmable ? "ProgrammableNFT" : "V1_NFT",
    id: encodeBase58(meta.mint),
    content: content(meta.name, meta.symbol, meta.uri),
    authorities: [{ address: encodeBase58(meta.updateAuthority), scopes: ["full"] }],
    compression: NOT_COMPRESSED,
    grouping: grouping(collection, showUnverified),
    royalty: royalty(meta.sellerFeeBasisPoints, meta.primarySaleHappened),
    creators: meta.creators.map((c) => ({
      address: encodeBase58(c.address),
      share: c.share,
      verified: c.verified,
    })),
    ownership: {
      frozen: holder?.frozen ?? false,
      delegated: holder?.delegate != null,
      delegate: holder?.delegate ?? null,
      ownership_model: "single",
      owner: holder?.owner ?? "",
    },
    supply: { print_max_supply: 0, print_current_supply: 0, edition_nonce: null },
    mutable: meta.isMutable,
    burnt: holder === null,
  };
}

/** A Metaplex Core asset. */
export function coreAsset(id: string, asset: CoreAsset): DasAssetJson {
  return {
    interface: "MplCoreAsset",
    id,
    content: content(asset.name, "", asset.uri),
    authorities: asset.updateAuthority ? [{ address: asset.updateAuthority, scopes: ["full"] }] : [],
    compression: NOT_COMPRESSED,
    // a Core asset's collection is its update authority: always verified
    grouping: grouping(asset.collection ? { key: asset.collection, verified: true } : null, false),
    royalty: royalty(0, false),
    creators: [],
    ownership: {
      frozen: asset.frozen,
      delegated: asset.delegate !== null,
      delegate: asset.delegate,
      ownership_model: "single",
      owner: asset.owner,
    },
    supply: null,
    mutable: asset.updateAuthority !== null,
    burnt: false,
  };
}

/** A Bubblegum V1 compressed NFT. */
export function compressedAsset(leaf: CompressedLeaf, showUnverified: boolean): DasAssetJson {
  const m = leaf.metadata;
  return {
    interface: "V1_NFT",
    id: leaf.id,
    content: content(m?.name ?? "", m?.symbol ?? "", m?.uri ?? ""),
    authorities: [],
    compression: {
      eligible: false,
      compressed: true,
      data_hash: encodeBase58(leaf.dataHash),
      creator_hash: encodeBase58(leaf.creatorHash),
      asset_hash: encodeBase58(leaf.leafHash),
      tree: leaf.tree,
      seq: Number(leaf.seq),
      leaf_id: leaf.leafIndex,
    },
    grouping: grouping(m?.collection ?? null, showUnverified),
    royalty: royalty(m?.sellerFeeBasisPoints ?? 0, m?.primarySaleHappened ?? false),
    creators: (m?.creators ?? []).map((c) => ({ address: c.address, share: c.share, verified: c.verified })),
    ownership: {
      frozen: false,
      delegated: leaf.delegate !== leaf.owner,
      delegate: leaf.delegate === leaf.owner ? null : leaf.delegate,
      ownership_model: "single",
      owner: leaf.owner,
    },
    supply: { print_max_supply: 0, print_current_supply: 0, edition_nonce: null },
    mutable: m?.isMutable ?? true,
    burnt: leaf.burnt,
  };
}

/** A fungible token balance (`showFungible`), or a fungible mint by itself (`held` null: getAsset of the mint). */
export function fungibleAsset(
  mint: string,
  held: { balance: bigint; address: string } | null,
  mintInfo: { supply: bigint; decimals: number; program: string },
  meta: IndexedMetadata | null,
  owner: string,
): DasAssetJson {
  return {
    interface: meta ? "FungibleToken" : "FungibleAsset",
    id: mint,
    content: content(meta?.name ?? "", meta?.symbol ?? "", meta?.uri ?? ""),
    authorities: meta ? [{ address: encodeBase58(meta.updateAuthority), scopes: ["full"] }] : [],
    compression: NOT_COMPRESSED,
    grouping: [],
    royalty: royalty(meta?.sellerFeeBasisPoints ?? 0, meta?.primarySaleHappened ?? false),
    creators: [],
    ownership: { frozen: false, delegated: false, delegate: null, ownership_model: "token", owner },
    supply: null,
    mutable: meta?.isMutable ?? false,
    burnt: false,
    token_info: {
      ...(held ? { balance: baseUnits(held.balance), associated_token_address: held.address } : {}),
      supply: baseUnits(mintInfo.supply),
      decimals: mintInfo.decimals,
      token_program: mintInfo.program,
      ...(meta ? { symbol: meta.symbol } : {}),
    },
  };
}

/** DAS answers amounts as JSON numbers; above 2^53 a number is no longer exact, so the decimal string is given. */
function baseUnits(amount: bigint): number | string {
  return amount <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(amount) : amount.toString();
}
