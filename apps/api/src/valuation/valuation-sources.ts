import { address } from "@cistern/sdk";
import type { Catalog } from "../assets/catalog-source.ts";
import { getMintDecimals } from "../catalog/token-info.ts";
import type { RpcClient } from "../solana/rpc-client.ts";
import { createLocalNftMarketVenue } from "../venues/nft/local-nft-market-venue.ts";
import { createMarketBookValueSource } from "./market-book-values.ts";
import { createMarketplaceStatsValueSource } from "./marketplace-stats-values.ts";
import { createPythHermesPriceSource } from "./pyth-hermes-prices.ts";
import { createSwapPoolPriceSource } from "./swap-pool-prices.ts";
import type { ValuationConfig } from "./valuation-config.ts";
import type { CollectionValueSource, TokenPriceSource } from "./valuation-types.ts";

export interface ValuationSources {
  tokens: TokenPriceSource;
  collections: CollectionValueSource;
}

/** Sources that know nothing (the local ones without a lending program to find the venues by). */
const NO_TOKENS: TokenPriceSource = { name: "none", refreshMs: 60_000, fetchTokens: async () => new Map() };
const NO_COLLECTIONS: CollectionValueSource = {
  name: "none",
  refreshMs: 60_000,
  fetchCollections: async () => new Map(),
};

/** The configured sources: on-chain venues found through the lending program's Venues, or the production APIs. */
export function createValuationSources(input: {
  config: ValuationConfig;
  rpc: RpcClient;
  lendingProgramId: string | undefined;
  catalog: () => Catalog | undefined;
  now: () => number;
}): ValuationSources {
  const { config, rpc, now } = input;
  const program = input.lendingProgramId === undefined ? undefined : address(input.lendingProgramId);
  const tokens =
    config.tokenSource === "pyth"
      ? createPythHermesPriceSource({ baseUrl: config.hermesUrl, refreshMs: config.tokenRefreshMs })
      : program === undefined
        ? NO_TOKENS
        : createSwapPoolPriceSource(rpc, program, {
            windowSlots: config.twapWindowSlots,
            refreshMs: config.tokenRefreshMs,
            now,
          });
  const collections =
    config.collectionSource === "marketplaces"
      ? createMarketplaceStatsValueSource({
          magicEden: { baseUrl: config.magicEdenApiUrl, apiKey: config.magicEdenApiKey },
          tensor: { baseUrl: config.tensorApiUrl, apiKey: config.tensorApiKey },
          refreshMs: config.collectionRefreshMs,
          now,
        })
      : program === undefined
        ? NO_COLLECTIONS
        : createMarketBookValueSource(createLocalNftMarketVenue(rpc, program), {
            refreshMs: config.collectionRefreshMs,
            now,
            decimals: (mint) => getMintDecimals(input.catalog() ?? { tokens: [], collections: [] }, mint),
          });
  return { tokens, collections };
}
