import type { Adapter } from "@solana/wallet-adapter-base";
import { useWallet } from "@solana/wallet-adapter-react";
import { useMemo } from "react";
import { useTheme } from "../theme/theme.ts";
import { getPreferredLanguage, type Language } from "./modal/translations.ts";
import { WalletModal, type WalletModalTheme } from "./modal/wallet-modal.tsx";
import { getPreviouslyConnected } from "./previously-connected.ts";
import { closeWalletModal, noteUserPickedWallet } from "./wallet-modal-store.ts";
import { getWalletNotificationPayload, TOAST_WALLET_NOTIFICATIONS } from "./wallet-notifications.ts";

/** The connect modal wired to the wallet provider (lazy-loaded: the first page does not need it). */
export default function ConnectWalletModal({
  explanationUrl,
  modalTheme,
  language = getPreferredLanguage(globalThis.navigator?.languages ?? []),
}: {
  explanationUrl: string | null;
  modalTheme: WalletModalTheme | null;
  language?: Language;
}) {
  const { wallets, select } = useWallet();
  const { theme } = useTheme();
  const adapters = useMemo(() => wallets.map((w) => w.adapter), [wallets]);
  const previouslyConnected = useMemo(() => getPreviouslyConnected(), []);
  return (
    <WalletModal
      adapters={adapters}
      previouslyConnected={previouslyConnected}
      theme={modalTheme ?? theme}
      language={language}
      explanationUrl={explanationUrl}
      onSelect={(adapter: Adapter) => {
        // autoConnect is on: selecting a wallet makes the provider connect it.
        noteUserPickedWallet();
        select(adapter.name);
        closeWalletModal();
      }}
      onNotInstalled={(adapter) =>
        TOAST_WALLET_NOTIFICATIONS.onNotInstalled(getWalletNotificationPayload(adapter))
      }
      onClose={closeWalletModal}
    />
  );
}
