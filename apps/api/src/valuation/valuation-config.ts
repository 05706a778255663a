import { ApiError, ERROR_CODES } from "../errors/api-error.ts";

/** Where values come from and when they may be used; read from the environment at start. */
export interface ValuationConfig {
  /** Token prices: the local swap venue's pools (localnet) or Pyth's Hermes API. */
  tokenSource: "swap-pools" | "pyth";
  /** Collection values: the local NFT market's book (localnet) or Tensor's and Magic Eden's collection stats. */
  collectionSource: "nft-market" | "marketplaces";
  hermesUrl: string;
  tensorApiUrl: string;
  tensorApiKey: string | undefined;
  magicEdenApiUrl: string;
  magicEdenApiKey: string | undefined;
  /** A price older than this is refused (VALUATION_MAX_AGE_SECONDS, default 60). */
  maxAgeSeconds: number;
  /** A price whose confidence is wider than this share of it is refused (VALUATION_MAX_CONFIDENCE_BPS, 1000). */
  maxConfidenceBps: number;
  /** Slots the pools' time-weighted price spans (VALUATION_TWAP_WINDOW_SLOTS, default 150). */
  twapWindowSlots: number;
  /** Refresh periods, milliseconds (defaults: pools and market 400 / 1000 ms, production APIs 30 s). */
  tokenRefreshMs: number;
  collectionRefreshMs: number;
  /** The catalogue file (CATALOG_FILE; default the cluster's file in catalog/catalogs). */
  catalogFile: string | undefined;
}

export const HERMES_URL = "https://hermes.pyth.network";
export const MAGIC_EDEN_API_URL = "https://api-mainnet.magiceden.dev";
export const TENSOR_API_URL = "https://api.mainnet.tensordev.io/api/v1";

function fail(message: string): never {
  throw new ApiError(ERROR_CODES.CONFIG_INVALID, `Invalid configuration: ${message}`);
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) fail(`${name} must be a positive integer`);
  return n;
}

function url(name: string, raw: string | undefined, fallback: string): string {
  const value = raw === undefined || raw === "" ? fallback : raw;
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
  } catch {
    fail(`${name} must be an http(s) URL`);
  }
  return value.replace(/\/$/, "");
}

/** The valuation settings for `cluster` from `env` (PRICE_SOURCE: local | pyth; NFT_STATS_SOURCE: local | marketplaces). */
export function loadValuationConfig(
  env: Record<string, string | undefined>,
  cluster: string,
): ValuationConfig {
  const localnet = cluster === "localnet";
  const price = env.PRICE_SOURCE || (localnet ? "local" : "pyth");
  if (price !== "local" && price !== "pyth") fail("PRICE_SOURCE must be local or pyth");
  const nft = env.NFT_STATS_SOURCE || (localnet ? "local" : "marketplaces");
  if (nft !== "local" && nft !== "marketplaces") fail("NFT_STATS_SOURCE must be local or marketplaces");
  const onChainTokens = price === "local";
  const onChainNfts = nft === "local";
  return {
    tokenSource: onChainTokens ? "swap-pools" : "pyth",
    collectionSource: onChainNfts ? "nft-market" : "marketplaces",
    hermesUrl: url("PRICE_API_URL", env.PRICE_API_URL, HERMES_URL),
    tensorApiUrl: url("TENSOR_API_URL", env.TENSOR_API_URL, TENSOR_API_URL),
    tensorApiKey: env.TENSOR_API_KEY || undefined,
    magicEdenApiUrl: url("MAGIC_EDEN_API_URL", env.MAGIC_EDEN_API_URL, MAGIC_EDEN_API_URL),
    magicEdenApiKey: env.MAGIC_EDEN_API_KEY || undefined,
    maxAgeSeconds: positive("VALUATION_MAX_AGE_SECONDS", env.VALUATION_MAX_AGE_SECONDS, 60),
    maxConfidenceBps: positive("VALUATION_MAX_CONFIDENCE_BPS", env.VALUATION_MAX_CONFIDENCE_BPS, 1_000),
    twapWindowSlots: positive("VALUATION_TWAP_WINDOW_SLOTS", env.VALUATION_TWAP_WINDOW_SLOTS, 150),
    tokenRefreshMs: positive("PRICE_REFRESH_MS", env.PRICE_REFRESH_MS, onChainTokens ? 400 : 30_000),
    collectionRefreshMs: positive(
      "NFT_STATS_REFRESH_MS",
      env.NFT_STATS_REFRESH_MS,
      onChainNfts ? 1_000 : 30_000,
    ),
    catalogFile: env.CATALOG_FILE || undefined,
  };
}
