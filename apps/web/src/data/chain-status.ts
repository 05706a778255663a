import {
  CHAIN_PERFORMANCE_FALLBACK,
  formatSlotSeconds,
  isChainSlow,
  REFRESH_INTERVAL_MS,
  TARGET_SLOT_MS,
} from "@cistern/protocol";
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
  /** The cluster's slot time in milliseconds as the API measured it; null when not measured. */
  slotMs: number | null;
}

const FALLBACK: ChainPerformance = { tps: CHAIN_PERFORMANCE_FALLBACK, source: "fallback", slotMs: null };

/** Reads the API's chain performance answer; anything unusable is the fallback. */
export function parseChainPerformance(body: unknown): ChainPerformance {
  const { tps, source, slotMs } = (body ?? {}) as { tps?: unknown; source?: unknown; slotMs?: unknown };
  if (typeof tps !== "number" || !Number.isFinite(tps) || tps < 0 || source === "fallback")
    return { ...FALLBACK };
  return {
    tps,
    source: "rpc",
    slotMs: typeof slotMs === "number" && Number.isFinite(slotMs) && slotMs > 0 ? slotMs : null,
  };
}

/**
 * True when Solana is running slow: the measured slot time by the one rule of @cistern/protocol (isChainSlow: at
 * least twice the 400 ms target). Throughput decides nothing (an idle chain is not slow) and the fallback never
 * counts. The API's `slow` is the same rule on the same figure.
 */
export function isChainDegraded(performance: ChainPerformance | undefined): boolean {
  return performance !== undefined && performance.source !== "fallback" && isChainSlow(performance.slotMs);
}

/** How slow Solana is running, "blocks take 1.6 s instead of 0.4 s", or null when it is not ({@link isChainDegraded}). */
export function getChainSlowness(performance: ChainPerformance | undefined): string | null {
  if (!isChainDegraded(performance) || performance?.slotMs == null) return null;
  return `blocks take ${formatSlotSeconds(performance.slotMs)} instead of ${formatSlotSeconds(TARGET_SLOT_MS)}`;
}

/**
 * Chain performance from the API (GET /dirty/chain-performance), every 30 s while the page is
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
        return { ...FALLBACK };
      }
    },
    refetchInterval: REFRESH_INTERVAL_MS,
    refetchIntervalInBackground: false,
  });
}
