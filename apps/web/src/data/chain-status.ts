import { REFRESH_INTERVAL_MS } from "@cistern/protocol";
import { useConnection } from "@solana/wallet-adapter-react";
import { useQuery } from "@tanstack/react-query";

export interface ChainStatus {
  slot: number;
  blockHeight: number;
  /** Transactions per second over the latest performance sample; null when the node has none. */
  tps: number | null;
}

/** Slot, block height and recent throughput of the RPC node; refreshed every 30 s while visible. */
export function useChainStatus() {
  const { connection } = useConnection();
  return useQuery({
    queryKey: ["chain-status", connection.rpcEndpoint],
    queryFn: async (): Promise<ChainStatus> => {
      const [slot, blockHeight, samples] = await Promise.all([
        connection.getSlot("confirmed"),
        connection.getBlockHeight("confirmed"),
        connection.getRecentPerformanceSamples(1).catch(() => []),
      ]);
      const sample = samples[0];
      const tps =
        sample && sample.samplePeriodSecs > 0 ? sample.numTransactions / sample.samplePeriodSecs : null;
      return { slot, blockHeight, tps };
    },
    refetchInterval: REFRESH_INTERVAL_MS,
    refetchIntervalInBackground: false,
    retry: 1,
  });
}
