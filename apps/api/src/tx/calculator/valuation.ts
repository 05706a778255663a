import { floorDiv } from "@cistern/protocol";
import type { AppContext } from "../../app-context.ts";
import { getValuation, type Valuation } from "../../catalog/token-info.ts";
import type { ApiError } from "../../errors/api-error.ts";
import { parseUsdNanos } from "../../prices/price-source.ts";
import { noReliablePrice } from "../../valuation/no-reliable-price.ts";
import type { ValuationService } from "../../valuation/valuation-service.ts";

/** Wrapped SOL: collection floor prices are in lamports of it. */
const SOL_MINT = "So11111111111111111111111111111111111111112";

/** Prices and decimals at one moment, with the conversions quotes and attestations need. */
export interface TxValuation {
  decimals(mint: string): number;
  /** USD price of one whole token as the price service gives it (decimal string), if known. */
  priceText(mint: string): string | undefined;
  /** Micro-USD per whole token (what the oracle attests), if known. */
  priceMicroUsd(mint: string): bigint | undefined;
  /** The valuation service's value of one NFT of a collection in lamports (0 when there is no reliable value). */
  floorLamports(collection: string): bigint;
  /**
   * Why a collection or token (collateral, currency) cannot be valued right now: the 2010 refusal naming it, or
   * null when its price is usable (fresh, tight, and for a collection deep enough).
   */
  refusal(id: string): ApiError | null;
  /** Name of a collection or token in the catalogue. */
  name(id: string): string | undefined;
  /**
   * `amount` base units of `fromMint` in base units of `toMint` at current prices, rounded down
   * (collateral is never over-valued); null when a price is missing.
   */
  convert(amount: bigint, fromMint: string, toMint: string): bigint | null;
  /** Value of one NFT of `collection` (its floor) in base units of `currency`; null when unknown. */
  nftValue(collection: string, currency: string): bigint | null;
  /** USD value (micro-USD, rounded down) of `amount` base units of `mint` at the attested price. */
  usdMicro(amount: bigint, mint: string): bigint | null;
}

/** The last valuation built per app, with the catalogue and the valuation snapshot it was built from. */
const latest = new WeakMap<
  AppContext,
  { catalog: unknown; prices: unknown; snapshot: unknown; valuation: TxValuation }
>();

/**
 * A valuation over the read side's catalogue and price service. The catalogue and each price snapshot are
 * immutable objects replaced on refresh, so the valuation built for them is reused until either is replaced
 * (a quote search asks for one many times a request).
 */
export async function loadTxValuation(ctx: AppContext): Promise<TxValuation> {
  const catalog = await ctx.catalog.getCatalog();
  await ctx.prices.ensureLoaded();
  const prices = ctx.prices.getPrices();
  const snapshot = ctx.prices.snapshot();
  const hit = latest.get(ctx);
  if (hit !== undefined && hit.catalog === catalog && hit.prices === prices && hit.snapshot === snapshot)
    return hit.valuation;
  const valuation = buildTxValuation(await getValuation(ctx), ctx.prices);
  latest.set(ctx, { catalog, prices, snapshot, valuation });
  return valuation;
}

function buildTxValuation(v: Valuation, service: ValuationService): TxValuation {
  const names = new Map<string, string>();
  for (const t of v.catalog.tokens) names.set(t.mint, t.symbol);
  for (const c of v.catalog.collections) names.set(c.collectionId, c.name);
  const nanosCache = new Map<string, bigint | undefined>();
  const nanos = (mint: string): bigint | undefined => {
    if (nanosCache.has(mint)) return nanosCache.get(mint);
    const text = v.price(mint);
    let value: bigint | undefined;
    try {
      value = text === undefined ? undefined : parseUsdNanos(text);
    } catch {
      value = undefined;
    }
    nanosCache.set(mint, value);
    return value;
  };
  const decimalsCache = new Map<string, number>();
  const decimals = (mint: string): number => {
    let d = decimalsCache.get(mint);
    if (d === undefined) {
      d = v.decimals(mint);
      decimalsCache.set(mint, d);
    }
    return d;
  };
  const self: TxValuation = {
    decimals,
    priceText: (mint) => v.price(mint),
    priceMicroUsd(mint) {
      const n = nanos(mint);
      return n === undefined ? undefined : n / 1000n;
    },
    floorLamports: (collection) => v.floorLamports(collection),
    name: (id) => names.get(id),
    refusal(id) {
      const isCollection = v.catalog.collections.some((c) => c.collectionId === id);
      const checked = isCollection ? service.collection(id) : service.token(id);
      return checked.ok ? null : noReliablePrice(names.get(id) ?? "this asset", checked.reason);
    },
    convert(amount, fromMint, toMint) {
      if (fromMint === toMint) return amount;
      const from = nanos(fromMint);
      const to = nanos(toMint);
      if (from === undefined || to === undefined || to === 0n) return null;
      return floorDiv(
        amount * from * 10n ** BigInt(decimals(toMint)),
        10n ** BigInt(decimals(fromMint)) * to,
      );
    },
    nftValue(collection, currency) {
      const floor = v.floorLamports(collection);
      if (floor <= 0n) return null;
      return self.convert(floor, SOL_MINT, currency);
    },
    usdMicro(amount, mint) {
      const price = self.priceMicroUsd(mint);
      if (price === undefined) return null;
      return floorDiv(amount * price, 10n ** BigInt(decimals(mint)));
    },
  };
  return self;
}
