import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { fetchUpstream } from "../http/upstream-fetch.ts";
import { formatUsdNanos, type PriceSource, parseUsdNanos, type UsdPrice } from "./price-source.ts";

/** Most mints asked for in one request to the price API. */
export const HTTP_PRICE_BATCH = 100;

/**
 * Adapter for a production price API: `GET <baseUrl>?ids=<mint,mint,...>` answering
 * `{ data: { [mint]: { price } } }` (Jupiter price v2 style) or `{ prices: { [mint]: { price } } }`,
 * price as a number or a decimal string. Entries with an unreadable price are left out.
 */
export function createHttpPriceSource(
  baseUrl: string,
  timeoutMs = 30_000,
  retry: { retries?: number; backoffMs?: number } = {},
): PriceSource {
  async function fetchBatch(mints: readonly string[]): Promise<Map<string, UsdPrice>> {
    const url = new URL(baseUrl);
    if (mints.length > 0) url.searchParams.set("ids", mints.join(","));
    // timeouts, 429 and 5xx are retried with backoff before the API's upstream error
    const response = await fetchUpstream(url, {}, { what: "Price API", timeoutMs, ...retry });
    let body: unknown;
    try {
      if (!response.ok) throw new Error(`status ${response.status}`);
      body = await response.json();
    } catch (error) {
      throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `Price API failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const record = (body ?? {}) as { data?: unknown; prices?: unknown };
    const entries = (record.data ?? record.prices ?? {}) as Record<string, { price?: unknown } | null>;
    const prices = new Map<string, UsdPrice>();
    for (const [mint, entry] of Object.entries(entries)) {
      const raw = entry?.price;
      if (typeof raw !== "number" && typeof raw !== "string") continue;
      const text = typeof raw === "number" ? raw.toFixed(9) : raw;
      try {
        prices.set(mint, formatUsdNanos(parseUsdNanos(text)));
      } catch {
        // An unreadable or negative price is dropped rather than served.
      }
    }
    return prices;
  }
  return {
    name: "http",
    async fetchPrices(mints) {
      if (mints.length <= HTTP_PRICE_BATCH) return fetchBatch(mints);
      const all = new Map<string, UsdPrice>();
      for (let i = 0; i < mints.length; i += HTTP_PRICE_BATCH) {
        for (const [mint, price] of await fetchBatch(mints.slice(i, i + HTTP_PRICE_BATCH)))
          all.set(mint, price);
      }
      return all;
    },
  };
}
