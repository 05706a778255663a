import { readJsonStorage, writeStorage } from "../lib/storage.ts";

/** localStorage key of the wallets connected before, most recent first. */
export const PREVIOUSLY_CONNECTED_STORAGE_KEY = "previously-connected-wallets";

/** Names of wallets connected before, most recent first. */
export function getPreviouslyConnected(): string[] {
  const list = readJsonStorage<unknown>(PREVIOUSLY_CONNECTED_STORAGE_KEY, []);
  return Array.isArray(list) ? list.filter((n): n is string => typeof n === "string") : [];
}

/** Moves `walletName` to the front of the stored list. */
export function rememberConnectedWallet(walletName: string): string[] {
  const next = [walletName, ...getPreviouslyConnected().filter((n) => n !== walletName)];
  writeStorage(PREVIOUSLY_CONNECTED_STORAGE_KEY, JSON.stringify(next));
  return next;
}
