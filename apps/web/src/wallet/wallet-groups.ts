import { type Adapter, WalletReadyState } from "@solana/wallet-adapter-base";

/** The three preferred wallets recommended next to installed ones (spec section 2). */
export const TOP_WALLETS = ["Phantom", "Solflare", "Backpack"] as const;

/** Sort rank by ready state: Installed, then Loadable, then NotDetected and Unsupported. */
export const READY_STATE_RANK: Record<WalletReadyState, number> = {
  [WalletReadyState.Installed]: 1,
  [WalletReadyState.Loadable]: 2,
  [WalletReadyState.NotDetected]: 3,
  [WalletReadyState.Unsupported]: 3,
};

export type HighlightedBy = "PreviouslyConnected" | "TopAndRecommended" | "Onboarding" | "TopWallet";

export interface WalletGroups {
  highlightedBy: HighlightedBy;
  /** Shown up front (at most 3 recently used, or installed + top wallets). */
  highlight: Adapter[];
  /** Behind the 'More wallets' toggle, in a two-column grid. */
  others: Adapter[];
}

/** Ready-state order, then the configured precedence (stable for ties). */
export function sortWallets(adapters: Adapter[], precedence: readonly string[] = []): Adapter[] {
  const rankOf = (name: string) => {
    const index = precedence.indexOf(name);
    return index === -1 ? Number.MAX_SAFE_INTEGER : index;
  };
  return adapters
    .map((adapter, index) => ({ adapter, index }))
    .sort(
      (a, b) =>
        READY_STATE_RANK[a.adapter.readyState] - READY_STATE_RANK[b.adapter.readyState] ||
        rankOf(a.adapter.name) - rankOf(b.adapter.name) ||
        a.index - b.index,
    )
    .map((entry) => entry.adapter);
}

/**
 * Groups wallets for the connect modal: previously connected ones first (3 highlighted); else
 * installed wallets plus the top three; else onboarding when nothing can be loaded; else the top wallets.
 */
export function groupWallets(
  adapters: Adapter[],
  previouslyConnected: readonly string[],
  precedence: readonly string[] = [],
): WalletGroups {
  const recent: Adapter[] = [];
  const installed: Adapter[] = [];
  const top: Adapter[] = [];
  const rest: Adapter[] = [];
  for (const adapter of adapters) {
    if (adapter.readyState === WalletReadyState.Unsupported) continue;
    if (previouslyConnected.includes(adapter.name)) recent.push(adapter);
    else if (adapter.readyState === WalletReadyState.Installed) installed.push(adapter);
    else if ((TOP_WALLETS as readonly string[]).includes(adapter.name)) top.push(adapter);
    else rest.push(adapter);
  }
  recent.sort((a, b) => previouslyConnected.indexOf(a.name) - previouslyConnected.indexOf(b.name));
  top.sort(
    (a, b) =>
      (TOP_WALLETS as readonly string[]).indexOf(a.name) - (TOP_WALLETS as readonly string[]).indexOf(b.name),
  );

  if (recent.length > 0) {
    return {
      highlightedBy: "PreviouslyConnected",
      highlight: recent.slice(0, 3),
      others: [...recent.slice(3), ...sortWallets([...installed, ...top, ...rest], precedence)],
    };
  }
  if (installed.length > 0) {
    return {
      highlightedBy: "TopAndRecommended",
      highlight: [...installed.slice(0, 3), ...top],
      others: [...installed.slice(3), ...sortWallets(rest, precedence)],
    };
  }
  if (top.length === 0 && rest.length === 0) {
    return { highlightedBy: "Onboarding", highlight: [], others: [] };
  }
  return { highlightedBy: "TopWallet", highlight: top, others: sortWallets(rest, precedence) };
}
