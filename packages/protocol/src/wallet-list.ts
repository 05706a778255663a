/**
 * Wallet list rules of the connection modal (spec section 4 "Wallet connection").
 */
import { PREFERRED_WALLETS, WALLET_LIST_SHADE_THRESHOLD } from "./constants.ts";

/** Wallet adapter ready states. */
export const WALLET_READY_STATES = ["Installed", "NotDetected", "Loadable", "Unsupported"] as const;
export type WalletReadyState = (typeof WALLET_READY_STATES)[number];

/** What the rules need of a wallet. */
export interface WalletEntry {
  name: string;
  readyState: WalletReadyState;
}

const READY_RANK: Readonly<Record<WalletReadyState, number>> = {
  Installed: 0,
  Loadable: 1,
  NotDetected: 2,
  Unsupported: 2,
};

/**
 * Sort wallets: Installed, then Loadable, then NotDetected and Unsupported; within a group by the
 * configured precedence (names listed first, in that order), then input order.
 */
export function sortWallets<W extends WalletEntry>(
  wallets: readonly W[],
  precedence: readonly string[] = [],
): W[] {
  const order = (name: string) => {
    const i = precedence.indexOf(name);
    return i === -1 ? precedence.length : i;
  };
  return wallets
    .map((wallet, index) => ({ wallet, index }))
    .sort(
      (a, b) =>
        READY_RANK[a.wallet.readyState] - READY_RANK[b.wallet.readyState] ||
        order(a.wallet.name) - order(b.wallet.name) ||
        a.index - b.index,
    )
    .map(({ wallet }) => wallet);
}

/** How the modal shows the wallets. */
export type WalletModalLayout<W extends WalletEntry> =
  | { kind: "recent"; title: "Recently used"; highlighted: W[]; others: W[]; shadeOthers: boolean }
  | { kind: "recommended"; title: "Recommended wallets"; highlighted: W[]; others: W[]; shadeOthers: boolean }
  | { kind: "top"; highlighted: W[]; others: W[]; shadeOthers: boolean }
  | { kind: "onboarding" };

/**
 * Group wallets for the modal: previously connected ones (first 3 highlighted) if any; else the
 * installed wallets plus the top three preferred (Phantom, Solflare, Backpack); else the onboarding
 * screen when no wallet is installed or loadable; else the top wallets (first 3 highlighted).
 * `wallets` should already be sorted with {@link sortWallets}. The rest are shaded when more than 6.
 */
export function getWalletModalLayout<W extends WalletEntry>(
  wallets: readonly W[],
  previouslyConnected: readonly string[] = [],
  preferred: readonly string[] = PREFERRED_WALLETS,
): WalletModalLayout<W> {
  const split = (highlighted: W[]) => {
    const others = wallets.filter((w) => !highlighted.includes(w));
    return { highlighted, others, shadeOthers: others.length > WALLET_LIST_SHADE_THRESHOLD };
  };
  const recent = previouslyConnected
    .map((name) => wallets.find((w) => w.name === name))
    .filter((w): w is W => w !== undefined);
  if (recent.length > 0) return { kind: "recent", title: "Recently used", ...split(recent.slice(0, 3)) };
  const installed = wallets.filter((w) => w.readyState === "Installed");
  if (installed.length > 0) {
    const top = preferred
      .slice(0, 3)
      .map((name) => wallets.find((w) => w.name === name))
      .filter((w): w is W => w !== undefined && !installed.includes(w));
    return { kind: "recommended", title: "Recommended wallets", ...split([...installed, ...top]) };
  }
  if (!wallets.some((w) => w.readyState === "Loadable")) return { kind: "onboarding" };
  return { kind: "top", ...split(wallets.slice(0, 3)) };
}
