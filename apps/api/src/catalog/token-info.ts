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
  /**
   * What one NFT of a collection is worth in lamports of SOL, as quotes value it (the valuation service's
   * conservative value; 0 when there is no reliable value right now).
   */
  floorLamports(collection: string): bigint;
}

/** Builds a valuation snapshot from the catalogue and the price service. */
export async function getValuation(ctx: AppContext): Promise<Valuation> {
  const catalog = await ctx.catalog.getCatalog();
  // Before the first refresh (fresh process, or tests without the timer) load prices once.
  await ctx.prices.ensureLoaded();
  const prices = ctx.prices.getPrices();
  return {
    catalog,
    decimals: (mint) => getMintDecimals(catalog, mint),
    price: (mint) => prices.get(mint),
    floorLamports: (collection) => {
      const value = ctx.prices.collection(collection);
      return value.ok ? value.value.valueLamports : 0n;
    },
  };
}
