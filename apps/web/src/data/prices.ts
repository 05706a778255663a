import { REFRESH_INTERVAL_MS } from "@cistern/protocol";
import { useQuery } from "@tanstack/react-query";
import { useAppContext } from "../app-context.ts";
import { requestJson } from "../tx/http-client.ts";

/** USD prices by mint, as decimal strings (the price feed's GET /prices). */
export type PriceMap = Record<string, string>;

/** Parses the price feed answer `{prices: {mint: {price}}}`. */
export function parsePrices(body: unknown): PriceMap {
  const prices = (body as { prices?: Record<string, { price?: unknown }> } | null)?.prices;
  const out: PriceMap = {};
  if (typeof prices !== "object" || prices === null) return out;
  for (const [mint, entry] of Object.entries(prices)) {
    const price = entry?.price;
    if (typeof price === "number" || typeof price === "string") out[mint] = String(price);
  }
  return out;
}

/** Prices from the API, refreshed every 30 s while the page is visible; failures are logged only. */
export function usePrices() {
  const { config } = useAppContext();
  return useQuery({
    queryKey: ["prices", config.apiUrl],
    queryFn: async () => {
      try {
        return parsePrices(await requestJson<unknown>(`${config.apiUrl}/prices`));
      } catch (error) {
        console.error("Price refresh failed", error);
        throw error;
      }
    },
    refetchInterval: REFRESH_INTERVAL_MS,
    refetchIntervalInBackground: false,
    retry: false,
  });
}
