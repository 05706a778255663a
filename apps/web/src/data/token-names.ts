import { listCurrencies } from "@cistern/protocol";
import { useQuery } from "@tanstack/react-query";
import { useAppContext } from "../app-context.ts";
import { requestJson } from "../tx/http-client.ts";

/** Display labels by mint (symbol for tokens, name for NFTs). */
export type TokenNames = Record<string, string>;

/** Labels from the API's currency catalogue (`/currency/currencies`: keyed by mint, or a list). */
export function parseCurrencyNames(body: unknown): TokenNames {
  const out: TokenNames = {};
  const entries = Array.isArray(body)
    ? body
    : typeof body === "object" && body !== null
      ? Object.values(body)
      : [];
  for (const entry of entries) {
    if (typeof entry !== "object" || entry === null) continue;
    const { mint, currencyId, metadata } = entry as {
      mint?: unknown;
      currencyId?: unknown;
      metadata?: { symbol?: unknown };
    };
    const key = typeof mint === "string" ? mint : typeof currencyId === "string" ? currencyId : null;
    if (key && typeof metadata?.symbol === "string") out[key] = metadata.symbol;
  }
  return out;
}

/** Labels from the localnet demo world (`localnet_demoWorld` admin RPC): token symbols and NFT names. */
export function parseDemoWorldNames(world: unknown): TokenNames {
  const out: TokenNames = {};
  const { tokens, collections } = (world ?? {}) as {
    tokens?: { mint?: unknown; symbol?: unknown }[];
    collections?: { nfts?: { mint?: unknown; name?: unknown }[] }[];
  };
  for (const token of tokens ?? []) {
    if (typeof token.mint === "string" && typeof token.symbol === "string") out[token.mint] = token.symbol;
  }
  for (const collection of collections ?? []) {
    for (const nft of collection.nfts ?? []) {
      if (typeof nft.mint === "string" && typeof nft.name === "string") out[nft.mint] = nft.name;
    }
  }
  return out;
}

async function fetchDemoWorld(rpcUrl: string): Promise<unknown> {
  const body = await requestJson<{ result?: unknown; error?: unknown }>(rpcUrl, {
    body: { jsonrpc: "2.0", id: 1, method: "localnet_demoWorld", params: [] },
  });
  if (body.error) throw new Error(`localnet_demoWorld failed: ${JSON.stringify(body.error)}`);
  return body.result;
}

/**
 * Names for mints: the protocol's currency table, the API catalogue when it is up, and on localnet
 * the demo world. Sources that fail are logged and skipped.
 */
export function useTokenNames() {
  const { config, rpcUrl } = useAppContext();
  return useQuery({
    queryKey: ["token-names", config.apiUrl, config.cluster, rpcUrl],
    queryFn: async (): Promise<TokenNames> => {
      const names: TokenNames = Object.fromEntries(listCurrencies().map((c) => [c.mint, c.symbol]));
      const [catalogue, world] = await Promise.allSettled([
        requestJson<unknown>(`${config.apiUrl}/currency/currencies`),
        config.cluster === "localnet" ? fetchDemoWorld(rpcUrl) : Promise.resolve(null),
      ]);
      if (world.status === "fulfilled") Object.assign(names, parseDemoWorldNames(world.value));
      else console.error("An error occurred while fetching data", world.reason);
      if (catalogue.status === "fulfilled") Object.assign(names, parseCurrencyNames(catalogue.value));
      else console.error("An error occurred while fetching data", catalogue.reason);
      return names;
    },
    staleTime: 5 * 60_000,
  });
}
