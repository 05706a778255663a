/**
 * The localnet's DAS index: answers the DAS read methods (getAsset(s), getAssetsBy*, searchAssets, getAssetProof(s),
 * getGrouping, getAssetSignatures, getTokenAccounts, getNftEditions) from memory, for Token Metadata NFTs and pNFTs,
 * Core assets, fungible balances and Bubblegum V1 compressed NFTs, burnt ones kept as last seen. The chain feeds it:
 * account changes ({@link DasIndex.touch}) and every landed transaction in ledger order
 * ({@link DasIndex.applyTransaction}).
 */
import type { LiteSvm } from "litesvm/dist/internal";
import { encodeBase58 } from "../base58.ts";
import type { TxRecord } from "../history.ts";
import { AccountAssetIndex, type IndexedTokenAccount } from "./account-index.ts";
import { CompressedIndex } from "./compressed-index.ts";
import { mayCarryCompressionEvents } from "./compression-events.ts";
import {
  burntCoreShell,
  compressedAsset,
  coreAsset,
  type DasAssetJson,
  fungibleAsset,
  tokenMetadataAsset,
} from "./das-asset.ts";
import {
  type AssetFacts,
  demoMetadataDocument,
  type MetadataDocument,
  metadataUriId,
} from "./offchain-metadata.ts";

/** Token standards that are one-of-one NFTs (NonFungible, NonFungibleEdition, the two programmable ones). */
const NFT_STANDARDS = new Set([0, 3, 4, 5]);

/** The options of a query that change what an asset shows. */
export interface DisplayOptions {
  showFungible?: boolean;
  showUnverifiedCollections?: boolean;
}

/** An asset with its order of creation (DAS `sortBy: created`). */
export interface SortedAsset {
  asset: DasAssetJson;
  created: number;
}

/** getAssetProof's answer. */
export interface DasProof {
  root: string;
  proof: string[];
  node_index: number;
  leaf: string;
  tree_id: string;
}

export class DasIndex {
  readonly accounts: AccountAssetIndex;
  readonly compressed = new CompressedIndex();

  constructor(svm: LiteSvm) {
    this.accounts = new AccountAssetIndex(svm);
  }

  /** Accounts a transaction or admin write may have changed. */
  touch(addresses: Iterable<Uint8Array>): void {
    this.accounts.touch(addresses);
  }

  /** A landed transaction, in ledger order (replayed at start, then live once durable). */
  applyTransaction(record: TxRecord): void {
    this.compressed.apply(record);
  }

  /** Whether the ledger must keep this transaction for the index to be rebuilt (it changed a compressed tree). */
  needsTransaction(record: TxRecord): boolean {
    return mayCarryCompressionEvents(record);
  }

  /** An asset by id (an NFT's or a fungible token's mint, a Core asset's address, a compressed asset's id), or null. */
  asset(id: string, options: DisplayOptions = {}): DasAssetJson | null {
    const showUnverified = options.showUnverifiedCollections ?? false;
    const leaf = this.compressed.leaf(id);
    if (leaf) return compressedAsset(leaf, showUnverified);
    const core = this.accounts.coreAsset(id);
    if (core) return coreAsset(id, core);
    const burntCore = this.accounts.burntCoreAsset(id);
    if (burntCore !== undefined) return burntCore ? coreAsset(id, burntCore, true) : burntCoreShell(id);
    const meta = this.accounts.metadataOf(id);
    const mint = this.accounts.mint(id);
    if (meta && mint && isNft(meta.tokenStandard, mint)) {
      const holder = this.accounts.holdersOf(id)[0];
      // no holder left: its token burnt (the metadata stays); the owner is the last one, as a hosted DAS keeps it
      return holder
        ? tokenMetadataAsset(meta, holder, showUnverified)
        : tokenMetadataAsset(meta, this.accounts.lastHolderOf(id), showUnverified, true);
    }
    const burnt = this.accounts.burntTokenMetadata(id);
    if (burnt) return tokenMetadataAsset(burnt.meta, burnt.lastHolder, showUnverified, true);
    if (!mint) return null;
    // a fungible mint: its supply and decimals, no single owner
    return fungibleAsset(id, null, mint, meta, "");
  }

  /**
   * Every non-fungible asset the index knows (Token Metadata NFTs and pNFTs, Core assets, compressed NFTs), burnt ones
   * included, in order of creation.
   */
  allAssets(options: DisplayOptions = {}): SortedAsset[] {
    const out: SortedAsset[] = [];
    const ids = new Set<string>([
      ...this.accounts.metadataMints(),
      ...this.accounts.burntTokenMetadataMints(),
      ...this.accounts.coreAssetIds(),
      ...this.accounts.burntCoreIds(),
    ]);
    for (const id of ids) {
      const asset = this.asset(id, options);
      if (asset && !asset.interface.startsWith("Fungible"))
        out.push({ asset, created: this.accounts.seenOrder(id) });
    }
    const showUnverified = options.showUnverifiedCollections ?? false;
    // compressed assets come after the account-based ones of the same age: created counts per kind
    for (const leaf of this.compressed.all())
      out.push({ asset: compressedAsset(leaf, showUnverified), created: leaf.created });
    return out;
  }

  /**
   * The off-chain JSON document the localnet serves at /metadata/<id>.json: the one the asset's on-chain uri names
   * (null for an asset whose uri points elsewhere, or one outside the demo world).
   */
  metadataDocument(id: string): MetadataDocument | null {
    const asset = this.asset(id, { showUnverifiedCollections: true });
    if (!asset || metadataUriId(asset.content.json_uri) !== id) return null;
    const standard: AssetFacts["standard"] = asset.compression.compressed
      ? "Compressed"
      : asset.interface === "MplCoreAsset"
        ? "Core"
        : asset.interface === "ProgrammableNFT"
          ? "ProgrammableNonFungible"
          : "NonFungible";
    return demoMetadataDocument({
      id,
      name: asset.content.metadata.name,
      symbol: asset.content.metadata.symbol,
      collection: asset.grouping.find((g) => g.group_key === "collection")?.group_value ?? null,
      standard,
    });
  }

  /** getGrouping: a collection's name and how many unburnt assets it groups; null when it groups none. */
  grouping(key: string, value: string): { group_key: string; group_name: string; group_size: number } | null {
    const size = this.allAssets().filter(
      (a) => !a.asset.burnt && a.asset.grouping.some((g) => g.group_key === key && g.group_value === value),
    ).length;
    const name = this.accounts.metadataOf(value)?.name ?? this.accounts.coreCollection(value)?.name ?? null;
    if (size === 0 && name === null) return null;
    return { group_key: key, group_name: name ?? "", group_size: size };
  }

  /** The Bubblegum transactions that changed a compressed asset, oldest first; null for any other id. */
  signatures(id: string): { signature: string; instruction: string; slot: number }[] | null {
    return this.compressed.leaf(id)?.signatures ?? null;
  }

  /** Every asset a wallet owns: NFTs of the three standards and compressed ones; fungible balances when asked. */
  assetsByOwner(owner: string, options: DisplayOptions = {}): SortedAsset[] {
    const showUnverified = options.showUnverifiedCollections ?? false;
    const out: { asset: DasAssetJson; created: number }[] = [];
    const fungible = new Map<string, { balance: bigint; address: string }>();
    for (const t of this.accounts.tokenAccountsOf(owner)) {
      if (t.amount === 0n) continue;
      const mint = this.accounts.mint(t.mint);
      if (!mint) continue;
      const meta = this.accounts.metadataOf(t.mint);
      if (meta && isNft(meta.tokenStandard, mint))
        out.push({
          asset: tokenMetadataAsset(meta, t, showUnverified),
          created: this.accounts.seenOrder(t.mint),
        });
      else if (options.showFungible) addBalance(fungible, t);
    }
    for (const [mintAddress, held] of fungible) {
      const mint = this.accounts.mint(mintAddress)!;
      out.push({
        asset: fungibleAsset(mintAddress, held, mint, this.accounts.metadataOf(mintAddress), owner),
        created: this.accounts.seenOrder(mintAddress),
      });
    }
    for (const id of this.accounts.coreAssetsOf(owner))
      out.push({ asset: coreAsset(id, this.accounts.coreAsset(id)!), created: this.accounts.seenOrder(id) });
    for (const leaf of this.compressed.leavesOf(owner))
      out.push({ asset: compressedAsset(leaf, showUnverified), created: leaf.created });
    return out;
  }

  /** The proof of a compressed asset against its tree's current root; null when the id is not a compressed leaf. */
  proof(id: string): DasProof | null {
    const leaf = this.compressed.leaf(id);
    if (!leaf || leaf.burnt) return null;
    const p = this.compressed.proof(leaf);
    if (!p) return null;
    return {
      root: encodeBase58(p.root),
      proof: p.proof.map(encodeBase58),
      node_index: p.nodeIndex,
      leaf: encodeBase58(p.leaf),
      tree_id: leaf.tree,
    };
  }
}

function isNft(tokenStandard: number | null, mint: { supply: bigint; decimals: number }): boolean {
  if (tokenStandard !== null) return NFT_STANDARDS.has(tokenStandard) && mint.decimals === 0;
  return mint.decimals === 0 && mint.supply === 1n;
}

function addBalance(into: Map<string, { balance: bigint; address: string }>, t: IndexedTokenAccount): void {
  const held = into.get(t.mint);
  if (held) held.balance += t.amount;
  else into.set(t.mint, { balance: t.amount, address: t.address });
}
