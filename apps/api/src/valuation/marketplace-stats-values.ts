import { fetchUpstream } from "../http/upstream-fetch.ts";
import { decideNftValue, type NftBook } from "./nft-value-rule.ts";
import type { CatalogCollectionRef, CollectionReading, CollectionValueSource } from "./valuation-types.ts";

/** Magic Eden's `GET /v2/collections/{symbol}/stats` (the fields read here; prices in lamports). */
export interface MagicEdenStats {
  symbol: string;
  floorPrice?: number | null;
  listedCount?: number | null;
}

/** Tensor's `GET /collections/find_collection?filter={slug}` (the fields read here; prices in lamports). */
export interface TensorFindCollection {
  collId: string;
  slug: string;
  stats?: { buyNowPrice?: string | null; sellNowPrice?: string | null; numListed?: number | null };
}

interface Marketplaces {
  magicEden: { baseUrl: string; apiKey?: string | undefined };
  tensor: { baseUrl: string; apiKey?: string | undefined };
  refreshMs: number;
  now?: () => number;
}

const lamports = (v: unknown): bigint | null =>
  typeof v === "number" && Number.isSafeInteger(v) && v > 0
    ? BigInt(v)
    : typeof v === "string" && /^\d+$/.test(v) && v !== "0"
      ? BigInt(v)
      : null;

async function getJson<T>(url: URL, headers: Record<string, string>, what: string): Promise<T | null> {
  const response = await fetchUpstream(
    url,
    { headers: { accept: "application/json", ...headers } },
    {
      what,
      timeoutMs: 10_000,
      retries: 1,
    },
  );
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`${what} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * Collection values in production from the marketplaces' collection statistics, by the catalogue's slugs: Magic
 * Eden's stats (floor, listed count; key as a bearer token) and Tensor's find_collection stats (buy-now = floor,
 * sell-now = best bid, listed count; key in `x-tensor-api-key`). The book the rule (nft-value-rule.ts) decides on:
 * the lower of the two floors, the larger listed count (a listing on both is counted once), Tensor's best bid.
 * A collection neither marketplace knows has no value.
 */
export function createMarketplaceStatsValueSource(options: Marketplaces): CollectionValueSource {
  const now = options.now ?? (() => Date.now() / 1000);
  async function magicEden(c: CatalogCollectionRef): Promise<MagicEdenStats | null> {
    if (c.magicEdenSlug === "") return null;
    const url = new URL(
      `${options.magicEden.baseUrl}/v2/collections/${encodeURIComponent(c.magicEdenSlug)}/stats`,
    );
    const key = options.magicEden.apiKey;
    return getJson<MagicEdenStats>(url, key ? { authorization: `Bearer ${key}` } : {}, "Magic Eden stats");
  }
  async function tensor(c: CatalogCollectionRef): Promise<TensorFindCollection | null> {
    if (c.tensorSlug === "") return null;
    const url = new URL(`${options.tensor.baseUrl}/collections/find_collection`);
    url.searchParams.set("filter", c.tensorSlug);
    const key = options.tensor.apiKey;
    return getJson<TensorFindCollection>(
      url,
      key ? { "x-tensor-api-key": key } : {},
      "Tensor find_collection",
    );
  }
  return {
    name: "marketplaces",
    refreshMs: options.refreshMs,
    async fetchCollections(collections) {
      const out = new Map<string, CollectionReading>();
      await Promise.all(
        collections.map(async (c) => {
          const [me, tn] = await Promise.all([magicEden(c), tensor(c)]);
          if (me === null && tn === null) return;
          const floors = [lamports(me?.floorPrice), lamports(tn?.stats?.buyNowPrice)].filter(
            (f) => f !== null,
          );
          const bid = lamports(tn?.stats?.sellNowPrice);
          const book: NftBook = {
            floorLamports: floors.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0] ?? null,
            bestBidLamports: bid,
            listings: Math.max(me?.listedCount ?? 0, tn?.stats?.numListed ?? 0),
            // the stats name the best bid, not how many stand behind it: one when there is one
            bids: bid === null ? 0 : 1,
          };
          out.set(c.collectionId, {
            collection: c.collectionId,
            ...decideNftValue(book),
            observedAt: now(),
            source: "marketplaces",
          });
        }),
      );
      return out;
    },
  };
}
