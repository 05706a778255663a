import { CHAIN_PERFORMANCE_FALLBACK, REFRESH_INTERVAL_MS } from "@cistern/protocol";
import { useConnection } from "@solana/wallet-adapter-react";
import { useQuery } from "@tanstack/react-query";
import { useAppContext } from "../app-context.ts";
import { requestJson } from "../tx/http-client.ts";

export interface ChainStatus {
  slot: number;
  blockHeight: number;
}

/** Slot and block height of the RPC node; refreshed every 30 s while the page is visible. */
export function useChainStatus() {
  const { connection } = useConnection();
  return useQuery({
    queryKey: ["chain-status", connection.rpcEndpoint],
    queryFn: async (): Promise<ChainStatus> => {
      const [slot, blockHeight] = await Promise.all([
        connection.getSlot("confirmed"),
        connection.getBlockHeight("confirmed"),
      ]);
      return { slot, blockHeight };
    },
    refetchInterval: REFRESH_INTERVAL_MS,
    refetchIntervalInBackground: false,
    retry: 1,
  });
}

export interface ChainPerformance {
  /** Transactions per second. */
  tps: number;
  /** "fallback" when the API (or its node) could not measure it: the spec's 2000. */
  source: "rpc" | "fallback";
}

/** Reads the API's chain performance answer; anything unusable is the fallback. */
export function parseChainPerformance(body: unknown): ChainPerformance {
  const { tps, source } = (body ?? {}) as { tps?: unknown; source?: unknown };
  if (typeof tps === "number" && Number.isFinite(tps) && tps >= 0) {
    return { tps, source: source === "fallback" ? "fallback" : "rpc" };
  }
  return { tps: CHAIN_PERFORMANCE_FALLBACK, source: "fallback" };
}

/**
 * Chain throughput from the API (GET /dirty/chain-performance), every 30 s while the page is
 * visible. A failure gives the spec's fallback of 2000 (logged).
 */
export function useChainPerformance() {
  const { config } = useAppContext();
  return useQuery({
    queryKey: ["chain-performance", config.apiUrl],
    queryFn: async (): Promise<ChainPerformance> => {
      try {
        return parseChainPerformance(await requestJson<unknown>(`${config.apiUrl}/dirty/chain-performance`));
      } catch (error) {
        console.error("Chain performance refresh failed", error);
        return { tps: CHAIN_PERFORMANCE_FALLBACK, source: "fallback" };
      }
    },
    refetchInterval: REFRESH_INTERVAL_MS,
    refetchIntervalInBackground: false,
  });
}
