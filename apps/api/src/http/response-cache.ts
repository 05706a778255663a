/**
 * A small time-bounded cache for answers of public list routes (the same for every client). An entry is
 * fresh for `ttlMs`; after that the stale answer is still served while one reload runs in the background
 * (so no request waits on a reload once a key was loaded). At most `maxEntries` are kept (the oldest goes
 * first). ttlMs 0 disables it.
 */
export interface ResponseCache<T> {
  get(key: string, load: () => Promise<T>): Promise<T>;
  clear(): void;
}

interface Entry<T> {
  at: number;
  value: Promise<T>;
  reloading: boolean;
}

export function createResponseCache<T>(
  ttlMs: number,
  maxEntries = 500,
  now: () => number = Date.now,
): ResponseCache<T> {
  const entries = new Map<string, Entry<T>>();
  function insert(key: string, value: Promise<T>): Promise<T> {
    entries.delete(key);
    entries.set(key, { at: now(), value, reloading: false });
    // A failed load is not kept.
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key);
    });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    return value;
  }
  return {
    get(key, load) {
      if (ttlMs <= 0) return load();
      const hit = entries.get(key);
      if (hit === undefined) return insert(key, load());
      if (now() - hit.at >= ttlMs && !hit.reloading) {
        hit.reloading = true;
        const next = load();
        next.then(
          () => insert(key, next),
          () => {
            hit.reloading = false;
          },
        );
      }
      return hit.value;
    },
    clear: () => entries.clear(),
  };
}
