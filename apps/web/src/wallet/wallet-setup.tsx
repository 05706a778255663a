import type { Adapter } from "@solana/wallet-adapter-base";
import { ConnectionProvider, useWallet, WalletProvider } from "@solana/wallet-adapter-react";
import { lazy, type ReactNode, Suspense, useEffect, useMemo, useRef } from "react";
import type { Cluster } from "../config/runtime-config.ts";
import { getDeepLinkAdapters } from "./deep-link-wallets.ts";
import { DevWalletAdapter } from "./dev-wallet-adapter.ts";
import { createMobileWalletAdapter, isAndroid } from "./mobile-wallet.ts";
import type { WalletModalTheme } from "./modal/wallet-modal.tsx";
import { getNotInstalledAdapters } from "./not-installed-wallets.ts";
import { rememberConnectedWallet } from "./previously-connected.ts";
import { handleWalletError } from "./wallet-errors.ts";
import { takeUserPickedWallet, useWalletModalOpen } from "./wallet-modal-store.ts";
import { getWalletNotificationPayload, type WalletNotifications } from "./wallet-notifications.ts";

const ConnectWalletModal = lazy(() => import("./connect-wallet-modal.tsx"));

/**
 * Wallets we add ourselves: the development wallet (localnet only) and, on iOS Safari, deep-link
 * wallets, and on Android the mobile wallet adapter (our app identity and cluster), and placeholders for
 * Phantom, Solflare and Backpack when not installed. Installed wallets come from wallet-standard discovery.
 */
export function getAppWalletAdapters(
  cluster: Cluster,
  userAgent: string = globalThis.navigator?.userAgent ?? "",
): Adapter[] {
  const adapters: Adapter[] = cluster === "localnet" ? [new DevWalletAdapter()] : [];
  if (isAndroid(userAgent))
    adapters.push(createMobileWalletAdapter(cluster, globalThis.location?.origin ?? ""));
  adapters.push(...getDeepLinkAdapters(userAgent));
  // the top three preferred wallets are always offered; an installed one replaces its placeholder (same name)
  return [...adapters, ...getNotInstalledAdapters(adapters.map((a) => a.name))];
}

/** Fires notifications for connecting / connect / disconnect and remembers connected wallets. */
function WalletEvents({ notifications }: { notifications: WalletNotifications }) {
  const { wallet, connecting } = useWallet();
  const adapter = wallet?.adapter ?? null;
  const lastKey = useRef<string | null>(null);

  useEffect(() => {
    if (adapter && connecting) notifications.onConnecting(getWalletNotificationPayload(adapter));
  }, [adapter, connecting, notifications]);

  useEffect(() => {
    if (!adapter) return;
    const onConnect = () => {
      const payload = { ...getWalletNotificationPayload(adapter), isAutoConnect: !takeUserPickedWallet() };
      lastKey.current = payload.publicKey;
      rememberConnectedWallet(adapter.name);
      notifications.onConnect(payload);
    };
    const onDisconnect = () => {
      notifications.onDisconnect(getWalletNotificationPayload(adapter, lastKey.current));
      lastKey.current = null;
    };
    if (adapter.connected && lastKey.current === null) onConnect();
    adapter.on("connect", onConnect);
    adapter.on("disconnect", onDisconnect);
    return () => {
      adapter.off("connect", onConnect);
      adapter.off("disconnect", onDisconnect);
    };
  }, [adapter, notifications]);
  return null;
}

function WalletModalHost({
  explanationUrl,
  modalTheme,
}: {
  explanationUrl: string | null;
  modalTheme: WalletModalTheme | null;
}) {
  const open = useWalletModalOpen();
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <ConnectWalletModal explanationUrl={explanationUrl} modalTheme={modalTheme} />
    </Suspense>
  );
}

/**
 * Connection + wallet providers: wallet-standard discovery and the mobile wallet adapter come with
 * @solana/wallet-adapter-react; the selection is stored under `walletName` and auto-connect is tried once.
 */
export function WalletSetup({
  rpcUrl,
  cluster,
  explanationUrl,
  modalTheme = null,
  notifications,
  children,
}: {
  rpcUrl: string;
  cluster: Cluster;
  explanationUrl: string | null;
  modalTheme?: WalletModalTheme | null;
  notifications: WalletNotifications;
  children: ReactNode;
}) {
  const adapters = useMemo(() => getAppWalletAdapters(cluster), [cluster]);
  return (
    <ConnectionProvider endpoint={rpcUrl} config={{ commitment: "confirmed" }}>
      <WalletProvider wallets={adapters} autoConnect localStorageKey="walletName" onError={handleWalletError}>
        <WalletEvents notifications={notifications} />
        {children}
        <WalletModalHost explanationUrl={explanationUrl} modalTheme={modalTheme} />
      </WalletProvider>
    </ConnectionProvider>
  );
}
