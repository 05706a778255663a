import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Account, Clock, FailedTransactionMetadata, LiteSvm } from "litesvm/dist/internal";
import { AppendLog, readLogLines } from "./append-log.ts";
import { decodeBase58, encodeBase58 } from "./base58.ts";
import { BlockhashWindow, getMaxBlockhashAge } from "./blockhash-window.ts";
import { DasIndex } from "./das/das-index.ts";
import { LocalnetRpcError, RPC_ERROR } from "./errors.ts";
import {
  computeTxEffects,
  type ExecutionInput,
  recordExecution,
  resolveLoadedAddresses,
} from "./execution.ts";
import { TxHistory, type TxRecord } from "./history.ts";
import { OwnerIndex } from "./owner-index.ts";
import { PerformanceSampler } from "./performance-samples.ts";
import { readSnapshot, writeSnapshot } from "./snapshot.ts";
import {
  describeTransactionError,
  fieldlessCode,
  TX_ERROR_CODE,
  toTransactionErrorJson,
} from "./tx-error.ts";
import { loadVendoredPrograms } from "./vendored-programs.ts";
import { isStaticWritable, parseWireTransaction, type WireTransaction } from "./wire.ts";

/** Slots per epoch (mainnet). */
export const SLOTS_PER_EPOCH = 432_000;

/** An account as written by admin mutations (and logged for replay). */
export interface AccountWrite {
  address: string;
  lamports: string;
  /** base64 */
  data: string;
  owner: string;
  executable: boolean;
}

type LedgerEntry =
  /** First line of a compacted ledger: state entries up to `s` were dropped (a snapshot at or after `s` holds
   * them) and `t` transactions executed before the oldest `tx` line still here. */
  | { s: number; k: "base"; t: number }
  | { s: number; k: "tx"; r: TxRecord }
  /** A bundle's transactions, executed all or none: one line, so a crash keeps all of them or none. */
  | { s: number; k: "bundle"; r: TxRecord[] }
  | { s: number; k: "set"; slot: number; a: AccountWrite[] }
  | { s: number; k: "clock"; slot: number; o: number };

export type Commitment = "processed" | "confirmed" | "finalized";

/** What subscribers learn after a batch is durable. */
export type ChainEvent = { kind: "tx"; record: TxRecord } | { kind: "accounts"; addresses: string[] };

/** Listener interface used by PubSub. */
export interface ChainListener {
  onCommitted(events: ChainEvent[], slot: number): void;
  onSlot(slot: number): void;
}

/** Options of {@link Chain}. */
export interface ChainOptions {
  dataDir: string;
  reset?: boolean;
  slotMs?: number;
  /** Period of getRecentPerformanceSamples samples in seconds (agave: 60). */
  samplePeriodSeconds?: number;
  /** Newest transactions kept for history reads (getTransaction, getSignaturesForAddress, getBlock). */
  historyTransactions?: number;
  /** Ledger lines appended since the last compaction that make the next snapshot compact the ledger. */
  compactAfterEntries?: number;
  /** Shortest wall time a blockhash stays valid (default 60 s; never fewer than 150 blocks). */
  blockhashMinValidityMs?: number;
}

/** Ledger lines between compactions unless told otherwise. */
const DEFAULT_COMPACT_AFTER_ENTRIES = 20_000;

const SNAPSHOT_FILE = "snapshot.bin";
/** The snapshot before the newest: the fallback when the newest is unreadable. */
const PREVIOUS_SNAPSHOT_FILE = "snapshot.prev.bin";
const LEDGER_FILE = "ledger.log";
const SNAPSHOT_INTERVAL_MS = 30_000;
/** How far the root (the newest finalized slot) trails the newest slot, as a validator's 32-slot lockout. */
export const ROOT_DISTANCE_SLOTS = 32;
/** Entries kept in the SlotHashes sysvar (a validator keeps 512; the lookup-table program needs recent ones). */
const SLOT_HASHES_LEN = 150;

/**
 * The chain: a LiteSVM instance plus the slot clock, the blockhash window, transaction history
 * and durable persistence (snapshot + append-only ledger replayed on start).
 */
export class Chain {
  svm: LiteSvm;
  slot = 1;
  /** The slot the SlotHashes sysvar was last written for. */
  private slotHashesSlot = -1;
  blockHeight = 1;
  clockOffsetSeconds = 0;
  genesisHash: string;
  readonly window: BlockhashWindow;
  readonly history: TxHistory;
  private ledger: AppendLog;
  private seq = 0;
  private snapshotSeq = 0;
  /** Sequence of the previous snapshot file (0 = none this run): the ledger keeps every entry after it. */
  private previousSnapshotSeq = 0;
  private readonly compactAfterEntries: number;
  private entriesSinceCompaction = 0;
  /** Snapshots and compactions run one at a time. */
  private maintenance: Promise<void> = Promise.resolve();
  private listeners: ChainListener[] = [];
  private pendingEvents: ChainEvent[] = [];
  private eventsScheduled = false;
  private slotTimer: NodeJS.Timeout | null = null;
  private snapshotTimer: NodeJS.Timeout | null = null;
  private slotTimes = new Map<number, number>();
  /** The blockhash each produced slot ended with (as long as its time is kept). */
  private slotBlockhashes = new Map<number, string>();
  private pendingSignatures = new Set<string>();
  private closed = false;
  readonly dataDir: string;
  readonly slotMs: number;
  private readonly samplePeriodMs: number;
  /** getRecentPerformanceSamples source. */
  performanceSampler: PerformanceSampler;
  /** Accounts by owner for getProgramAccounts (built per owner on first use, kept by every write). */
  readonly owners: OwnerIndex;
  /** The DAS index (assets by id and owner, compressed trees), fed by every write and landed transaction. */
  readonly das: DasIndex;

  constructor(opts: ChainOptions) {
    this.dataDir = opts.dataDir;
    this.slotMs = opts.slotMs ?? 400;
    this.window = new BlockhashWindow(getMaxBlockhashAge(this.slotMs, opts.blockhashMinValidityMs));
    this.samplePeriodMs = (opts.samplePeriodSeconds ?? 60) * 1000;
    this.history = new TxHistory(opts.historyTransactions);
    this.compactAfterEntries = opts.compactAfterEntries ?? DEFAULT_COMPACT_AFTER_ENTRIES;
    mkdirSync(this.dataDir, { recursive: true });
    const snapPath = join(this.dataDir, SNAPSHOT_FILE);
    const previousPath = join(this.dataDir, PREVIOUS_SNAPSHOT_FILE);
    const ledgerPath = join(this.dataDir, LEDGER_FILE);
    if (opts.reset) for (const p of [snapPath, previousPath, ledgerPath]) rmSync(p, { force: true });
    const snap = readFirstSnapshot([snapPath, previousPath]);
    if (snap) {
      this.svm = snap.svm;
      this.seq = this.snapshotSeq = snap.meta.seq;
      this.slot = snap.meta.slot;
      this.blockHeight = snap.meta.blockHeight;
      this.clockOffsetSeconds = snap.meta.clockOffsetSeconds;
      this.genesisHash = snap.meta.genesisHash;
      for (const [h, height] of snap.meta.blockhashes) this.window.push(h, height);
    } else {
      this.svm = new LiteSvm();
      this.genesisHash = this.svm.latestBlockhash();
    }
    this.svm.setBlockhashCheck(false);
    // Duplicates are refused from this chain's own history: LiteSVM's would also remember a bundle's transactions
    // that were executed and then undone, refusing them when the bundle is sent again.
    this.svm.setTransactionHistory(0n);
    this.svm.setSigverify(true);
    // The real mainnet programs, before the ledger replays transactions that call them.
    loadVendoredPrograms(this.svm);
    this.das = new DasIndex(this.svm);
    this.replay(readLogLines<LedgerEntry>(ledgerPath));
    // indexed from here on, so that a burn that closes an asset's accounts finds what it was
    this.das.accounts.build();
    this.owners = new OwnerIndex(this.svm);
    this.ledger = new AppendLog(ledgerPath);
    // the slot we start from (genesis, or the last one before a restart) is the first block's parent
    this.slotBlockhashes.set(this.slot, this.svm.latestBlockhash());
    this.advanceSlot();
    this.performanceSampler = new PerformanceSampler(this.samplePeriodMs, () => ({
      slot: this.slot,
      txCount: this.history.size,
    }));
  }

  /** Starts the slot timer and periodic snapshots. */
  start(): void {
    this.slotTimer = setInterval(() => this.advanceSlot(), this.slotMs);
    this.performanceSampler.startTimer();
    this.snapshotTimer = setInterval(() => {
      if (this.seq !== this.snapshotSeq)
        this.snapshot().catch((e) => console.error(`localnet: periodic snapshot failed: ${e}`));
    }, SNAPSHOT_INTERVAL_MS);
  }

  addListener(l: ChainListener): void {
    this.listeners.push(l);
  }

  removeListener(l: ChainListener): void {
    this.listeners = this.listeners.filter((x) => x !== l);
  }

  private replay(entries: LedgerEntry[]): void {
    for (const e of entries) {
      if (e.k === "base") {
        if (e.s > this.snapshotSeq)
          throw new Error(
            `localnet: the ledger in ${this.dataDir} was compacted up to entry ${e.s} but no readable snapshot ` +
              `reaches it (newest at ${this.snapshotSeq}); restore snapshot.bin or start with --reset`,
          );
        this.history.setDroppedBefore(e.t);
        continue;
      }
      if (e.k === "tx") this.addToHistory(e.r);
      if (e.k === "bundle") for (const r of e.r) this.addToHistory(r);
      if (e.s <= this.snapshotSeq) continue;
      this.seq = e.s;
      if (e.k === "tx" || e.k === "bundle") {
        for (const r of e.k === "tx" ? [e.r] : e.r) {
          this.slot = Math.max(this.slot, r.slot);
          this.setClock(r.slot, r.blockTime);
          this.sendRaw(parseWireTransaction(Buffer.from(r.tx, "base64")));
        }
      } else if (e.k === "set") {
        this.slot = Math.max(this.slot, e.slot);
        for (const a of e.a) this.writeAccount(a);
      } else {
        this.slot = Math.max(this.slot, e.slot);
        this.clockOffsetSeconds = e.o;
      }
    }
  }

  /** A landed transaction enters the history and the DAS index (at replay, and live once durable). */
  private addToHistory(record: TxRecord): void {
    this.history.add(record);
    this.das.applyTransaction(record);
  }

  /** Accounts a transaction or an admin write may have changed: the owner and DAS indexes re-read them. */
  private touchAccounts(keys: Uint8Array[]): void {
    this.owners.touch(keys);
    this.das.touch(keys);
  }

  /** Epoch seconds the Clock sysvar shows now (wall time plus the admin offset). */
  unixTimestamp(): number {
    return Math.floor(Date.now() / 1000) + this.clockOffsetSeconds;
  }

  private setClock(slot: number, unixTs: number): void {
    const epoch = BigInt(Math.floor(slot / SLOTS_PER_EPOCH));
    const epochStart = this.svm.getClock().epochStartTimestamp;
    this.svm.setClock(new Clock(BigInt(slot), epochStart, epoch, epoch, BigInt(unixTs)));
    this.setSlotHashes(slot);
  }

  /**
   * Keeps the SlotHashes sysvar listing the most recent slots (newest first), as a validator does: programs
   * such as the Address Lookup Table program only accept a "recent slot" found there. The hashes are the
   * current blockhash (no program we run reads them; replay after a restart has no record of the old ones).
   */
  private setSlotHashes(slot: number): void {
    if (slot === this.slotHashesSlot) return;
    this.slotHashesSlot = slot;
    const hash = this.svm.latestBlockhash();
    const hashes = [];
    for (let s = slot; s > Math.max(0, slot - SLOT_HASHES_LEN); s--) hashes.push({ slot: BigInt(s), hash });
    this.svm.setSlotHashes(hashes);
  }

  /**
   * A transaction's commitment by the slot it landed in, as a validator reports it: processed while that slot is
   * still open, confirmed once its block is produced (the next slot starts; `confirmations` counts the blocks on
   * top), finalized once the root reaches it. Nothing is ever rolled back here, so confirmed never reverts.
   */
  commitmentOf(landedSlot: number): { status: Commitment; confirmations: number | null } {
    if (landedSlot >= this.slot) return { status: "processed", confirmations: 0 };
    if (landedSlot > this.slot - ROOT_DISTANCE_SLOTS)
      return { status: "confirmed", confirmations: this.slot - landedSlot };
    return { status: "finalized", confirmations: null };
  }

  /** Produces the next slot: new blockhash, clock update, slot notification. */
  advanceSlot(): void {
    this.slot++;
    this.blockHeight++;
    this.svm.expireBlockhash();
    this.window.push(this.svm.latestBlockhash(), this.blockHeight);
    const now = this.unixTimestamp();
    this.setClock(this.slot, now);
    this.slotTimes.set(this.slot, now);
    this.slotBlockhashes.set(this.slot, this.svm.latestBlockhash());
    if (this.slotTimes.size > 200_000) {
      const first = this.slotTimes.keys().next().value as number;
      this.slotTimes.delete(first);
      this.slotBlockhashes.delete(first);
    }
    for (const l of this.listeners) {
      try {
        l.onSlot(this.slot);
      } catch (e) {
        console.error(`localnet: slot notification failed: ${e}`);
      }
    }
  }

  /**
   * The block this node produced at `slot` (every slot is a block here), or null for a future slot or one whose
   * parent's blockhash is no longer kept (pruned, or produced before a restart).
   */
  block(slot: number): {
    blockhash: string;
    previousBlockhash: string;
    parentSlot: number;
    blockHeight: number;
    blockTime: number | null;
  } | null {
    if (!Number.isSafeInteger(slot) || slot < 1 || slot > this.slot) return null;
    const blockhash = this.slotBlockhashes.get(slot);
    const previousBlockhash = slot === 1 ? this.genesisHash : this.slotBlockhashes.get(slot - 1);
    if (blockhash === undefined || previousBlockhash === undefined) return null;
    return {
      blockhash,
      previousBlockhash,
      parentSlot: slot - 1,
      blockHeight: this.blockHeight - (this.slot - slot),
      blockTime: this.blockTime(slot),
    };
  }

  /** Block time of a slot (epoch seconds), or null when unknown. */
  blockTime(slot: number): number | null {
    return this.slotTimes.get(slot) ?? this.history.blockTimeOfSlot(slot) ?? null;
  }

  /** The latest blockhash and its last valid block height. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    const l = this.window.latest();
    return { blockhash: l.hash, lastValidBlockHeight: l.height + this.window.maxAge };
  }

  /** Whether a transaction's lifetime is valid: recent blockhash or a matching durable nonce. */
  isLifetimeValid(tx: WireTransaction): boolean {
    if (this.window.isValidBytes(tx.recentBlockhash, this.blockHeight)) return true;
    const ix = tx.instructions[0];
    if (!ix) return false;
    const program = tx.staticKeys[ix.programIdIndex];
    const isSystem = program?.every((b) => b === 0) ?? false;
    if (!isSystem || ix.data.length < 4 || ix.data[0] !== 4 || ix.accounts.length === 0) return false;
    const nonceKey = tx.staticKeys[ix.accounts[0]!];
    if (!nonceKey) return false;
    const acct = this.svm.getAccount(nonceKey);
    const data = acct?.data();
    if (!data || data.length < 72) return false;
    return Buffer.compare(Buffer.from(data.subarray(40, 72)), Buffer.from(tx.recentBlockhash)) === 0;
  }

  private sendRaw(tx: WireTransaction) {
    return tx.version === "legacy"
      ? this.svm.sendLegacyTransaction(tx.bytes)
      : this.svm.sendVersionedTransaction(tx.bytes);
  }

  /** Simulates without committing (sigverify per flag). */
  simulateRaw(tx: WireTransaction, sigVerify: boolean) {
    if (!sigVerify) this.svm.setSigverify(false);
    try {
      return tx.version === "legacy"
        ? this.svm.simulateLegacyTransaction(tx.bytes)
        : this.svm.simulateVersionedTransaction(tx.bytes);
    } finally {
      if (!sigVerify) this.svm.setSigverify(true);
    }
  }

  /**
   * Executes a transaction (the sendTransaction path). With preflight, a failing simulation is
   * answered with -32002 and nothing is committed. Resolves with the signature once the ledger
   * entry is durable; a transaction dropped before execution (stale blockhash or bad signature
   * with skipPreflight, unpaid fee) resolves with its signature and never lands, like a real node.
   */
  submit(tx: WireTransaction, skipPreflight: boolean): Promise<string> | string {
    if (this.closed) throw new LocalnetRpcError(RPC_ERROR.INTERNAL_ERROR, "localnet is shutting down");
    const signature = encodeBase58(tx.signatures[0]!);
    if (this.isKnownSignature(signature)) {
      if (skipPreflight) return signature;
      throw preflightError("AlreadyProcessed", [], 0);
    }
    const lifetimeOk = this.isLifetimeValid(tx);
    if (!skipPreflight) {
      if (!lifetimeOk) throw preflightError("BlockhashNotFound", [], 0);
      const sim = this.simulateRaw(tx, true);
      if (sim instanceof FailedTransactionMetadata) {
        if (fieldlessCode(sim) === TX_ERROR_CODE.SIGNATURE_FAILURE)
          throw new LocalnetRpcError(
            RPC_ERROR.TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
            "Transaction signature verification failure",
          );
        const m = sim.meta();
        throw preflightError(toTransactionErrorJson(sim), m.logs(), Number(m.computeUnitsConsumed()));
      }
    } else if (!lifetimeOk) return signature;
    const input: ExecutionInput = computeTxEffects(this.svm, tx);
    const result = this.sendRaw(tx);
    this.touchAccounts(input.keys.filter((_, i) => input.writable[i]));
    const record = recordExecution(this.svm, input, result, {
      signature,
      seq: this.seq + 1,
      slot: this.slot,
      // A block has one time: the one its Clock sysvar showed (set when the slot began, or by advanceClock).
      blockTime: this.slotTimes.get(this.slot) ?? this.unixTimestamp(),
    });
    if (!record) return signature;
    this.seq++;
    // Executed but not yet durable: deduplicated at once, visible in history only after the fsync.
    this.pendingSignatures.add(signature);
    return this.appendDurable({ s: record.seq, k: "tx", r: record }, [{ kind: "tx", record }]).then(
      () => signature,
      (e) => {
        this.pendingSignatures.delete(signature);
        throw e;
      },
    );
  }

  /**
   * Executes a bundle all or none (Jito's sendBundle): the transactions run in order in one slot; if one fails
   * (or would not land), every account any of them may write is put back as it was and nothing is recorded.
   * Resolves with the signatures once the one ledger line holding them all is durable.
   */
  submitBundle(txs: WireTransaction[]): Promise<string[]> {
    if (this.closed) throw new LocalnetRpcError(RPC_ERROR.INTERNAL_ERROR, "localnet is shutting down");
    const signatures = txs.map((tx) => encodeBase58(tx.signatures[0]!));
    signatures.forEach((signature, i) => {
      if (this.isKnownSignature(signature) || signatures.indexOf(signature) !== i)
        throw bundleError(`transaction ${i} was already processed`);
      if (!this.isLifetimeValid(txs[i]!)) throw bundleError(`transaction ${i}: Blockhash not found`);
    });
    const saved = new Map<string, Account | null>();
    for (const tx of txs)
      for (const key of writableKeys(this.svm, tx)) {
        const address = encodeBase58(key);
        if (!saved.has(address)) saved.set(address, this.svm.getAccount(key) ?? null);
      }
    const records: TxRecord[] = [];
    for (const [i, tx] of txs.entries()) {
      const input = computeTxEffects(this.svm, tx);
      const result = this.sendRaw(tx);
      const record = recordExecution(this.svm, input, result, {
        signature: signatures[i]!,
        seq: this.seq + 1 + i,
        slot: this.slot,
        blockTime: this.slotTimes.get(this.slot) ?? this.unixTimestamp(),
      });
      if (record === null || record.err !== null) {
        this.restore(saved);
        const logs =
          record?.logs ?? (result instanceof FailedTransactionMetadata ? result.meta().logs() : []);
        if (record === null)
          throw bundleError(`transaction ${i} would not land (fee not paid); nothing was executed`);
        throw bundleError(
          `transaction ${i} failed: ${describeTransactionError(record.err as string)}; nothing was executed`,
          { err: record.err, logs, index: i },
        );
      }
      records.push(record);
    }
    this.touchAccounts([...saved.keys()].map(decodeBase58));
    this.seq += records.length;
    for (const s of signatures) this.pendingSignatures.add(s);
    const events = records.map((record) => ({ kind: "tx" as const, record }));
    return this.appendDurable({ s: this.seq, k: "bundle", r: records }, events).then(
      () => signatures,
      (e) => {
        for (const s of signatures) this.pendingSignatures.delete(s);
        throw e;
      },
    );
  }

  /** Puts accounts back as they were before a bundle (an account that did not exist is emptied). */
  private restore(saved: Map<string, Account | null>): void {
    for (const [address, account] of saved)
      this.svm.setAccount(
        decodeBase58(address),
        account ?? new Account(0n, new Uint8Array(), new Uint8Array(32), false, 0n),
      );
  }

  /** Whether a signature already executed (durable or still being written). */
  isKnownSignature(signature: string): boolean {
    return this.history.has(signature) || this.pendingSignatures.has(signature);
  }

  /** Writes accounts directly (admin path), logged for replay; resolves when durable. */
  setAccounts(writes: AccountWrite[]): Promise<void> {
    if (writes.length === 0) return Promise.resolve();
    for (const w of writes) this.writeAccount(w);
    this.touchAccounts(writes.map((w) => decodeBase58(w.address)));
    this.seq++;
    return this.appendDurable({ s: this.seq, k: "set", slot: this.slot, a: writes }, [
      { kind: "accounts", addresses: writes.map((w) => w.address) },
    ]);
  }

  /** Moves the clock forward by `seconds` (admin path); resolves with the new unix timestamp. */
  async advanceClock(seconds: number): Promise<number> {
    this.clockOffsetSeconds += seconds;
    this.seq++;
    const now = this.unixTimestamp();
    this.setClock(this.slot, now);
    this.slotTimes.set(this.slot, now);
    await this.appendDurable({ s: this.seq, k: "clock", slot: this.slot, o: this.clockOffsetSeconds }, []);
    return now;
  }

  private writeAccount(w: AccountWrite): void {
    this.svm.setAccount(
      decodeBase58(w.address),
      new Account(BigInt(w.lamports), Buffer.from(w.data, "base64"), decodeBase58(w.owner), w.executable, 0n),
    );
  }

  /** Appends one ledger line; once it is durable, its transactions enter the history and `events` go out. */
  private appendDurable(entry: LedgerEntry, events: ChainEvent[]): Promise<void> {
    const line = JSON.stringify(entry);
    this.entriesSinceCompaction++;
    return new Promise((resolve, reject) => {
      this.ledger.append(line, (err) => {
        if (err) return reject(new LocalnetRpcError(RPC_ERROR.INTERNAL_ERROR, `ledger write failed: ${err}`));
        for (const event of events) {
          if (event.kind === "tx") {
            this.addToHistory(event.record);
            this.pendingSignatures.delete(event.record.signature);
          }
          this.queueEvent(event);
        }
        resolve();
      });
    });
  }

  private queueEvent(e: ChainEvent): void {
    this.pendingEvents.push(e);
    if (this.eventsScheduled) return;
    this.eventsScheduled = true;
    setImmediate(() => {
      this.eventsScheduled = false;
      const events = this.pendingEvents;
      this.pendingEvents = [];
      for (const l of this.listeners) {
        try {
          l.onCommitted(events, this.slot);
        } catch (e) {
          console.error(`localnet: subscriber notification failed: ${e}`);
        }
      }
    });
  }

  /** Writes a snapshot (after pending ledger writes are durable) at the current sequence. */
  snapshot(): Promise<void> {
    const run = this.maintenance.then(() => this.writeSnapshotNow());
    this.maintenance = run.catch(() => {});
    return run;
  }

  private async writeSnapshotNow(): Promise<void> {
    await this.ledger.flushed();
    const seq = this.seq;
    if (seq === this.snapshotSeq && existsSync(join(this.dataDir, SNAPSHOT_FILE))) return;
    writeSnapshot(
      join(this.dataDir, SNAPSHOT_FILE),
      this.svm.toBytes(),
      {
        version: 1,
        seq,
        slot: this.slot,
        blockHeight: this.blockHeight,
        clockOffsetSeconds: this.clockOffsetSeconds,
        genesisHash: this.genesisHash,
        blockhashes: this.window.entries(),
      },
      join(this.dataDir, PREVIOUS_SNAPSHOT_FILE),
    );
    this.previousSnapshotSeq = this.snapshotSeq;
    this.snapshotSeq = seq;
    if (this.entriesSinceCompaction >= this.compactAfterEntries && this.previousSnapshotSeq > 0)
      await this.compactLedger();
  }

  /**
   * Drops ledger lines that both snapshot files already hold (state entries up to the previous snapshot), except
   * the transactions the history still keeps; a base line records where the ledger now starts. The file is
   * replaced atomically, so a crash leaves either the old ledger or the new one.
   */
  private async compactLedger(): Promise<void> {
    const base = this.previousSnapshotSeq;
    await this.ledger.rewrite((lines) => {
      const kept: string[] = [];
      let dropped = 0;
      for (const line of lines) {
        const e = JSON.parse(line) as LedgerEntry;
        if (e.k === "base") {
          dropped += e.t;
          continue;
        }
        // a transaction that changed a compressed tree stays: the DAS index rebuilds the trees from them
        if (
          e.s > base ||
          (e.k === "tx" && (this.history.has(e.r.signature) || this.das.needsTransaction(e.r))) ||
          (e.k === "bundle" && e.r.some((r) => this.das.needsTransaction(r)))
        )
          kept.push(line);
        else if (e.k === "tx") dropped++;
      }
      return [JSON.stringify({ s: base, k: "base", t: dropped } satisfies LedgerEntry), ...kept];
    });
    this.entriesSinceCompaction = 0;
  }

  /** Stops timers, snapshots and closes the ledger. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.slotTimer) clearInterval(this.slotTimer);
    this.performanceSampler.stop();
    if (this.snapshotTimer) clearInterval(this.snapshotTimer);
    await this.snapshot();
    await this.ledger.close();
  }
}

/** Every key a transaction may write: writable static keys and writable lookup-table addresses. */
function writableKeys(svm: LiteSvm, tx: WireTransaction): Uint8Array[] {
  const keys = tx.staticKeys.filter((_, i) => isStaticWritable(tx, i));
  return [...keys, ...resolveLoadedAddresses(svm, tx).writable];
}

/** A refused bundle (Jito answers an invalid or failing bundle with a JSON-RPC error). */
function bundleError(message: string, data?: Record<string, unknown>): LocalnetRpcError {
  return new LocalnetRpcError(
    RPC_ERROR.SEND_TRANSACTION_PREFLIGHT_FAILURE,
    `Bundle refused: ${message}`,
    data,
  );
}

function preflightError(err: unknown, logs: string[], unitsConsumed: number): LocalnetRpcError {
  return new LocalnetRpcError(
    RPC_ERROR.SEND_TRANSACTION_PREFLIGHT_FAILURE,
    `Transaction simulation failed: ${describeTransactionError(err as string)}`,
    { err, logs, accounts: null, unitsConsumed, returnData: null, innerInstructions: null },
  );
}

/** The first readable snapshot of `paths` with its LiteSVM state, or null (an unreadable one is set aside). */
function readFirstSnapshot(paths: string[]): (ReturnType<typeof readSnapshot> & { svm: LiteSvm }) | null {
  for (const path of paths) {
    if (!existsSync(path)) continue;
    try {
      const snap = readSnapshot(path);
      return { ...snap, svm: LiteSvm.fromBytes(snap.svmBytes) };
    } catch (e) {
      // The ledger keeps every entry after the previous snapshot, so the older file (or genesis, when the ledger
      // was never compacted) plus a longer replay gives the same state.
      console.error(
        `localnet: snapshot ${path} unreadable (${e}); falling back to an older state and the ledger`,
      );
      renameSync(path, `${path}.corrupt`);
    }
  }
  return null;
}
