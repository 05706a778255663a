/**
 * A small time-bounded cache for answers of public list routes (the same for every client). Entries live
 * `ttlMs`; at most `maxEntries` are kept (the oldest goes first). ttlMs 0 disables it.
 */
export interface ResponseCache<T> {
  get(key: string, load: () => Promise<T>): Promise<T>;
  clear(): void;
}

export function createResponseCache<T>(
  ttlMs: number,
  maxEntries = 500,
  now: () => number = Date.now,
): ResponseCache<T> {
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  return {
    get(key, load) {
      if (ttlMs <= 0) return load();
      const hit = entries.get(key);
      if (hit !== undefined && now() - hit.at < ttlMs) return hit.value;
      const value = load();
      entries.delete(key);
      entries.set(key, { at: now(), value });
      // A failed load is not kept.
      value.catch(() => entries.delete(key));
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      return value;
    },
    clear: () => entries.clear(),
  };
}
