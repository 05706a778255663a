import { fetchUpstream } from "../http/upstream-fetch.ts";
import type { TokenPriceSource, TokenReading } from "./valuation-types.ts";

/** One entry of Hermes' `GET /v2/updates/price/latest?ids[]=...&parsed=true` answer (the fields read here). */
export interface HermesParsedPrice {
  /** Feed id, hex without 0x. */
  id: string;
  price: { price: string; conf: string; expo: number; publish_time: number };
}

/** nano-USD of a Pyth fixed-point figure `value x 10^expo`, rounded down. */
function toNanos(value: bigint, expo: number): bigint {
  const shift = expo + 9;
  return shift >= 0 ? value * 10n ** BigInt(shift) : value / 10n ** BigInt(-shift);
}

/**
 * Token prices from Pyth's Hermes API: the catalogue's `pythFeedId` of each token, one request for all
 * (`GET /v2/updates/price/latest?ids[]=<id>&...&parsed=true`), price and confidence scaled by `expo`, the age from
 * `publish_time`. A token without a feed id, or a negative price, is left out (no price). `apiKey` is sent as a
 * bearer token when the deployment's Hermes provider needs one.
 */
export function createPythHermesPriceSource(options: {
  baseUrl: string;
  apiKey?: string | undefined;
  refreshMs: number;
}): TokenPriceSource {
  return {
    name: "pyth",
    refreshMs: options.refreshMs,
    async fetchTokens(tokens) {
      const byFeed = new Map<string, string>();
      for (const t of tokens)
        if (t.pythFeedId) byFeed.set(t.pythFeedId.replace(/^0x/, "").toLowerCase(), t.mint);
      const out = new Map<string, TokenReading>();
      if (byFeed.size === 0) return out;
      const url = new URL(`${options.baseUrl}/v2/updates/price/latest`);
      for (const id of byFeed.keys()) url.searchParams.append("ids[]", id);
      url.searchParams.set("parsed", "true");
      const response = await fetchUpstream(
        url,
        {
          headers: {
            accept: "application/json",
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
        },
        { what: "Pyth Hermes", timeoutMs: 10_000, retries: 1 },
      );
      if (!response.ok) throw new Error(`Pyth Hermes answered ${response.status}`);
      const body = (await response.json()) as { parsed?: HermesParsedPrice[] };
      for (const p of body.parsed ?? []) {
        const mint = byFeed.get(p.id.replace(/^0x/, "").toLowerCase());
        if (mint === undefined || !/^-?\d+$/.test(p.price.price) || !/^\d+$/.test(p.price.conf)) continue;
        const price = BigInt(p.price.price);
        if (price <= 0n || !Number.isInteger(p.price.expo)) continue;
        out.set(mint, {
          mint,
          priceNanos: toNanos(price, p.price.expo),
          // rounded up: the confidence is never understated
          confidenceNanos: toNanos(BigInt(p.price.conf), p.price.expo) + 1n,
          observedAt: p.price.publish_time,
          source: "pyth",
        });
      }
      return out;
    },
  };
}
