import type { FastifyBaseLogger } from "fastify";
import type { Catalog } from "../assets/catalog-source.ts";
import { formatUsdNanos, type UsdPrice } from "../prices/price-source.ts";
import type {
  Checked,
  CollectionReading,
  CollectionValueSource,
  PriceGuards,
  TokenPriceSource,
  TokenReading,
} from "./valuation-types.ts";

/** The readings of one refresh: replaced whole, never changed (consumers cache on its identity). */
export interface ValuationSnapshot {
  tokens: ReadonlyMap<string, TokenReading>;
  collections: ReadonlyMap<string, CollectionReading>;
}

/**
 * The one place prices come from: quotes, the oracle's co-signature, the read pages and the keepers all ask it.
 * Token prices and collection values are refreshed from their sources on timers; a failed refresh keeps the old
 * readings, which the guards then refuse once they are older than the configured age. Nothing falls back to a
 * constant: a price that is missing, stale or too uncertain is refused with the reason.
 */
export interface ValuationService {
  readonly sourceName: string;
  /** The guarded price of a token (nano-USD per whole token). */
  token(mint: string): Checked<TokenReading>;
  /** The guarded value of one NFT of a collection (lamports of SOL). */
  collection(collectionId: string): Checked<CollectionReading & { valueLamports: bigint }>;
  /** The latest readings, unguarded (for a page that shows why a value is missing). */
  snapshot(): ValuationSnapshot;
  /** Reliable token prices as USD decimal strings; the same map until a refresh or a guard changes it. */
  getPrices(): ReadonlyMap<string, UsdPrice>;
  /** Epoch seconds of the last successful token refresh, or null. */
  getUpdatedAt(): number | null;
  /** Reads the sources now (tokens, then collections valued with those tokens). */
  refresh(): Promise<void>;
  /** Refreshes once if never attempted. */
  ensureLoaded(): Promise<void>;
  /** Refreshes on the sources' own periods. */
  start(): void;
  stop(): void;
}

export function createValuationService(input: {
  catalog: () => Promise<Catalog>;
  tokens: TokenPriceSource;
  collections: CollectionValueSource;
  guards: PriceGuards;
  now: () => number;
  log: Pick<FastifyBaseLogger, "warn">;
}): ValuationService {
  const { guards, now, log } = input;
  let snap: ValuationSnapshot = { tokens: new Map(), collections: new Map() };
  let updatedAt: number | null = null;
  let attempted = false;
  let inFlight: Promise<void> | undefined;
  const timers: NodeJS.Timeout[] = [];
  let reliable: { from: ValuationSnapshot; until: number; prices: Map<string, UsdPrice> } | undefined;

  function checkToken(reading: TokenReading | undefined, at: number): Checked<TokenReading> {
    if (reading === undefined) return { ok: false, reason: "missing" };
    if (at - reading.observedAt > guards.maxAgeSeconds) return { ok: false, reason: "stale" };
    if (reading.priceNanos <= 0n) return { ok: false, reason: "missing" };
    if (reading.confidenceNanos * 10_000n > BigInt(guards.maxConfidenceBps) * reading.priceNanos)
      return { ok: false, reason: "wide" };
    return { ok: true, value: reading };
  }

  async function refreshTokens(): Promise<void> {
    const catalog = await input.catalog();
    const tokens = await input.tokens.fetchTokens(catalog.tokens);
    snap = { ...snap, tokens };
    updatedAt = Math.floor(now());
  }

  async function refreshCollections(): Promise<void> {
    const catalog = await input.catalog();
    const at = now();
    const usable = new Map<string, TokenReading>();
    for (const [mint, reading] of snap.tokens) if (checkToken(reading, at).ok) usable.set(mint, reading);
    const collections = await input.collections.fetchCollections(catalog.collections, usable);
    snap = { ...snap, collections };
  }

  const warnedAt = new Map<string, number>();
  async function guarded(what: string, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      // a source that keeps failing is logged once a minute, not at every refresh
      const at = now();
      if (at - (warnedAt.get(what) ?? Number.NEGATIVE_INFINITY) < 60) return;
      warnedAt.set(what, at);
      log.warn({ err: error }, `${what} refresh failed`);
    }
  }

  const service: ValuationService = {
    sourceName: input.tokens.name,
    token: (mint) => checkToken(snap.tokens.get(mint), now()),
    collection(collectionId) {
      const reading = snap.collections.get(collectionId);
      if (reading === undefined) return { ok: false, reason: "missing" };
      if (now() - reading.observedAt > guards.maxAgeSeconds) return { ok: false, reason: "stale" };
      if (reading.valueLamports === null || reading.valueLamports <= 0n)
        return { ok: false, reason: reading.refusal ?? "missing" };
      return { ok: true, value: reading as CollectionReading & { valueLamports: bigint } };
    },
    snapshot: () => snap,
    getPrices() {
      const at = now();
      if (reliable !== undefined && reliable.from === snap && at < reliable.until) return reliable.prices;
      const prices = new Map<string, UsdPrice>();
      let until = Number.POSITIVE_INFINITY;
      for (const [mint, reading] of snap.tokens) {
        if (!checkToken(reading, at).ok) continue;
        prices.set(mint, formatUsdNanos(reading.priceNanos));
        until = Math.min(until, reading.observedAt + guards.maxAgeSeconds);
      }
      reliable = { from: snap, until, prices };
      return prices;
    },
    getUpdatedAt: () => updatedAt,
    refresh() {
      attempted = true;
      inFlight ??= (async () => {
        await guarded(`token prices from ${input.tokens.name}`, refreshTokens);
        await guarded(`collection values from ${input.collections.name}`, refreshCollections);
      })().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    async ensureLoaded() {
      if (!attempted) await service.refresh();
    },
    start() {
      if (timers.length > 0) return;
      for (const source of [input.tokens, input.collections])
        if (source.refreshMs >= guards.maxAgeSeconds * 1000)
          log.warn(
            `${source.name} is read every ${source.refreshMs} ms but a price older than ${guards.maxAgeSeconds} s is ` +
              "refused: its prices go stale between reads (shorten the refresh or lengthen VALUATION_MAX_AGE_SECONDS)",
          );
      void service.refresh();
      const every = (ms: number, what: string, step: () => Promise<void>) => {
        let running = false;
        const timer = setInterval(() => {
          if (running) return;
          running = true;
          void guarded(what, step).finally(() => {
            running = false;
          });
        }, ms);
        timer.unref();
        timers.push(timer);
      };
      every(input.tokens.refreshMs, `token prices from ${input.tokens.name}`, refreshTokens);
      every(
        input.collections.refreshMs,
        `collection values from ${input.collections.name}`,
        refreshCollections,
      );
    },
    stop() {
      for (const t of timers.splice(0)) clearInterval(t);
    },
  };
  return service;
}
