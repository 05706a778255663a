import { createStore, useStore } from "../lib/create-store.ts";

/** Whether the connect-wallet modal is open. */
export const walletModalStore = createStore(false);

export function openWalletModal(): void {
  walletModalStore.set(true);
}

export function closeWalletModal(): void {
  walletModalStore.set(false);
}

export function useWalletModalOpen(): boolean {
  return useStore(walletModalStore);
}
