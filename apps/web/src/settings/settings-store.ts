import {
  DEFAULT_EXPLORER,
  DEFAULT_PRIORITY_FEE_SETTINGS,
  type Explorer,
  type PriorityFeeSettings,
  parseExplorer,
  STORAGE_KEY_PREFERRED_EXPLORER,
  STORAGE_KEY_RPC_URL,
} from "@cistern/protocol";
import { createStore, useStore } from "../lib/create-store.ts";
import { readJsonStorage, readStorage, writeStorage } from "../lib/storage.ts";
import { getPriorityFeeAmountError, parsePriorityFeeSettings } from "./priority-fee.ts";

/** localStorage key of the priority-fee settings. */
export const PRIORITY_FEE_STORAGE_KEY = "priority-fee";

export interface Settings {
  explorer: Explorer;
  /** The user's RPC URL, or null to use the configured default. */
  rpcUrl: string | null;
  priorityFee: PriorityFeeSettings;
}

/** Settings as stored in localStorage, with defaults for missing or invalid entries. */
export function loadSettings(): Settings {
  const explorer = readStorage(STORAGE_KEY_PREFERRED_EXPLORER);
  const rpcUrl = readStorage(STORAGE_KEY_RPC_URL);
  return {
    explorer: parseExplorer(explorer),
    rpcUrl: rpcUrl !== null && isHttpUrl(rpcUrl) ? rpcUrl : null,
    priorityFee: parsePriorityFeeSettings(readJsonStorage<unknown>(PRIORITY_FEE_STORAGE_KEY, null)),
  };
}

/** True for an absolute http(s) URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

export const settingsStore = createStore<Settings>(loadSettings());

/** Stores the preferred explorer. */
export function setExplorer(explorer: Explorer): void {
  writeStorage(STORAGE_KEY_PREFERRED_EXPLORER, explorer);
  settingsStore.set((s) => ({ ...s, explorer }));
}

/** Stores a custom RPC URL (null resets to the default). Throws on a non-http(s) URL. */
export function setRpcUrl(rpcUrl: string | null): void {
  if (rpcUrl !== null && !isHttpUrl(rpcUrl)) throw new Error(`Not an http(s) URL: ${rpcUrl}`);
  writeStorage(STORAGE_KEY_RPC_URL, rpcUrl);
  settingsStore.set((s) => ({ ...s, rpcUrl }));
}

/**
 * Stores the priority-fee settings. Throws, storing nothing, when the amount is one the API refuses
 * (not a SOL amount with at most 9 decimals, 0, or above 0.01 SOL).
 */
export function setPriorityFee(priorityFee: PriorityFeeSettings): void {
  const error = getPriorityFeeAmountError(priorityFee.amountSol);
  if (error !== null) throw new Error(`Priority fee ${priorityFee.amountSol} SOL: ${error}`);
  writeStorage(PRIORITY_FEE_STORAGE_KEY, JSON.stringify(priorityFee));
  settingsStore.set((s) => ({ ...s, priorityFee }));
}

/** Resets every setting to its default. */
export function resetSettings(): void {
  writeStorage(STORAGE_KEY_PREFERRED_EXPLORER, null);
  writeStorage(STORAGE_KEY_RPC_URL, null);
  writeStorage(PRIORITY_FEE_STORAGE_KEY, null);
  settingsStore.set({
    explorer: DEFAULT_EXPLORER,
    rpcUrl: null,
    priorityFee: { ...DEFAULT_PRIORITY_FEE_SETTINGS },
  });
}

export function useSettings(): Settings {
  return useStore(settingsStore);
}
