/** localStorage access that never throws (private mode, disabled storage, SSR). */
export function readStorage(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** Writes (or removes, for null) a localStorage entry; storage failures are ignored. */
export function writeStorage(key: string, value: string | null): void {
  try {
    if (value === null) globalThis.localStorage?.removeItem(key);
    else globalThis.localStorage?.setItem(key, value);
  } catch {
    // Storage full or disabled: the setting lasts for this page only.
  }
}

/** Parses a JSON localStorage entry, returning the fallback for missing or corrupt values. */
export function readJsonStorage<T>(key: string, fallback: T): T {
  const raw = readStorage(key);
  if (raw === null) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}
