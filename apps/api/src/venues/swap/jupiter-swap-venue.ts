import { Configuration, SwapApi } from "@jup-ag/api";
import type { SwapVenue } from "./swap-venue.ts";

/** Jupiter's public swap API (no key) and its keyed endpoint (the spec's third-party call). */
export const JUPITER_PUBLIC_API_URL = "https://lite-api.jup.ag/swap/v1";
export const JUPITER_KEYED_API_URL = "https://api.jup.ag/swap/v1";

/**
 * The production swap venue: Jupiter's swap API through its published client (`SwapApi`). Quotes take direct
 * routes only, no platform fee; swap instructions ask for a dynamic compute-unit limit (the spec's settings).
 * `basePath` defaults to the keyed endpoint with `apiKey`, else the public one.
 */
export function createJupiterSwapVenue(options: { basePath?: string; apiKey?: string } = {}): SwapVenue {
  const basePath = options.basePath || (options.apiKey ? JUPITER_KEYED_API_URL : JUPITER_PUBLIC_API_URL);
  const client = new SwapApi(
    new Configuration({ basePath, ...(options.apiKey ? { headers: { "x-api-key": options.apiKey } } : {}) }),
  );
  return {
    name: "jupiter",
    quote: (request) => client.quoteGet({ onlyDirectRoutes: true, platformFeeBps: 0, ...request }),
    swapInstructions: ({ sourceTokenAccount: _unused, ...request }) =>
      client.swapInstructionsPost({ swapRequest: { dynamicComputeUnitLimit: true, ...request } }),
  };
}
