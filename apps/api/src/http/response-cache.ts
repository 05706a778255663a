/**
 * A small time-bounded cache for answers of public list routes (the same for every client). An entry is
 * reused for at most `ttlMs` from when its load started; after that the next request loads again (callers
 * arriving meanwhile share that one load). So an answer is never older than `ttlMs` plus one query: a
 * pool created on chain is listed as soon as the indexer has it and at most `ttlMs` later. At most
 * `maxEntries` are kept (the oldest goes first). ttlMs 0 disables it.
 */
export interface ResponseCache<T> {
  get(key: string, load: () => Promise<T>): Promise<T>;
  clear(): void;
}

interface Entry<T> {
  at: number;
  value: Promise<T>;
}

export function createResponseCache<T>(
  ttlMs: number,
  maxEntries = 500,
  now: () => number = Date.now,
): ResponseCache<T> {
  const entries = new Map<string, Entry<T>>();
  function insert(key: string, value: Promise<T>): Promise<T> {
    entries.delete(key);
    entries.set(key, { at: now(), value });
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
      if (hit === undefined || now() - hit.at >= ttlMs) return insert(key, load());
      return hit.value;
    },
    clear: () => entries.clear(),
  };
}
