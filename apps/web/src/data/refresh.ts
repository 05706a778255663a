import type { RefreshScope } from "@cistern/protocol";
import type { QueryClient } from "@tanstack/react-query";
import { createStore, useStore } from "../lib/create-store.ts";

/** Query-key roots: every query of a scope starts with its scope name. */
export const WALLET_SCOPES: readonly RefreshScope[] = ["assets", "user-stats", "balance", "loans", "mypool"];
/** Cleared when the wallet disconnects: wallet assets, user stats and collateral totals (and balances). */
export const CLEARED_ON_DISCONNECT = ["assets", "user-stats", "collateral-total", "balance"] as const;

/** True while a refresh after a transaction (or a wallet change) is loading. */
export const refreshingStore = createStore(false);

export function useRefreshing(): boolean {
  return useStore(refreshingStore);
}

/** Reloads the given scopes, with the refreshing flag on meanwhile. Failures are logged only. */
export async function refreshScopes(queryClient: QueryClient, scopes: readonly string[]): Promise<void> {
  if (scopes.length === 0) return;
  refreshingStore.set(true);
  try {
    await Promise.all(scopes.map((scope) => queryClient.invalidateQueries({ queryKey: [scope] })));
  } catch (error) {
    console.error("Refresh failed", error);
  } finally {
    refreshingStore.set(false);
  }
}

/** Delays of the follow-up refreshes after a write: the API's indexer takes a moment to see a transaction. */
export const INDEXING_REFRESH_DELAYS_MS = [1000, 3000] as const;

/**
 * Reloads the scopes again 1 s and 3 s from now, so lists read after the API's indexer has seen the latest
 * transactions (the first reload can still return the state from before them).
 */
export function refreshAgainAfterIndexing(queryClient: QueryClient, scopes: readonly string[]): void {
  for (const delayMs of INDEXING_REFRESH_DELAYS_MS) {
    setTimeout(() => {
      for (const scope of scopes) void queryClient.invalidateQueries({ queryKey: [scope] });
    }, delayMs);
  }
}

/** Drops wallet assets, user stats, collateral totals and balances (on disconnect). */
export function clearWalletData(queryClient: QueryClient): void {
  for (const scope of CLEARED_ON_DISCONNECT) queryClient.removeQueries({ queryKey: [scope] });
}
