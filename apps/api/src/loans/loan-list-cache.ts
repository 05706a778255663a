import { DEFAULT_PAGE_LIMIT } from "../http/schemas.ts";
import { type LoanFilterColumn, type LoanPage, type LoanStatusFilter, pageOf } from "./loan-queries.ts";
import type { LoanRow } from "./loan-view.ts";

/**
 * Loan list pages (the database rows of GET /loan/user and the other loan lists) kept in memory between the
 * indexer's writes: a wallet that has just borrowed polls /loan/user until its loan shows, and every poll between
 * two writes of its loans reads the same rows. Only the indexer writes the loans table, so the cache is on only in
 * the process that leads the indexer (it then sees every write; other API processes over the same PostgreSQL read
 * the database), and the indexer drops what a write changes once the write is committed: a borrower's pages when a
 * loan of theirs was written, every page of the other lists (lender, pool, collection, currency) on any loan
 * write, everything on a write it cannot attribute (a reconcile, a backfill, a reindex). A page read while a write
 * that concerns it was committed is not kept (it may predate the write). Prices and times are applied to the rows
 * per request, never cached.
 */
export interface LoanListCache {
  /** Whether pages are kept (the indexer leads in this process). */
  readonly enabled: boolean;
  /** Turns the cache on or off (off forgets everything). */
  setEnabled(on: boolean): void;
  /** The page from memory, or `load()`ed and kept when no write concerning it was committed meanwhile. */
  read(key: LoanPageKey, load: () => Promise<LoanPage>): Promise<LoanPage>;
  /**
   * A committed write changed loans of these borrowers (and so, possibly, any other list). `loans`, read in the
   * writing transaction after its writes: every loan of each borrower, newest first; their pages (those kept and
   * the first page a wallet asks for) are then made from them instead of being read again.
   */
  invalidateBorrowers(
    borrowers: Iterable<string>,
    loans?: ReadonlyMap<string, readonly LoanRow[]> | null,
  ): void;
  /** A committed write changed loans it cannot name. */
  invalidateAll(): void;
  /** Pages kept now. */
  readonly size: number;
}

export interface LoanPageKey {
  column: LoanFilterColumn;
  value: string;
  status: LoanStatusFilter | undefined;
  limit: number;
  offset: number;
}

/** Most pages kept (the oldest kept is dropped first). */
const MAX_PAGES = 20_000;
/** Most borrowers whose last invalidation is remembered for the reads in flight; beyond, everything is dropped. */
const MAX_REMEMBERED_BORROWERS = 50_000;

/** Creates an empty cache, off. */
export function createLoanListCache(): LoanListCache {
  let enabled = false;
  /** Counts invalidations: a read remembers the count at its start. */
  let clock = 0;
  let allInvalidatedAt = 0;
  /** Pages of the lists other than the borrower's: every loan write may change them. */
  let othersInvalidatedAt = 0;
  const borrowerInvalidatedAt = new Map<string, number>();
  const pages = new Map<string, { key: LoanPageKey; page: LoanPage; borrower: string | undefined }>();
  /** The kept pages of each borrower's list. */
  const byBorrower = new Map<string, Set<string>>();

  const keyOf = (k: LoanPageKey) =>
    `${k.column}\u0000${k.value}\u0000${k.status ?? ""}\u0000${k.limit}\u0000${k.offset}`;
  const drop = (key: string) => {
    const entry = pages.get(key);
    if (entry === undefined) return;
    pages.delete(key);
    if (entry.borrower !== undefined) {
      const keys = byBorrower.get(entry.borrower);
      keys?.delete(key);
      if (keys?.size === 0) byBorrower.delete(entry.borrower);
    }
  };
  const store = (k: LoanPageKey, page: LoanPage) => {
    const key = keyOf(k);
    const borrower = k.column === "borrower" ? k.value : undefined;
    drop(key);
    if (pages.size >= MAX_PAGES) drop(pages.keys().next().value!);
    pages.set(key, { key: k, page, borrower });
    if (borrower !== undefined) {
      const keys = byBorrower.get(borrower) ?? byBorrower.set(borrower, new Set()).get(borrower)!;
      keys.add(key);
    }
  };
  const clear = () => {
    pages.clear();
    byBorrower.clear();
    borrowerInvalidatedAt.clear();
    allInvalidatedAt = ++clock;
  };
  const invalidateOthers = () => {
    othersInvalidatedAt = ++clock;
    for (const [key, entry] of pages) if (entry.borrower === undefined) pages.delete(key);
  };

  return {
    get enabled() {
      return enabled;
    },
    get size() {
      return pages.size;
    },
    setEnabled(on) {
      enabled = on;
      clear();
    },
    async read(k, load) {
      if (!enabled) return load();
      const hit = pages.get(keyOf(k));
      if (hit !== undefined) return hit.page;
      const startedAt = clock;
      const page = await load();
      const borrower = k.column === "borrower" ? k.value : undefined;
      const invalidatedAt = Math.max(
        allInvalidatedAt,
        borrower === undefined ? othersInvalidatedAt : (borrowerInvalidatedAt.get(borrower) ?? 0),
      );
      if (enabled && invalidatedAt <= startedAt) store(k, page);
      return page;
    },
    invalidateBorrowers(borrowers, loans) {
      if (!enabled) return;
      if (borrowerInvalidatedAt.size >= MAX_REMEMBERED_BORROWERS) return clear();
      const at = ++clock;
      for (const borrower of borrowers) {
        borrowerInvalidatedAt.set(borrower, at);
        const kept = [...(byBorrower.get(borrower) ?? [])].map((key) => pages.get(key)!.key);
        for (const key of byBorrower.get(borrower) ?? []) drop(key);
        const all = loans?.get(borrower);
        if (all === undefined) continue;
        const first: LoanPageKey = {
          column: "borrower",
          value: borrower,
          status: undefined,
          limit: DEFAULT_PAGE_LIMIT,
          offset: 0,
        };
        for (const k of [first, ...kept]) store(k, pageOf(all, k.status, k.limit, k.offset));
      }
      invalidateOthers();
    },
    invalidateAll() {
      if (enabled) clear();
    },
  };
}

const caches = new WeakMap<object, LoanListCache>();

/** The one cache of a database handle (the indexer and the routes share the handle, so they share the cache). */
export function loanListCacheOf(db: object): LoanListCache {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = createLoanListCache();
    caches.set(db, cache);
  }
  return cache;
}
