/**
 * What the valuation service holds: one reading per token (USD) and per NFT collection (SOL), each with the time it
 * was observed, so the guards (age, confidence, depth) are applied where a price is used.
 */

/** A token's USD price as a source observed it. */
export interface TokenReading {
  mint: string;
  /** USD per whole token, nano-USD (9 decimals). */
  priceNanos: bigint;
  /** Half-width of the price's uncertainty, nano-USD (Pyth's conf; the pools: half the window's spread). */
  confidenceNanos: bigint;
  /** Epoch seconds the price was observed or published. */
  observedAt: number;
  /** Which source said it ("swap-pools", "pyth"...). */
  source: string;
}

/** A collection's value in SOL as a source observed it, decided by the conservative rule (nft-value-rule.ts). */
export interface CollectionReading {
  collection: string;
  /** What one NFT of the collection is worth, lamports; null when the rule refuses (`refusal` says why). */
  valueLamports: bigint | null;
  /** Cheapest listing and best collection bid the rule saw, lamports (null: none). */
  floorLamports: bigint | null;
  bestBidLamports: bigint | null;
  listings: number;
  bids: number;
  refusal: string | null;
  observedAt: number;
  source: string;
}

/** Token prices for the catalogue's tokens; a token the source does not know is left out. */
export interface TokenPriceSource {
  readonly name: string;
  /** How often the service asks, milliseconds (a pool TWAP wants one reading a slot). */
  readonly refreshMs: number;
  fetchTokens(tokens: readonly CatalogTokenRef[]): Promise<Map<string, TokenReading>>;
}

/** Collection values for the catalogue's collections; `tokens` are the reliable token prices of this refresh. */
export interface CollectionValueSource {
  readonly name: string;
  readonly refreshMs: number;
  fetchCollections(
    collections: readonly CatalogCollectionRef[],
    tokens: ReadonlyMap<string, TokenReading>,
  ): Promise<Map<string, CollectionReading>>;
}

/** The catalogue fields a source needs to find a token's price. */
export interface CatalogTokenRef {
  mint: string;
  decimals: number;
  symbol: string;
  /** Pyth price feed id (hex), production only. */
  pythFeedId?: string | undefined;
}

/** The catalogue fields a source needs to find a collection's market. */
export interface CatalogCollectionRef {
  collectionId: string;
  name: string;
  magicEdenSlug: string;
  tensorSlug: string;
}

/** When a price may be used (configuration: VALUATION_MAX_AGE_SECONDS, VALUATION_MAX_CONFIDENCE_BPS). */
export interface PriceGuards {
  maxAgeSeconds: number;
  /** Widest confidence accepted, basis points of the price. */
  maxConfidenceBps: number;
}

/** A price that may be used, or why not. */
export type Checked<T> =
  | { ok: true; value: T }
  | { ok: false; reason: "missing" | "stale" | "wide" | string };
