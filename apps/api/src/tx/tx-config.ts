import { isAbsolute, join, resolve } from "node:path";
import type { ApiConfig } from "../config/config.ts";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";

/** Settings of the write path (loan calculator, oracle, builder, sender). */
export interface TxConfig {
  /** Base58 address of the lending program. */
  lendingProgramId: string;
  /** Path of the oracle keypair (Solana CLI JSON, 64 numbers). */
  oracleKeypairPath: string;
  /** Generate the oracle keypair when the file is missing (localnet only; never committed). */
  generateOracleKeypair: boolean;
  /** How long the pool/bank snapshot used by quotes stays fresh, milliseconds. */
  snapshotTtlMs: number;
  /** How often the sender rebroadcasts an unconfirmed transaction, milliseconds. */
  rebroadcastIntervalMs: number;
  /**
   * Where bundles are sent all or none with Jito's sendBundle (BUNDLE_URL: on localnet the node itself, which
   * serves the method; elsewhere a Jito block engine's bundles endpoint, e.g.
   * https://mainnet.block-engine.jito.wtf/api/v1/bundles). Unset elsewhere: a bundle's transactions are sent one
   * after the other, each confirmed before the next, stopping at the first failure.
   */
  bundleUrl: string | null;
  /**
   * Largest priority fee budget (maxCap / exactFee) or jito tip a builder request may ask for, lamports
   * (TX_MAX_PRIORITY_FEE_LAMPORTS, default 10_000_000 = 0.01 SOL). Above it the builder answers 400.
   */
  maxPriorityFeeLamports: bigint;
  /**
   * The swap venue (SWAP_VENUE: local | jupiter; default local on localnet, jupiter elsewhere), Jupiter's API
   * base (JUPITER_API_URL; default the keyed endpoint with JUPITER_API_KEY, else the public one) and key.
   */
  swapVenue: { kind: "local" | "jupiter"; jupiterApiUrl: string; jupiterApiKey: string };
  /**
   * The NFT market (NFT_MARKET_VENUE: local | tensor; default local on localnet, tensor elsewhere), Tensor's API
   * base (TENSOR_API_URL; default Tensor's) and key (TENSOR_API_KEY).
   */
  nftMarket: { kind: "local" | "tensor"; tensorApiUrl: string; tensorApiKey: string };
  /** The liquidation keeper (KEEPER: on | off; default on for localnet, off elsewhere). */
  keeper: {
    enabled: boolean;
    /** KEEPER_KEYPAIR_PATH, default `<DATA_DIR>/keys/keeper.json` (generated on localnet only). */
    keypairPath: string;
    /** KEEPER_INTERVAL_MS, default 15000: a loan past grace is liquidated within about this long. */
    intervalMs: number;
  };
  /**
   * The delegation keeper (DELEGATION_KEEPER: on | off; default on for localnet): every interval it delegates
   * the idle liquidity of the banks whose owner chose it (SetDelegation). Its key can do nothing else.
   */
  delegationKeeper: {
    enabled: boolean;
    /** DELEGATION_KEEPER_KEYPAIR_PATH, default `<DATA_DIR>/keys/delegation-keeper.json` (generated on localnet only). */
    keypairPath: string;
    /** DELEGATION_KEEPER_INTERVAL_MS, default 3600000 (hourly). */
    intervalMs: number;
  };
}

/** Default cap of a requested priority fee or jito tip: 0.01 SOL in lamports. */
export const DEFAULT_MAX_PRIORITY_FEE_LAMPORTS = 10_000_000n;

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

function fail(message: string): never {
  throw new ApiError(ERROR_CODES.CONFIG_INVALID, `Invalid configuration: ${message}`);
}

function positiveMs(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) fail(`${name} must be a positive integer (milliseconds)`);
  return Number(raw);
}

function maxFeeLamports(raw: string | undefined): bigint {
  if (raw === undefined || raw === "") return DEFAULT_MAX_PRIORITY_FEE_LAMPORTS;
  if (!/^\d{1,19}$/.test(raw) || BigInt(raw) < 1n)
    fail("TX_MAX_PRIORITY_FEE_LAMPORTS must be a positive integer (lamports)");
  return BigInt(raw);
}

function bundleUrl(raw: string | undefined, api: ApiConfig): string | null {
  if (raw === undefined || raw === "") return api.cluster === "localnet" ? api.solanaRpcUrl : null;
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return url.toString();
  } catch {
    // refused below
  }
  return fail(`BUNDLE_URL must be an http(s) URL, not '${raw}'`);
}

/**
 * Reads the write-path settings: LENDING_PROGRAM_ID (required), ORACLE_KEYPAIR_PATH (default
 * `<DATA_DIR>/keys/oracle.json`, generated when missing on cluster 'localnet' only),
 * TX_SNAPSHOT_TTL_MS (default 1000), TX_REBROADCAST_MS (default 2000), TX_MAX_PRIORITY_FEE_LAMPORTS
 * (default 10_000_000 = 0.01 SOL) and the keeper's KEEPER, KEEPER_KEYPAIR_PATH and KEEPER_INTERVAL_MS.
 * Throws ApiError CONFIG_INVALID naming the bad variable.
 */
export function loadTxConfig(
  api: ApiConfig,
  env: Record<string, string | undefined> = process.env,
): TxConfig {
  const programId = env.LENDING_PROGRAM_ID || api.lendingProgramId;
  if (programId === undefined || programId === "") fail("LENDING_PROGRAM_ID is required for transactions");
  if (!BASE58.test(programId)) fail(`LENDING_PROGRAM_ID is not a base58 address: '${programId}'`);
  const keyPath = (raw: string | undefined, file: string) =>
    raw === undefined || raw === ""
      ? join(api.dataDir, "keys", file)
      : isAbsolute(raw)
        ? raw
        : resolve(process.cwd(), raw);
  const keeperFlag = env.KEEPER ?? (api.cluster === "localnet" ? "on" : "off");
  if (keeperFlag !== "on" && keeperFlag !== "off") fail(`KEEPER must be 'on' or 'off', not '${keeperFlag}'`);
  const delegationFlag = env.DELEGATION_KEEPER ?? (api.cluster === "localnet" ? "on" : "off");
  if (delegationFlag !== "on" && delegationFlag !== "off")
    fail(`DELEGATION_KEEPER must be 'on' or 'off', not '${delegationFlag}'`);
  const swapVenue = env.SWAP_VENUE ?? (api.cluster === "localnet" ? "local" : "jupiter");
  if (swapVenue !== "local" && swapVenue !== "jupiter")
    fail(`SWAP_VENUE must be 'local' or 'jupiter', not '${swapVenue}'`);
  const nftMarket = env.NFT_MARKET_VENUE ?? (api.cluster === "localnet" ? "local" : "tensor");
  if (nftMarket !== "local" && nftMarket !== "tensor")
    fail(`NFT_MARKET_VENUE must be 'local' or 'tensor', not '${nftMarket}'`);
  return {
    lendingProgramId: programId,
    oracleKeypairPath: keyPath(env.ORACLE_KEYPAIR_PATH, "oracle.json"),
    generateOracleKeypair: api.cluster === "localnet",
    snapshotTtlMs: positiveMs("TX_SNAPSHOT_TTL_MS", env.TX_SNAPSHOT_TTL_MS, 1000),
    rebroadcastIntervalMs: positiveMs("TX_REBROADCAST_MS", env.TX_REBROADCAST_MS, 2000),
    bundleUrl: bundleUrl(env.BUNDLE_URL, api),
    maxPriorityFeeLamports: maxFeeLamports(env.TX_MAX_PRIORITY_FEE_LAMPORTS),
    swapVenue: {
      kind: swapVenue,
      jupiterApiUrl: env.JUPITER_API_URL ?? "",
      jupiterApiKey: env.JUPITER_API_KEY ?? "",
    },
    nftMarket: {
      kind: nftMarket,
      tensorApiUrl: env.TENSOR_API_URL ?? "",
      tensorApiKey: env.TENSOR_API_KEY ?? "",
    },
    keeper: {
      enabled: keeperFlag === "on",
      keypairPath: keyPath(env.KEEPER_KEYPAIR_PATH, "keeper.json"),
      intervalMs: positiveMs("KEEPER_INTERVAL_MS", env.KEEPER_INTERVAL_MS, 15_000),
    },
    delegationKeeper: {
      enabled: delegationFlag === "on",
      keypairPath: keyPath(env.DELEGATION_KEEPER_KEYPAIR_PATH, "delegation-keeper.json"),
      intervalMs: positiveMs("DELEGATION_KEEPER_INTERVAL_MS", env.DELEGATION_KEEPER_INTERVAL_MS, 3_600_000),
    },
  };
}
