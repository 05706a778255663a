import { isAbsolute, resolve } from "node:path";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { loadValuationConfig, type ValuationConfig } from "../valuation/valuation-config.ts";

/** Which kind of cluster the API talks to; chosen once at start. */
export type Cluster = "localnet" | "devnet" | "mainnet";

/** The one validated configuration object of the API, built at start and passed explicitly. */
export interface ApiConfig {
  host: string;
  port: number;
  cluster: Cluster;
  solanaRpcUrl: string;
  solanaWsUrl: string;
  /** Absolute path of the data directory (PGlite database lives in `<dataDir>/pglite`). */
  dataDir: string;
  /** PostgreSQL connection string; when absent the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  /** Base58 address of the lending program; the indexer is off without it. */
  lendingProgramId: string | undefined;
  /** Whether this process runs the indexer (it still needs the leader lock). */
  indexerEnabled: boolean;
  /** Full reconcile period of the indexer (getProgramAccounts), milliseconds. */
  reconcileIntervalMs: number;
  /** Where token prices and collection values come from, and the guards on them (valuation/valuation-config.ts). */
  valuation: ValuationConfig;
  /**
   * The longest a public list answer (/dirty/pools) is reused, milliseconds; it is dropped sooner, as soon as the
   * indexer writes a pool or bank (NOTIFY). 0 disables the cache.
   */
  listCacheMs: number;
  /** Public base URL of this API (used to build demo image URLs). */
  publicUrl: string;
  /** Image proxy used by the image URL check (`<proxy>?url=...&width=500`). */
  imageProxyUrl: string | undefined;
  /** Log level for the Fastify logger; "silent" disables it. Request lines are logged at "debug". */
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** "json" (one JSON object a line, for production log shippers) or "pretty" (short readable lines). */
  logFormat: "json" | "pretty";
  /** `/ready` answers 503 when the indexer is more than this many slots behind the chain. */
  readyMaxLagSlots: number;
  /**
   * Read marginfi v2 for the delegation routes (/marginfi/reserve, /marginfi/bank) instead of the local lending
   * venue: its program, the group, and the marginfi bank of each mint (a marginfi bank is not derivable from its
   * mint). Undefined on the embedded default.
   */
  marginfi: { programId: string; group: string; bankByMint: Record<string, string> } | undefined;
  /**
   * Requests a minute one client (IP) may send to each rate-limited route: every POST (builder, sender,
   * calculator, signed writes) and the chat's /graphql. Counted per API process. 0 turns limits off.
   */
  rateLimitPerMinute: number;
  /** Largest request body accepted, bytes (413 above it). */
  bodyLimitBytes: number;
  /** A DAS asset API (getAssetsByOwner, getAsset, getAssetBatch) for wallet NFTs and tokens; unset: the RPC URL's. */
  dasUrl: string | undefined;
}

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function fail(message: string): never {
  throw new ApiError(ERROR_CODES.CONFIG_INVALID, `Invalid configuration: ${message}`);
}

function parsePort(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) fail(`${name} must be an integer port, got '${raw}'`);
  const port = Number(raw);
  if (port > 65535) fail(`${name} must be at most 65535, got ${port}`);
  return port;
}

function nonNegativeInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,9}$/.test(raw)) fail(`${name} must be a non-negative integer, got '${raw}'`);
  return Number(raw);
}

/** BODY_LIMIT_BYTES: the largest request body, 256 KiB unless set; 0 would refuse every POST, so it is refused. */
function positiveBodyLimit(raw: string | undefined): number {
  const bytes = nonNegativeInteger("BODY_LIMIT_BYTES", raw, 256 * 1024);
  if (bytes === 0) fail("BODY_LIMIT_BYTES must be at least 1 (a limit of 0 would refuse every request body)");
  return bytes;
}

/** MARGINFI_GROUP, MARGINFI_BANKS ("mint:bank,mint:bank") and MARGINFI_PROGRAM_ID, all base58. */
function parseMarginfi(env: Record<string, string | undefined>): ApiConfig["marginfi"] {
  const group = env.MARGINFI_GROUP ?? "";
  if (group === "") {
    if (env.MARGINFI_BANKS) fail("MARGINFI_BANKS needs MARGINFI_GROUP");
    return undefined;
  }
  const programId = env.MARGINFI_PROGRAM_ID || "MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA";
  for (const [name, value] of [
    ["MARGINFI_GROUP", group],
    ["MARGINFI_PROGRAM_ID", programId],
  ] as const) {
    if (!BASE58.test(value)) fail(`${name} is not a base58 address: '${value}'`);
  }
  const bankByMint: Record<string, string> = {};
  for (const pair of (env.MARGINFI_BANKS ?? "").split(",").filter((p) => p.trim() !== "")) {
    const [mint, bank, extra] = pair.trim().split(":");
    if (
      mint === undefined ||
      bank === undefined ||
      extra !== undefined ||
      !BASE58.test(mint) ||
      !BASE58.test(bank)
    ) {
      fail(`MARGINFI_BANKS entries are mint:bank base58 pairs, got '${pair.trim()}'`);
    }
    bankByMint[mint] = bank;
  }
  return { programId, group, bankByMint };
}

function parsePositiveMs(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) fail(`${name} must be a positive integer (milliseconds)`);
  return Number(raw);
}

function parseUrl(name: string, raw: string, protocols: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(`${name} is not a URL: '${raw}'`);
  }
  if (!protocols.includes(url.protocol)) fail(`${name} must use ${protocols.join(" or ")}, got '${raw}'`);
  return raw.replace(/\/$/, "");
}

/** Derives the PubSub URL from the RPC URL: same host, ws(s) scheme, port + 1 (Solana convention). */
export function getDefaultWsUrl(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (url.port !== "") url.port = String(Number(url.port) + 1);
  return url.toString().replace(/\/$/, "");
}

/**
 * Builds and validates the API configuration from environment variables.
 * Throws an ApiError (CONFIG_INVALID) naming the bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  const host = env.API_HOST ?? "127.0.0.1";
  const port = parsePort("API_PORT", env.API_PORT, 3001);
  const solanaRpcUrl = parseUrl("SOLANA_RPC_URL", env.SOLANA_RPC_URL ?? "http://127.0.0.1:8899", [
    "http:",
    "https:",
  ]);
  const solanaWsUrl = parseUrl("SOLANA_WS_URL", env.SOLANA_WS_URL ?? getDefaultWsUrl(solanaRpcUrl), [
    "ws:",
    "wss:",
  ]);
  const cluster = (env.SOLANA_CLUSTER ?? "localnet") as Cluster;
  if (!["localnet", "devnet", "mainnet"].includes(cluster))
    fail(`SOLANA_CLUSTER must be localnet, devnet or mainnet`);
  const rawDataDir = env.DATA_DIR ?? "./.data";
  const dataDir = isAbsolute(rawDataDir) ? rawDataDir : resolve(process.cwd(), rawDataDir);
  const databaseUrl = env.DATABASE_URL === "" ? undefined : env.DATABASE_URL;
  if (databaseUrl !== undefined) parseUrl("DATABASE_URL", databaseUrl, ["postgres:", "postgresql:"]);
  const lendingProgramId = env.LENDING_PROGRAM_ID === "" ? undefined : env.LENDING_PROGRAM_ID;
  if (lendingProgramId !== undefined && !BASE58.test(lendingProgramId)) {
    fail(`LENDING_PROGRAM_ID is not a base58 address: '${lendingProgramId}'`);
  }
  const logLevel = (env.LOG_LEVEL ?? "info") as ApiConfig["logLevel"];
  if (!LOG_LEVELS.includes(logLevel)) fail(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`);
  const logFormat = (env.LOG_FORMAT ?? "json") as ApiConfig["logFormat"];
  if (logFormat !== "json" && logFormat !== "pretty") fail("LOG_FORMAT must be json or pretty");
  const readyMaxLagSlots = Number(env.READY_MAX_LAG_SLOTS ?? "300");
  if (!Number.isSafeInteger(readyMaxLagSlots) || readyMaxLagSlots < 0) {
    fail("READY_MAX_LAG_SLOTS must be a non-negative integer");
  }
  return {
    host,
    port,
    cluster,
    solanaRpcUrl,
    solanaWsUrl,
    dataDir,
    databaseUrl,
    lendingProgramId,
    indexerEnabled: env.INDEXER !== "off",
    reconcileIntervalMs: parsePositiveMs("INDEXER_RECONCILE_MS", env.INDEXER_RECONCILE_MS, 60_000),
    valuation: loadValuationConfig(env, cluster),
    listCacheMs: env.LIST_CACHE_MS === "0" ? 0 : parsePositiveMs("LIST_CACHE_MS", env.LIST_CACHE_MS, 10_000),
    publicUrl: parseUrl("API_PUBLIC_URL", env.API_PUBLIC_URL ?? `http://${host}:${port}`, [
      "http:",
      "https:",
    ]),
    imageProxyUrl: env.IMAGE_PROXY_URL
      ? parseUrl("IMAGE_PROXY_URL", env.IMAGE_PROXY_URL, ["http:", "https:"])
      : undefined,
    logLevel,
    logFormat,
    readyMaxLagSlots,
    marginfi: parseMarginfi(env),
    dasUrl: env.DAS_URL ? parseUrl("DAS_URL", env.DAS_URL, ["http:", "https:"]) : undefined,
    rateLimitPerMinute: nonNegativeInteger("RATE_LIMIT_PER_MINUTE", env.RATE_LIMIT_PER_MINUTE, 300),
    bodyLimitBytes: positiveBodyLimit(env.BODY_LIMIT_BYTES),
  };
}
