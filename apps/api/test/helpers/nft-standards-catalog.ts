import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_WORLD } from "@cistern/localnet";
import { DEMO_PRICES, type FixedPrices } from "./fixed-valuation.ts";

/** The localnet's demo pNFT and Core collections (the faucet gives a wallet one of each). */
export const DEMO_PNFT_COLLECTION = DEMO_WORLD.programmableCollections[0]!;
export const DEMO_CORE_COLLECTION = DEMO_WORLD.coreCollections[0]!;

/**
 * Writes into `dir` the localnet catalogue with the demo pNFT and Core collections added (the shipped one lists the
 * classic collections, the ones the local NFT market values) and returns its path, for CATALOG_FILE.
 */
export function writeCatalogWithAllStandards(dir: string): string {
  const shipped = JSON.parse(
    readFileSync(new URL("../../src/catalog/catalogs/localnet.json", import.meta.url), "utf8"),
  ) as { collections: { collectionId: string }[] };
  const entry = (
    c: { collectionId: string; name: string; image: string },
    symbol: string,
    standard: string,
  ) => ({
    collectionId: c.collectionId,
    symbol,
    name: c.name,
    image: c.image,
    standard,
    magicEdenSlug: "",
    tensorSlug: "",
    supply: 0,
  });
  // the shipped catalogue lists them too now: added only when missing
  for (const added of [
    entry(DEMO_PNFT_COLLECTION, DEMO_PNFT_COLLECTION.symbol, "ProgrammableNonFungible"),
    entry(DEMO_CORE_COLLECTION, DEMO_CORE_COLLECTION.symbol, "Core"),
  ])
    if (!shipped.collections.some((c) => c.collectionId === added.collectionId))
      shipped.collections.push(added);
  const file = join(dir, "catalog-all-standards.json");
  writeFileSync(file, JSON.stringify(shipped));
  return file;
}

/** The demo world's fixed prices with the pNFT and Core collections worth 10 SOL each (test data). */
export const ALL_STANDARDS_PRICES: FixedPrices = {
  tokens: DEMO_PRICES.tokens,
  collections: {
    ...DEMO_PRICES.collections,
    [DEMO_PNFT_COLLECTION.collectionId]: 10_000_000_000n,
    [DEMO_CORE_COLLECTION.collectionId]: 10_000_000_000n,
  },
};

/** The localnet's demo compressed collection (Cistern Shells; the faucet gives a wallet one leaf). */
export const DEMO_COMPRESSED_COLLECTION = DEMO_WORLD.compressedCollections[0]!;

/** Writes into `dir` the localnet catalogue with the compressed collection added and returns its path, for
 * CATALOG_FILE. */
export function writeCatalogWithShells(dir: string): string {
  const shipped = JSON.parse(
    readFileSync(new URL("../../src/catalog/catalogs/localnet.json", import.meta.url), "utf8"),
  ) as { collections: { collectionId: string }[] };
  const shells = DEMO_COMPRESSED_COLLECTION;
  if (!shipped.collections.some((c) => c.collectionId === shells.collectionId))
    shipped.collections.push({
      collectionId: shells.collectionId,
      symbol: shells.symbol,
      name: shells.name,
      image: shells.image,
      standard: "Compressed",
      magicEdenSlug: "",
      tensorSlug: "",
      supply: 0,
    } as { collectionId: string });
  const file = join(dir, "catalog-shells.json");
  writeFileSync(file, JSON.stringify(shipped));
  return file;
}
