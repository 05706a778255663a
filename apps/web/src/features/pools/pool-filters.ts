import type { ParsedPool } from "@cistern/protocol";

export type PoolSort = "liquidity" | "apr-high" | "apr-low" | "duration" | "newest";

export interface PoolFilters {
  search: string;
  type: "" | "nft-pool" | "defi-pool";
  /** Collection id or token mint the pool must accept. */
  collateral: string;
  sort: PoolSort;
}

export const DEFAULT_POOL_FILTERS: PoolFilters = { search: "", type: "", collateral: "", sort: "liquidity" };

function compareBigDesc(a: bigint, b: bigint): number {
  return a === b ? 0 : a > b ? -1 : 1;
}

/**
 * Filters and sorts pools (ties broken by address so the order is stable). Pools of several currencies are
 * compared by liquidity in USD when `liquidityUsd` is given (base units otherwise).
 */
export function filterAndSortPools(
  pools: readonly ParsedPool[],
  filters: PoolFilters,
  liquidityUsd?: (pool: ParsedPool) => number,
): ParsedPool[] {
  const search = filters.search.trim().toLowerCase();
  const kept = pools.filter(
    (pool) =>
      (filters.type === "" || pool.type === filters.type) &&
      (filters.collateral === "" || pool.collections.some((c) => c.collection === filters.collateral)) &&
      (search === "" ||
        pool.metadata.name.toLowerCase().includes(search) ||
        pool.pubkey.toLowerCase().startsWith(search) ||
        pool.owner.toLowerCase().startsWith(search)),
  );
  const byKey: Record<PoolSort, (a: ParsedPool, b: ParsedPool) => number> = {
    liquidity: (a, b) =>
      liquidityUsd
        ? liquidityUsd(b) - liquidityUsd(a)
        : compareBigDesc(a.availableLiquidity, b.availableLiquidity),
    "apr-high": (a, b) => b.loanCurve.apr - a.loanCurve.apr,
    "apr-low": (a, b) => a.loanCurve.apr - b.loanCurve.apr,
    duration: (a, b) => b.limits.maxDuration - a.limits.maxDuration,
    newest: (a, b) => b.createdAt - a.createdAt,
  };
  return [...kept].sort((a, b) => byKey[filters.sort](a, b) || a.pubkey.localeCompare(b.pubkey));
}
