import { getCurrencyByMint } from "@cistern/protocol";
import type { AppContext } from "../app-context.ts";
import type { Catalog } from "../assets/catalog-source.ts";

/** Decimals of a mint: the protocol currency table first, then the catalogue; NFTs and unknowns 0. */
export function getMintDecimals(catalog: Catalog, mint: string): number {
  const currency = getCurrencyByMint(mint);
  if (currency !== undefined) return currency.decimals;
  return catalog.tokens.find((t) => t.mint === mint)?.decimals ?? 0;
}

/** Everything the read routes need to value amounts: decimals by mint and current USD prices. */
export interface Valuation {
  catalog: Catalog;
  decimals(mint: string): number;
  price(mint: string): string | undefined;
  /** Floor price of a collection in lamports of SOL (0 when unknown). */
  floorLamports(collection: string): bigint;
}

/** Builds a valuation snapshot from the catalogue and the price service. */
export async function getValuation(ctx: AppContext): Promise<Valuation> {
  const catalog = await ctx.catalog.getCatalog();
  // Before the first refresh (fresh process, or tests without the timer) load prices once.
  await ctx.prices.ensureLoaded();
  const prices = ctx.prices.getPrices();
  const floors = new Map(catalog.collections.map((c) => [c.collectionId, c.floorPriceLamports]));
  return {
    catalog,
    decimals: (mint) => getMintDecimals(catalog, mint),
    price: (mint) => prices.get(mint),
    floorLamports: (collection) => floors.get(collection) ?? 0n,
  };
}
