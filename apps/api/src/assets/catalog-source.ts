import type { RpcClient } from "../solana/rpc-client.ts";

/** A lending currency or collateral token of the catalogue. */
export interface CatalogToken {
  mint: string;
  symbol: string;
  name: string;
  decimals: number;
  image: string;
  /** Seeded / reference USD price of one whole token, decimal string. */
  priceUsd: string;
  role: "currency" | "collateral";
}

/** An NFT collection of the catalogue; floor price in lamports of SOL. */
export interface CatalogCollection {
  collectionId: string;
  symbol: string;
  name: string;
  image: string;
  floorPriceLamports: bigint;
  priceUsd: string;
  /** NFTs known in the collection. */
  supply: number;
  /** NFT mints of the collection known to the source (used to map mints to collections). */
  nftMints: string[];
}

export interface Catalog {
  tokens: CatalogToken[];
  collections: CatalogCollection[];
}

/**
 * Where currencies and collections come from. On localnet: the demo world the localnet seeded
 * (`localnet_demoWorld`). In production a DAS-style asset API plus a collection price feed would
 * implement the same interface.
 */
export interface CatalogSource {
  readonly name: string;
  fetchCatalog(): Promise<Catalog>;
}

interface WireDemoWorld {
  tokens: {
    mint: string;
    symbol: string;
    name: string;
    decimals: number;
    image: string;
    priceUsd: string;
    role: "currency" | "collateral";
  }[];
  collections: {
    collectionId: string;
    symbol: string;
    name: string;
    image: string;
    floorPriceLamports: string;
    priceUsd: string;
    nfts: { mint: string }[];
  }[];
}

/** Reads the demo world from the localnet's admin method `localnet_demoWorld`. */
export function createLocalnetCatalogSource(rpc: RpcClient): CatalogSource {
  return {
    name: "localnet",
    async fetchCatalog() {
      const world = await rpc.call<WireDemoWorld>("localnet_demoWorld", []);
      return {
        tokens: world.tokens.map((t) => ({
          mint: t.mint,
          symbol: t.symbol,
          name: t.name,
          decimals: t.decimals,
          image: t.image,
          priceUsd: t.priceUsd,
          role: t.role,
        })),
        collections: world.collections.map((c) => ({
          collectionId: c.collectionId,
          symbol: c.symbol,
          name: c.name,
          image: c.image,
          floorPriceLamports: BigInt(c.floorPriceLamports),
          priceUsd: c.priceUsd,
          supply: c.nfts.length,
          nftMints: c.nfts.map((n) => n.mint),
        })),
      };
    },
  };
}
