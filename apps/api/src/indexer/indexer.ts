import { decodeAccount } from "@cistern/sdk";
import type { FastifyBaseLogger } from "fastify";
import type { Database, Queryable } from "../db/database.ts";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { loanListCacheOf } from "../loans/loan-list-cache.ts";
import { queryBorrowersLoans } from "../loans/loan-queries.ts";
import type { LoanRow } from "../loans/loan-view.ts";
import { upsertRequest } from "../requests/request-store.ts";
import type { RpcClient } from "../solana/rpc-client.ts";
import { connectProgramPubSub, type PubSubConnection } from "./pubsub-client.ts";
import { backfillSignatures } from "./signature-backfill.ts";
import {
  type LoanWrite,
  markPoolClosed,
  readCursor,
  recordTransactionFacts,
  saveCursor,
  upsertBank,
  upsertLoan,
  upsertLoans,
  upsertPool,
} from "./store.ts";
import { readTransactionFacts, type TransactionFacts } from "./transaction-facts.ts";

/** Advisory lock key: exactly one API process per database indexes. */
export const INDEXER_LOCK_KEY = 7_402_001;

export interface IndexerOptions {
  db: Database;
  rpc: RpcClient;
  wsUrl: string;
  programId: string;
  reconcileIntervalMs: number;
  log: Pick<FastifyBaseLogger, "info" | "warn" | "error">;
  now?: () => number;
}

export interface ReconcileResult {
  slot: number;
  banks: number;
  pools: number;
  loans: number;
  requests: number;
  closedPools: number;
}

export interface Indexer {
  /** Takes the leader lock (or keeps retrying it) and starts following the program. Resolves with leadership. */
  start(): Promise<boolean>;
  stop(): Promise<void>;
  isLeader(): boolean;
  /** Full pass over getProgramAccounts; idempotent. */
  reconcile(): Promise<ReconcileResult>;
  /** Applies one account as read at `slot` (used by the subscription and by tests). */
  applyAccount(pubkey: string, data: Uint8Array, slot: number): Promise<void>;
  /**
   * Indexes one landed program transaction (what a logs notification triggers): the loans it opened or closed,
   * with its signature, actor and the sale or margin opening it logged; pools it closed.
   */
  applyTransaction(signature: string, slot: number): Promise<void>;
  /** Resolves once every queued subscription update has been written. */
  idle(): Promise<void>;
  /** Deletes every chain-derived row (banks, pools, loans, events, cursor) and rebuilds them from the chain. */
  reindex(): Promise<ReconcileResult>;
}

type Decoded = ReturnType<typeof decodeAccount>;

function tryDecode(data: Uint8Array): Decoded | null {
  try {
    return decodeAccount(data);
  } catch {
    return null;
  }
}

/** Creates the indexer of the lending program. */
export function createIndexer(options: IndexerOptions): Indexer {
  const { db, rpc, programId, log } = options;
  const now = options.now ?? (() => Date.now() / 1000);
  /** The loan lists kept in memory by this process's routes: dropped as the indexer's writes commit. */
  const loanLists = loanListCacheOf(db);
  let leader = false;
  let stopped = false;
  let pubsub: PubSubConnection | undefined;
  let reconcileTimer: NodeJS.Timeout | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let reconciling: Promise<ReconcileResult> | undefined;
  /** Subscription updates not written yet: each account's newest notification, and the landed signatures. */
  let pendingAccounts = new Map<string, { data: Uint8Array; slot: number }>();
  let pendingSignatures: { signature: string; slot: number }[] = [];
  let drainQueued = false;
  /**
   * The bytes and slot of each account as last written (committed) by this indexer: a reconcile skips rewriting an
   * account whose bytes it already wrote and only moves its row's slot forward (one UPDATE per table).
   */
  const applied = new Map<string, { data: Uint8Array; slot: number }>();
  function noteApplied(pubkey: string, data: Uint8Array, slot: number): void {
    const known = applied.get(pubkey);
    if (known === undefined || known.slot <= slot) applied.set(pubkey, { data, slot });
  }
  function alreadyApplied(pubkey: string, data: Uint8Array): boolean {
    const known = applied.get(pubkey)?.data;
    return known !== undefined && Buffer.from(known.buffer, known.byteOffset, known.byteLength).equals(data);
  }

  function enqueue(task: () => Promise<unknown>): void {
    queue = queue.then(task).catch((error: unknown) => log.warn({ err: error }, "indexer update failed"));
  }

  async function lenderOf(q: Queryable, pool: string, bank: string): Promise<string | null> {
    const rows = await q.query<{ owner: string }>(
      "SELECT owner FROM pools WHERE pubkey = $1 UNION ALL SELECT owner FROM banks WHERE pubkey = $2",
      [pool, bank],
    );
    return rows[0]?.owner ?? null;
  }

  async function applyDecoded(
    q: Queryable,
    pubkey: string,
    decoded: Decoded,
    slot: number,
    lenders?: Map<string, string>,
  ): Promise<void> {
    switch (decoded.type) {
      case "Bank":
        return upsertBank(q, pubkey, decoded.account, slot);
      case "Pool":
        return upsertPool(q, pubkey, decoded.account, slot);
      case "Loan":
        return upsertLoan(q, pubkey, decoded.account, await lenderFor(q, decoded.account, lenders), slot);
      case "Request":
        return upsertRequest(q, pubkey, decoded.account, slot);
      case "Config":
        return;
    }
  }

  /** The lender (pool owner) of a loan about to be written; its pool and bank are read first if not indexed yet. */
  async function lenderFor(
    q: Queryable,
    loan: Extract<Decoded, { type: "Loan" }>["account"],
    lenders?: Map<string, string>,
  ): Promise<string> {
    // a batch writes pools before loans, and a pool's owner never changes: one read per pool and bank
    const lenderKey = `${loan.pool}/${loan.bank}`;
    let lender = lenders?.get(lenderKey) ?? (await lenderOf(q, loan.pool, loan.bank));
    if (lender === null) {
      // The loan arrived before its pool and bank: read them first.
      const parents = await rpc.getMultipleAccounts([loan.pool, loan.bank]);
      for (const parent of parents.accounts) {
        const parentDecoded = parent === null ? null : tryDecode(parent.data);
        if (parent !== null && parentDecoded !== null)
          await applyDecoded(q, parent.pubkey, parentDecoded, parents.slot);
      }
      lender = await lenderOf(q, loan.pool, loan.bank);
      // Without its pool or bank the lender is unknown: skip; the next reconcile writes the loan.
      if (lender === null) {
        throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `pool ${loan.pool} of a loan is not readable`);
      }
    }
    lenders?.set(lenderKey, lender);
    return lender;
  }

  async function applyAccount(pubkey: string, data: Uint8Array, slot: number): Promise<void> {
    const decoded = tryDecode(data);
    await db.transaction(async (tx) => {
      if (decoded === null) {
        // A closed pool is zeroed and emptied; anything else unreadable is ignored.
        if (data.every((b) => b === 0)) await markPoolClosed(tx, pubkey, slot);
        return;
      }
      await applyDecoded(tx, pubkey, decoded, slot);
      await saveCursor(tx, programId, slot, null, null);
    });
    if (decoded?.type === "Loan") loanLists.invalidateBorrowers([decoded.account.borrower]);
    if (decoded === null) applied.delete(pubkey);
    else noteApplied(pubkey, data, slot);
  }

  async function doReconcile(): Promise<ReconcileResult> {
    const { slot, accounts } = await rpc.getProgramAccounts(programId);
    const decoded = accounts
      .map((a) => ({ pubkey: a.pubkey, data: a.data, decoded: tryDecode(a.data) }))
      .filter((a) => a.decoded !== null) as { pubkey: string; data: Uint8Array; decoded: Decoded }[];
    const order = { Config: 0, Bank: 1, Pool: 2, Loan: 3, Request: 4 } as const;
    decoded.sort((a, b) => order[a.decoded.type] - order[b.decoded.type]);
    const result: ReconcileResult = { slot, banks: 0, pools: 0, loans: 0, requests: 0, closedPools: 0 };
    const livePools = new Set<string>();
    const BATCH = 500;
    const tables = { Bank: "banks", Pool: "pools", Loan: "loans", Request: "loan_requests" } as const;
    for (let i = 0; i < decoded.length; i += BATCH) {
      const batch = decoded.slice(i, i + BATCH);
      // accounts whose bytes this indexer wrote last: their rows only move to this slot
      const unchanged = new Map<string, string[]>();
      let rewritten = false;
      await db.transaction(async (tx) => {
        for (const entry of batch) {
          const type = entry.decoded.type;
          if (type !== "Config" && alreadyApplied(entry.pubkey, entry.data))
            unchanged.set(type, [...(unchanged.get(type) ?? []), entry.pubkey]);
          else await applyDecoded(tx, entry.pubkey, entry.decoded, slot);
          if (type === "Bank") result.banks++;
          if (type === "Pool") {
            result.pools++;
            livePools.add(entry.pubkey);
          }
          if (type === "Loan") {
            result.loans++;
            if (!unchanged.get(type)?.includes(entry.pubkey)) rewritten = true;
          }
          if (type === "Request") result.requests++;
        }
        for (const [type, pubkeys] of unchanged)
          await tx.query(
            `UPDATE ${tables[type as keyof typeof tables]} SET slot = $1 WHERE pubkey = ANY($2::text[]) AND slot < $1`,
            [slot, pubkeys],
          );
      });
      for (const entry of batch) noteApplied(entry.pubkey, entry.data, slot);
      // a loan row rewritten (a restart, a missed notification): its lists are read again
      if (rewritten) loanLists.invalidateAll();
    }
    await db.transaction(async (tx) => {
      const open = await tx.query<{ pubkey: string }>("SELECT pubkey FROM pools WHERE status <> 'Closed'");
      for (const row of open) {
        if (!livePools.has(row.pubkey)) {
          applied.delete(row.pubkey);
          await markPoolClosed(tx, row.pubkey, slot);
          result.closedPools++;
        }
      }
      await saveCursor(tx, programId, slot, null, Math.floor(now()));
      await snapshotAprs(tx, Math.floor(now()));
    });
    await backfillSignatures(db, rpc, programId, log).catch((error: unknown) =>
      log.warn({ err: error }, "signature backfill failed"),
    );
    // a backfill may record sales and down payments of any loan
    loanLists.invalidateAll();
    return result;
  }

  /** The landed transaction's facts; null when the RPC cannot tell (no getTransaction) or has not got it yet. */
  async function readLanded(signature: string): Promise<TransactionFacts | null> {
    // A just-confirmed transaction may not be in the RPC's history yet: a few short retries. An RPC without
    // getTransaction fails at once and leaves the rest to the account notifications and the reconcile.
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 200));
      try {
        const facts = await readTransactionFacts(rpc, signature, programId);
        if (facts !== null) return facts;
      } catch {
        return null;
      }
    }
    return null;
  }

  /**
   * Writes a batch of subscription updates in one database transaction: the accounts notified (each at its newest
   * notification) and the landed program transactions (what logs notifications name), each indexed from the
   * transaction itself, whatever order the websocket delivers its logs and account notifications in (a node sends
   * the logs first): the loans it opened or closed are written together with what the transaction tells about them
   * (each event's signature and actor, a sale's proceeds, slot and signature, a margin position's down payment),
   * so a sold loan never reads Sold without its sale. An account the batch was notified of at or after the
   * transaction's slot is taken from its notification; any other is read now. A closed pool leaves the program
   * (its account is deleted, which programSubscribe does not report): indexed open pools among the accounts a
   * transaction wrote that are gone are marked Closed. Loan events still unsigned are backfilled only when a
   * transaction could not be read or did not sign the events it names.
   */
  async function applyBatch(
    notified: ReadonlyMap<string, { data: Uint8Array; slot: number }>,
    signatures: readonly { signature: string; slot: number }[],
  ): Promise<void> {
    const read = await Promise.all(signatures.map((s) => readLanded(s.signature)));
    const landed = read.filter((f): f is TransactionFacts => f !== null);
    let missed = landed.length < signatures.length;
    const writable = [...new Set(landed.flatMap((f) => f.writableAccounts))];
    const openPools =
      writable.length === 0
        ? []
        : await db.transaction(
            (q) =>
              q.query<{ pubkey: string }>(
                "SELECT pubkey FROM pools WHERE pubkey = ANY($1::text[]) AND status <> 'Closed'",
                [writable],
              ),
            { urgent: true },
          );
    const pools = new Set(openPools.map((p) => p.pubkey));
    // the slot from which an account must be read for each transaction touching it
    const needed = new Map<string, number>();
    for (const facts of landed) {
      const touched = [
        ...facts.loans.map((l) => l.loan),
        ...facts.writableAccounts.filter((a) => pools.has(a)),
      ];
      for (const key of touched) needed.set(key, Math.max(needed.get(key) ?? 0, facts.slot));
    }
    const keys = [...needed]
      .filter(([key, slot]) => (notified.get(key)?.slot ?? -1) < slot)
      .map(([key]) => key);
    const fresh = keys.length === 0 ? { slot: 0, accounts: [] } : await rpc.getMultipleAccounts(keys);
    const maxSlot = Math.max(
      0,
      ...signatures.map((s) => s.slot),
      ...[...notified.values()].map((n) => n.slot),
    );
    const readSlot = Math.max(fresh.slot, ...landed.map((f) => f.slot));
    // every account's newest known state: a notification, or what was just read (null: gone from the program)
    const accounts = new Map<string, { data: Uint8Array | null; slot: number }>(notified);
    for (const [i, account] of fresh.accounts.entries())
      accounts.set(keys[i]!, {
        data: account === null || account.owner !== programId ? null : account.data,
        slot: readSlot,
      });
    const order = { Config: 0, Bank: 1, Pool: 2, Loan: 3, Request: 4 } as const;
    const written: { pubkey: string; data: Uint8Array; decoded: Decoded; slot: number }[] = [];
    const closed: { pubkey: string; slot: number }[] = [];
    for (const [pubkey, { data, slot }] of accounts) {
      const decoded = data === null ? null : tryDecode(data);
      if (decoded !== null && data !== null) written.push({ pubkey, data, decoded, slot });
      // a zeroed account (a closed pool as notified) or a pool gone from the program is closed
      else if (data === null ? pools.has(pubkey) : data.every((b) => b === 0)) closed.push({ pubkey, slot });
    }
    written.sort((a, b) => order[a.decoded.type] - order[b.decoded.type]);
    const lastSignature = signatures.at(-1)?.signature ?? null;
    const borrowers = [
      ...new Set(written.flatMap((w) => (w.decoded.type === "Loan" ? [w.decoded.account.borrower] : []))),
    ];
    /** Every loan of the batch's borrowers as committed: their loan lists, kept in memory, are made from them. */
    let borrowersLoans: Map<string, LoanRow[]> | null = null;
    await db.transaction(
      async (q) => {
        for (const pool of closed) await markPoolClosed(q, pool.pubkey, pool.slot);
        const lenders = new Map<string, string>();
        // the loans together: one statement for their rows and one for their events (after banks and pools)
        const loanWrites: LoanWrite[] = [];
        for (const { pubkey, decoded, slot } of written)
          if (decoded.type === "Loan")
            loanWrites.push({
              pubkey,
              loan: decoded.account,
              lender: await lenderFor(q, decoded.account, lenders),
              slot,
            });
          else {
            if (loanWrites.length > 0) await upsertLoans(q, loanWrites.splice(0));
            await applyDecoded(q, pubkey, decoded, slot, lenders);
          }
        await upsertLoans(q, loanWrites);
        // every fact names an event of its loan to sign; fewer signed: a replay, or an event not written yet
        const signed = await recordTransactionFacts(q, landed);
        if (landed.some((facts, i) => signed[i]! < facts.loans.length)) missed = true;
        await saveCursor(q, programId, maxSlot, lastSignature, null);
        if (loanLists.enabled && borrowers.length > 0)
          borrowersLoans = await queryBorrowersLoans(q, borrowers);
      },
      { urgent: true },
    );
    for (const { pubkey, data, slot } of written) noteApplied(pubkey, data, slot);
    for (const { pubkey } of closed) applied.delete(pubkey);
    // the lists of every borrower whose loan the batch wrote (a sale or down payment of a loan the batch did not
    // write: every list)
    const loans = written.flatMap((w) => (w.decoded.type === "Loan" ? [w] : []));
    const writtenLoans = new Set(loans.map((w) => w.pubkey));
    if (
      landed.some((facts) =>
        facts.loans.some((l) => !writtenLoans.has(l.loan) && (l.sale ?? l.margin) !== null),
      )
    )
      loanLists.invalidateAll();
    else loanLists.invalidateBorrowers(borrowers, borrowersLoans);
    if (missed) {
      await backfillSignatures(db, rpc, programId, log);
      loanLists.invalidateAll();
    }
  }

  /**
   * Indexes one landed program transaction (see applyBatch): the loans it opened or closed, with its signature,
   * actor and the sale or margin opening it logged; pools it closed.
   */
  async function applyTransaction(signature: string, slot: number): Promise<void> {
    await applyBatch(new Map(), [{ signature, slot }]);
  }

  /**
   * Writes everything the subscription delivered since the last drain as one batch (repeated notifications of one
   * account coalesced to the newest). When the batch cannot be written as a whole (e.g. a loan whose pool is not
   * readable), each update is written on its own, as they came, so one bad update does not hold back the others.
   */
  async function drain(): Promise<void> {
    // let the notifications of one commit (a transaction's logs, then its accounts) arrive before the batch is cut
    await new Promise((r) => setImmediate(r));
    drainQueued = false;
    const notified = pendingAccounts;
    const signatures = pendingSignatures;
    pendingAccounts = new Map();
    pendingSignatures = [];
    if (notified.size === 0 && signatures.length === 0) return;
    try {
      await applyBatch(notified, signatures);
    } catch (error) {
      log.warn({ err: error }, "indexer batch failed; writing its updates one by one");
      for (const [pubkey, { data, slot }] of notified)
        await applyAccount(pubkey, data, slot).catch((e: unknown) =>
          log.warn({ err: e }, "indexer update failed"),
        );
      for (const { signature, slot } of signatures)
        await applyTransaction(signature, slot).catch((e: unknown) =>
          log.warn({ err: e }, "indexer update failed"),
        );
    }
  }

  function scheduleDrain(): void {
    if (drainQueued) return;
    drainQueued = true;
    enqueue(drain);
  }

  function noteAccount(pubkey: string, data: Uint8Array, slot: number): void {
    const known = pendingAccounts.get(pubkey);
    if (known === undefined || known.slot <= slot) pendingAccounts.set(pubkey, { data, slot });
    scheduleDrain();
  }

  function noteLogs(signature: string, slot: number): void {
    pendingSignatures.push({ signature, slot });
    scheduleDrain();
  }

  function reconcile(): Promise<ReconcileResult> {
    reconciling ??= doReconcile().finally(() => {
      reconciling = undefined;
    });
    return reconciling;
  }

  function follow(): void {
    pubsub = connectProgramPubSub(options.wsUrl, programId, {
      onProgramAccount: (pubkey, data, _lamports, slot) => noteAccount(pubkey, data, slot),
      onLogs: (signature, failed, slot) => {
        if (failed) return;
        noteLogs(signature, slot);
      },
      // After every (re)connect, catch up on anything missed while disconnected.
      onSubscribed: () => enqueue(() => reconcile()),
      onError: (error) => log.warn({ err: error }, "indexer websocket error"),
    });
    reconcileTimer = setInterval(() => enqueue(() => reconcile()), options.reconcileIntervalMs);
    reconcileTimer.unref();
  }

  async function tryLead(): Promise<boolean> {
    if (stopped || leader) return leader;
    leader = await db.tryAdvisoryLock(INDEXER_LOCK_KEY);
    if (leader) {
      // this process now sees every write to the loans: its loan lists may be kept in memory
      loanLists.setEnabled(true);
      const cursor = await readCursor(db, programId);
      log.info({ cursor }, "indexer leading; resuming from cursor");
      follow();
    }
    return leader;
  }

  let leaderTimer: NodeJS.Timeout | undefined;
  return {
    async start() {
      const led = await tryLead();
      if (!led) {
        // Another process indexes; take over if it goes away.
        leaderTimer = setInterval(() => void tryLead().catch(() => undefined), options.reconcileIntervalMs);
        leaderTimer.unref();
      }
      return led;
    },
    async stop() {
      stopped = true;
      if (leaderTimer !== undefined) clearInterval(leaderTimer);
      if (reconcileTimer !== undefined) clearInterval(reconcileTimer);
      pubsub?.close();
      await queue;
      await reconciling?.catch(() => undefined);
      loanLists.setEnabled(false);
    },
    isLeader: () => leader,
    reconcile,
    async reindex() {
      await queue;
      applied.clear();
      await db.transaction(async (tx) => {
        for (const table of ["loan_activity", "loans", "loan_requests", "pools", "banks"])
          await tx.query(`DELETE FROM ${table}`);
        await tx.query("DELETE FROM indexer_cursor WHERE program_id = $1", [programId]);
      });
      loanLists.invalidateAll();
      return reconcile();
    },
    applyAccount,
    applyTransaction,
    async idle() {
      let current: Promise<unknown>;
      do {
        current = queue;
        await current;
      } while (current !== queue);
    },
  };
}

/** Records today's average and median open-pool APR per currency (for historical APYs). */
async function snapshotAprs(q: Queryable, nowSeconds: number): Promise<void> {
  const day = Math.floor(nowSeconds / 86_400) * 86_400;
  const rows = await q.query<{ currency: string; apr: number }>(
    "SELECT currency, apr_bps AS apr FROM pools WHERE status = 'Open' ORDER BY currency, apr_bps",
  );
  const byCurrency = new Map<string, number[]>();
  for (const row of rows)
    byCurrency.set(row.currency, [...(byCurrency.get(row.currency) ?? []), Number(row.apr)]);
  for (const [currency, aprs] of byCurrency) {
    const average = Math.floor(aprs.reduce((a, b) => a + b, 0) / aprs.length);
    const mid = Math.floor(aprs.length / 2);
    const median = aprs.length % 2 === 1 ? aprs[mid]! : Math.floor((aprs[mid - 1]! + aprs[mid]!) / 2);
    await q.query(
      `INSERT INTO apr_history (currency, day, average_apr_bps, median_apr_bps, pools) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (currency, day) DO UPDATE SET average_apr_bps = EXCLUDED.average_apr_bps,
         median_apr_bps = EXCLUDED.median_apr_bps, pools = EXCLUDED.pools`,
      [currency, day, average, median, aprs.length],
    );
  }
}
