import {
  computePriorityFeeLamports,
  computeUnitPrice,
  getPriorityFeeOptions,
  type PriorityFeeLevel,
  type PriorityFeeSettings,
} from "@cistern/protocol";
import { useConnection } from "@solana/wallet-adapter-react";
import { useQuery } from "@tanstack/react-query";

/** Compute units the estimate is given for: about what a loan transaction uses with its headroom. */
export const ESTIMATE_COMPUTE_UNITS = 100_000;

/**
 * The priority fee (lamports) the builder would set at each level for a transaction of
 * {@link ESTIMATE_COMPUTE_UNITS}, from the cluster's recent fees and the user's cap: the same rule the API uses.
 */
export function usePriorityFeeEstimates(fee: PriorityFeeSettings) {
  const { connection } = useConnection();
  const recent = useQuery({
    queryKey: ["balance", "recent-prioritization-fees", connection.rpcEndpoint],
    queryFn: () => connection.getRecentPrioritizationFees(),
    refetchInterval: 30_000,
    retry: false,
  });
  if (!recent.data) return null;
  const estimate = (level: PriorityFeeLevel) => {
    const options = getPriorityFeeOptions({ ...fee, level });
    return computePriorityFeeLamports(
      computeUnitPrice(recent.data, options, ESTIMATE_COMPUTE_UNITS),
      ESTIMATE_COMPUTE_UNITS,
    );
  };
  return { medium: estimate("medium"), fast: estimate("fast"), ultra: estimate("ultra") };
}
