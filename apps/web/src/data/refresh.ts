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

/** Drops wallet assets, user stats, collateral totals and balances (on disconnect). */
export function clearWalletData(queryClient: QueryClient): void {
  for (const scope of CLEARED_ON_DISCONNECT) queryClient.removeQueries({ queryKey: [scope] });
}
