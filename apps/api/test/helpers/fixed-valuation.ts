import { DEMO_WORLD } from "@cistern/localnet";
import { parseUsdNanos } from "../../src/prices/price-source.ts";
import type { ValuationSources } from "../../src/valuation/valuation-sources.ts";

/** Fixed prices a test stands on: USD per whole token by mint, and one NFT's value in lamports by collection. */
export interface FixedPrices {
  tokens: Record<string, string>;
  collections: Record<string, bigint>;
}

/** The demo world's seeded prices (test data: the product values the localnet from its market and pools). */
export const DEMO_PRICES: FixedPrices = {
  tokens: Object.fromEntries(DEMO_WORLD.tokens.map((t) => [t.mint, t.priceUsd])),
  collections: Object.fromEntries(
    DEMO_WORLD.collections.map((c) => [c.collectionId, BigInt(c.floorPriceLamports)]),
  ),
};

/**
 * A test double of the valuation sources: every refresh answers `prices` as just observed (so the guards pass),
 * with no confidence interval and a deep book. Tests of the read and write paths stand on it; the valuation
 * tests use the real sources (the local market and swap pools, the production adapters against local servers).
 */
export function createFixedValuationSources(
  prices: FixedPrices,
  now: () => number = () => Date.now() / 1000,
): ValuationSources {
  return {
    tokens: {
      name: "fixed",
      refreshMs: 1_000,
      fetchTokens: async (tokens) =>
        new Map(
          tokens
            .filter((t) => prices.tokens[t.mint] !== undefined)
            .map((t) => [
              t.mint,
              {
                mint: t.mint,
                priceNanos: parseUsdNanos(prices.tokens[t.mint]!),
                confidenceNanos: 0n,
                observedAt: now(),
                source: "fixed",
              },
            ]),
        ),
    },
    collections: {
      name: "fixed",
      refreshMs: 1_000,
      fetchCollections: async (collections) =>
        new Map(
          collections
            .filter((c) => prices.collections[c.collectionId] !== undefined)
            .map((c) => {
              const value = prices.collections[c.collectionId]!;
              return [
                c.collectionId,
                {
                  collection: c.collectionId,
                  valueLamports: value,
                  floorLamports: value,
                  bestBidLamports: value,
                  listings: 2,
                  bids: 1,
                  refusal: null,
                  observedAt: now(),
                  source: "fixed",
                },
              ];
            }),
        ),
    },
  };
}
