import type { Database } from "../db/database.ts";
import type { Catalog, CatalogSource } from "./catalog-source.ts";

/** Cached catalogue, kept in the database (currencies, collections) with first-seen / changed times. */
export interface CatalogService {
  /** The catalogue; loads it on first use and retries a failed load on the next call. */
  getCatalog(): Promise<Catalog>;
  /** Reloads from the source and writes the tables. */
  refresh(): Promise<Catalog>;
}

const EMPTY: Catalog = { tokens: [], collections: [] };
/** After a failed load, requests get the last catalogue (or an empty one) for this long before a retry. */
export const CATALOG_RETRY_SECONDS = 10;

/**
 * An image for a catalogue entry that has none, from the asset API (DAS getAsset): a collection's is its collection
 * NFT's, a token's its mint's; null when the asset API does not know it (the entry keeps no image).
 */
export type AssetImageLookup = (id: string) => Promise<string | null>;

/** `entry` with the asset API's image when the catalogue file gives it none; a failed lookup leaves it as it is. */
async function withImage<T extends { image: string }>(
  entry: T,
  id: string,
  lookup: AssetImageLookup,
): Promise<T> {
  if (entry.image !== "") return entry;
  const image = await lookup(id).catch(() => null);
  return image ? { ...entry, image } : entry;
}

/** Fills the images the catalogue file leaves out (tokens and collections) from the asset API. */
async function withImages(catalog: Catalog, lookup: AssetImageLookup | undefined): Promise<Catalog> {
  if (lookup === undefined) return catalog;
  const [tokens, collections] = await Promise.all([
    Promise.all(catalog.tokens.map((t) => withImage(t, t.mint, lookup))),
    Promise.all(catalog.collections.map((c) => withImage(c, c.collectionId, lookup))),
  ]);
  return { tokens, collections };
}

/** Creates the catalogue service; a source failure yields an empty catalogue (logged by the caller). */
export function createCatalogService(
  source: CatalogSource,
  db: Database,
  now: () => number,
  onError: (error: unknown) => void,
  imageOf?: AssetImageLookup,
): CatalogService {
  let cached: Catalog | undefined;
  let loading: Promise<Catalog> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  async function load(): Promise<Catalog> {
    try {
      const catalog = await withImages(await source.fetchCatalog(), imageOf);
      await store(db, catalog, Math.floor(now()));
      cached = catalog;
      return catalog;
    } catch (error) {
      failedAt = now();
      onError(error);
      return cached ?? EMPTY;
    }
  }
  return {
    getCatalog() {
      if (cached !== undefined) return Promise.resolve(cached);
      if (now() - failedAt < CATALOG_RETRY_SECONDS) return Promise.resolve(EMPTY);
      loading ??= load().finally(() => {
        loading = undefined;
      });
      return loading;
    },
    refresh: load,
  };
}

async function store(db: Database, catalog: Catalog, nowSeconds: number): Promise<void> {
  await db.transaction(async (tx) => {
    for (const t of catalog.tokens) {
      await tx.query(
        `INSERT INTO currencies (mint, symbol, name, decimals, image, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (mint) DO UPDATE SET symbol = EXCLUDED.symbol, name = EXCLUDED.name,
           decimals = EXCLUDED.decimals, image = EXCLUDED.image, updated_at = EXCLUDED.updated_at
         WHERE (currencies.symbol, currencies.name, currencies.decimals, currencies.image)
           IS DISTINCT FROM (EXCLUDED.symbol, EXCLUDED.name, EXCLUDED.decimals, EXCLUDED.image)`,
        [t.mint, t.symbol, t.name, t.decimals, t.image, nowSeconds],
      );
    }
    for (const c of catalog.collections) {
      // floor_price stays 0: a collection's value is the valuation service's, read live, never stored
      await tx.query(
        `INSERT INTO collections (collection_id, name, symbol, image, banner, url, floor_price, floor_currency,
           supply, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $4, '', 0, $5, $6, $7, $7)
         ON CONFLICT (collection_id) DO UPDATE SET name = EXCLUDED.name, symbol = EXCLUDED.symbol,
           image = EXCLUDED.image, banner = EXCLUDED.banner, supply = EXCLUDED.supply, updated_at = EXCLUDED.updated_at
         WHERE (collections.name, collections.symbol, collections.image, collections.supply)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.symbol, EXCLUDED.image, EXCLUDED.supply)`,
        [c.collectionId, c.name, c.symbol, c.image, SOL_MINT, c.supply, nowSeconds],
      );
    }
  });
}

/** Collection floor prices are quoted in SOL (lamports). */
export const SOL_MINT = "So11111111111111111111111111111111111111112";
