/** Fungible balance of a wallet: base units per mint. */
export interface TokenBalance {
  mint: string;
  amount: bigint;
  decimals: number;
}

/** NFT types of the product (spec section 3). */
export type NftType = "Nft" | "ProgrammableNft" | "CompressedNft" | "CoreNft";

/** One NFT as the asset source sees it. */
export interface AssetNft {
  mint: string;
  name: string;
  symbol: string;
  image: string;
  /** Verified collection id, or null when the NFT has no verified collection. */
  collection: string | null;
  nftType: NftType;
  owner: string | null;
}

/**
 * Where wallet holdings come from. The localnet implementation reads SPL token accounts and Metaplex
 * metadata over RPC. Production slot: a DAS-style asset API (`getAssetsByOwner`, `getAsset`) implements
 * the same three calls; compressed and Core NFTs only come from such an API.
 */
export interface AssetSource {
  readonly name: string;
  fetchTokenBalances(owner: string): Promise<TokenBalance[]>;
  fetchNfts(owner: string): Promise<AssetNft[]>;
  fetchAsset(mint: string): Promise<AssetNft | null>;
  /** The image the asset API gives any asset, a fungible token's too (null when it knows none). */
  fetchImage(id: string): Promise<string | null>;
}
