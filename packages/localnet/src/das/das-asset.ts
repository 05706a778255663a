/**
 * DAS assets in the published response shape (Metaplex Digital Asset Standard API, as Helius serves it): interface,
 * id, content (json_uri; metadata, files and links from the off-chain JSON document the uri names, when the localnet
 * serves it, see offchain-metadata.ts), authorities, compression, grouping, royalty, creators, ownership, supply,
 * mutable, burnt; plugins and mpl_core_info for Core assets; token_info for fungibles.
 */
import { encodeBase58 } from "../base58.ts";
import { getTreeConfigAddress } from "../bubblegum.ts";
import type { IndexedMetadata, IndexedTokenAccount } from "./account-index.ts";
import type { CompressedLeaf } from "./compressed-index.ts";
import type { CoreAsset, CorePlugin } from "./core-asset.ts";
import { type AssetFacts, demoMetadataDocument, metadataUriId } from "./offchain-metadata.ts";

export type DasInterface = "V1_NFT" | "ProgrammableNFT" | "MplCoreAsset" | "FungibleToken" | "FungibleAsset";

/** A DAS asset (the fields the localnet fills). */
export interface DasAssetJson {
  interface: DasInterface;
  id: string;
  content: {
    $schema: string;
    json_uri: string;
    files: { uri: string; mime: string }[];
    metadata: {
      name: string;
      symbol: string;
      description?: string;
      attributes?: { trait_type: string; value: string }[];
      token_standard?: string;
    };
    links: { image?: string };
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
  /** Core assets: their plugins by name, and the plugin JSON version. */
  plugins?: Record<string, CorePlugin>;
  mpl_core_info?: { plugins_json_version: number };
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

const TOKEN_STANDARDS = [
  "NonFungible",
  "FungibleAsset",
  "Fungible",
  "NonFungibleEdition",
  "ProgrammableNonFungible",
  "ProgrammableNonFungibleEdition",
];

/**
 * An asset's content: name and symbol from the chain; description, attributes, files and the image link from the
 * JSON document its uri names, when that is one the localnet serves (a hosted DAS fetches it; other uris leave
 * them out, as a hosted DAS whose fetch failed).
 */
function content(uri: string, facts: AssetFacts, tokenStandard: string | undefined): DasAssetJson["content"] {
  const doc = metadataUriId(uri) === facts.id ? demoMetadataDocument(facts) : null;
  return {
    $schema: SCHEMA,
    json_uri: uri,
    files: doc ? doc.properties.files.map((f) => ({ uri: f.uri, mime: f.type })) : [],
    metadata: {
      name: facts.name,
      symbol: facts.symbol,
      ...(doc ? { description: doc.description, attributes: doc.attributes } : {}),
      ...(tokenStandard ? { token_standard: tokenStandard } : {}),
    },
    links: doc ? { image: doc.image } : {},
  };
}

const treeConfigs = new Map<string, string>();
function treeConfigOf(tree: string): string {
  const known = treeConfigs.get(tree);
  if (known !== undefined) return known;
  const config = getTreeConfigAddress(tree);
  treeConfigs.set(tree, config);
  return config;
}

const EDITIONLESS_SUPPLY = { print_max_supply: 0, print_current_supply: 0, edition_nonce: null };

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

/**
 * A Token Metadata NFT (classic or programmable) held in `holder`; `burnt` with its last holder when a burn emptied
 * or closed its accounts.
 */
export function tokenMetadataAsset(
  meta: IndexedMetadata,
  holder: IndexedTokenAccount | null,
  showUnverified: boolean,
  burnt = false,
): DasAssetJson {
  const programmable = meta.tokenStandard === 4 || meta.tokenStandard === 5;
  const collection = meta.collection
    ? { key: encodeBase58(meta.collection.key), verified: meta.collection.verified }
    : null;
  const id = encodeBase58(meta.mint);
  const facts: AssetFacts = {
    id,
    name: meta.name,
    symbol: meta.symbol,
    collection: collection?.key ?? null,
    standard: programmable ? "ProgrammableNonFungible" : "NonFungible",
  };
  return {
    interface: programmable ? "ProgrammableNFT" : "V1_NFT",
    id,
    content: content(meta.uri, facts, TOKEN_STANDARDS[meta.tokenStandard ?? 0]),
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
      frozen: burnt ? false : (holder?.frozen ?? false),
      delegated: !burnt && holder?.delegate != null,
      delegate: burnt ? null : (holder?.delegate ?? null),
      ownership_model: "single",
      owner: holder?.owner ?? "",
    },
    supply: EDITIONLESS_SUPPLY,
    mutable: meta.isMutable,
    burnt: burnt || holder === null,
  };
}

/** A Metaplex Core asset (`burnt`: as last seen before its burn). */
export function coreAsset(id: string, asset: CoreAsset, burnt = false): DasAssetJson {
  const facts: AssetFacts = {
    id,
    name: asset.name,
    symbol: "",
    collection: asset.collection,
    standard: "Core",
  };
  return {
    interface: "MplCoreAsset",
    id,
    content: content(asset.uri, facts, undefined),
    authorities: asset.updateAuthority ? [{ address: asset.updateAuthority, scopes: ["full"] }] : [],
    compression: NOT_COMPRESSED,
    // a Core asset's collection is its update authority: always verified
    grouping: grouping(asset.collection ? { key: asset.collection, verified: true } : null, false),
    royalty: royalty(0, false),
    creators: [],
    ownership: {
      frozen: !burnt && asset.frozen,
      delegated: !burnt && asset.delegate !== null,
      delegate: burnt ? null : asset.delegate,
      ownership_model: "single",
      owner: asset.owner,
    },
    supply: EDITIONLESS_SUPPLY,
    mutable: asset.updateAuthority !== null,
    burnt,
    plugins: burnt ? {} : asset.plugins,
    mpl_core_info: { plugins_json_version: 1 },
  };
}

/** A burnt Core asset the index knows only by its burnt account (first seen after a restart). */
export function burntCoreShell(id: string): DasAssetJson {
  return coreAsset(
    id,
    {
      owner: "",
      collection: null,
      updateAuthority: null,
      name: "",
      uri: "",
      frozen: false,
      delegate: null,
      plugins: {},
    },
    true,
  );
}

/** A Bubblegum V1 compressed NFT. */
export function compressedAsset(leaf: CompressedLeaf, showUnverified: boolean): DasAssetJson {
  const m = leaf.metadata;
  const facts: AssetFacts = {
    id: leaf.id,
    name: m?.name ?? "",
    symbol: m?.symbol ?? "",
    collection: m?.collection?.key ?? null,
    standard: "Compressed",
  };
  return {
    interface: "V1_NFT",
    id: leaf.id,
    content: content(m?.uri ?? "", facts, "NonFungible"),
    // as the reference DAS records a Bubblegum mint's authority: its tree's config (the mint's first account)
    authorities: [{ address: treeConfigOf(leaf.tree), scopes: ["full"] }],
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
    supply: EDITIONLESS_SUPPLY,
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
  const facts: AssetFacts = {
    id: mint,
    name: meta?.name ?? "",
    symbol: meta?.symbol ?? "",
    collection: null,
    standard: "NonFungible",
  };
  const standard = meta?.tokenStandard ?? null;
  return {
    // hosted DAS: FungibleToken for an SPL token (with or without metadata), FungibleAsset for a Token Metadata
    // FungibleAsset (semi-fungible, 0 decimals)
    interface: standard === 1 ? "FungibleAsset" : "FungibleToken",
    id: mint,
    content: content(meta?.uri ?? "", facts, standard === null ? undefined : TOKEN_STANDARDS[standard]),
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
