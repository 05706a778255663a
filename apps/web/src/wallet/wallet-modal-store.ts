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

/** Set when the user picks a wallet in the modal: the next connect is theirs, not the silent auto-reconnect. */
let userPickedWallet = false;

export function noteUserPickedWallet(): void {
  userPickedWallet = true;
}

/** Whether the connect happening now was asked for by the user (read once). */
export function takeUserPickedWallet(): boolean {
  const picked = userPickedWallet;
  userPickedWallet = false;
  return picked;
}
