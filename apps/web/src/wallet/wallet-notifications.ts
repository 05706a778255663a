import { shortenAddress } from "@cistern/protocol";
import type { Adapter } from "@solana/wallet-adapter-base";
import { showToast } from "../toasts/toast-store.ts";

/** Payload of every wallet notification (spec section 4). */
export interface WalletNotificationPayload {
  publicKey: string;
  shortAddress: string;
  walletName: string;
  metadata: { name: string; url: string; icon: string; supportedTransactionVersions: string[] };
  /** True when the wallet reconnected by itself (page load with a remembered wallet), not at the user's request. */
  isAutoConnect?: boolean;
}

export interface WalletNotifications {
  onConnecting(payload: WalletNotificationPayload): void;
  onConnect(payload: WalletNotificationPayload): void;
  onDisconnect(payload: WalletNotificationPayload): void;
  onNotInstalled(payload: WalletNotificationPayload): void;
}

/** Builds the notification payload for an adapter (publicKey empty when not connected). */
export function getWalletNotificationPayload(
  adapter: Adapter,
  publicKey?: string | null,
): WalletNotificationPayload {
  const key = publicKey ?? adapter.publicKey?.toBase58() ?? "";
  return {
    publicKey: key,
    shortAddress: key ? shortenAddress(key) : "",
    walletName: adapter.name,
    metadata: {
      name: adapter.name,
      url: adapter.url,
      icon: adapter.icon,
      supportedTransactionVersions: adapter.supportedTransactionVersions
        ? [...adapter.supportedTransactionVersions].map(String)
        : [],
    },
  };
}

/** The app's notifications: toasts for connect, disconnect and not-installed wallets. */
export const TOAST_WALLET_NOTIFICATIONS: WalletNotifications = {
  onConnecting() {
    // The modal already shows the choice; no toast while the wallet opens.
  },
  onConnect({ shortAddress, walletName, isAutoConnect }) {
    // A remembered wallet reconnecting on page load is silent: the header already shows it.
    if (isAutoConnect) return;
    showToast({
      kind: "success",
      title: "Wallet Connected",
      description: `Connected to ${walletName} (${shortAddress})`,
    });
  },
  onDisconnect({ walletName }) {
    showToast({ kind: "info", title: "Wallet Disconnected", description: `Disconnected from ${walletName}` });
  },
  onNotInstalled({ walletName }) {
    showToast({
      kind: "info",
      title: `${walletName} Wallet is not installed`,
      description: "Install it, then refresh the page.",
    });
  },
};
