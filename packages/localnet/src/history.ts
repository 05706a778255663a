import type { TransactionErrorJson } from "./tx-error.ts";

/** agave's TransactionTokenBalance. */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string };
}

/** One compiled inner instruction as agave reports it (data in base58). */
export interface InnerInstructionJson {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

/** Everything kept about an executed transaction (persisted in the ledger). */
export interface TxRecord {
  signature: string;
  seq: number;
  slot: number;
  /** Epoch seconds of the block (the Clock sysvar's unix timestamp when it ran). */
  blockTime: number;
  /** Wire bytes, base64. */
  tx: string;
  version: "legacy" | 0;
  err: TransactionErrorJson | null;
  logs: string[];
  computeUnits: number;
  feeLamports: number;
  /** Static keys then loaded writable then loaded readonly. */
  accountKeys: string[];
  writable: boolean[];
  loadedAddresses: { writable: string[]; readonly: string[] };
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  innerInstructions: { index: number; instructions: InnerInstructionJson[] }[];
  returnData: { programId: string; data: [string, "base64"] } | null;
  /** Compute-unit price in micro-lamports (0 without a SetComputeUnitPrice instruction). */
  priorityFeeMicroLamports: number;
}

/** Transactions kept for getTransaction, getSignaturesForAddress and getBlock unless told otherwise. */
export const DEFAULT_HISTORY_TRANSACTIONS = 50_000;

/**
 * In-memory index over the newest executed transactions (at most `limit`, oldest dropped first, as a validator
 * with a ledger size limit forgets old blocks); `size` still counts every transaction ever executed.
 */
export class TxHistory {
  private bySignature = new Map<string, TxRecord>();
  private byAddress = new Map<string, TxRecord[]>();
  /** Kept records, oldest first, from index `head`. */
  private order: TxRecord[] = [];
  private head = 0;
  private recent: TxRecord[] = [];
  private slotTimes = new Map<number, number>();
  private bySlot = new Map<number, TxRecord[]>();
  /** Transactions executed before the oldest one the ledger still holds. */
  private droppedBefore = 0;
  private added = 0;

  constructor(readonly limit = DEFAULT_HISTORY_TRANSACTIONS) {}

  /** Transactions ever executed (kept or not). */
  get size(): number {
    return this.droppedBefore + this.added;
  }

  /** Transactions ever executed that the ledger no longer holds (from a compacted ledger's base line). */
  setDroppedBefore(count: number): void {
    this.droppedBefore = count;
  }

  /** Adds a record (in execution order). */
  add(r: TxRecord): void {
    this.added++;
    this.bySignature.set(r.signature, r);
    // A landed transaction never lists an account twice (sanitize rejects it), so no dedupe is needed.
    for (const k of r.accountKeys) {
      let list = this.byAddress.get(k);
      if (!list) {
        list = [];
        this.byAddress.set(k, list);
      }
      list.push(r);
    }
    this.slotTimes.set(r.slot, r.blockTime);
    const inSlot = this.bySlot.get(r.slot);
    if (inSlot) inSlot.push(r);
    else this.bySlot.set(r.slot, [r]);
    this.order.push(r);
    this.recent.push(r);
    if (this.recent.length > 20_000) this.recent.splice(0, this.recent.length - 10_000);
    // Evict in batches of a tenth of the limit so that each address list is cut once per batch.
    if (this.bySignature.size > this.limit + Math.max(1, Math.floor(this.limit / 10))) this.evict();
  }

  /** Drops the oldest records down to `limit`. */
  private evict(): void {
    const drop = this.bySignature.size - this.limit;
    const cutPerAddress = new Map<string, number>();
    for (let i = 0; i < drop; i++) {
      const r = this.order[this.head + i]!;
      this.bySignature.delete(r.signature);
      for (const k of r.accountKeys) cutPerAddress.set(k, (cutPerAddress.get(k) ?? 0) + 1);
      const inSlot = this.bySlot.get(r.slot);
      if (inSlot && inSlot[inSlot.length - 1] === r) {
        // the slot's last kept record goes: the slot is gone from the history
        this.bySlot.delete(r.slot);
        this.slotTimes.delete(r.slot);
      } else inSlot?.shift();
    }
    for (const [k, n] of cutPerAddress) {
      const list = this.byAddress.get(k)!;
      if (list.length <= n) this.byAddress.delete(k);
      else list.splice(0, n);
    }
    this.head += drop;
    if (this.head > this.limit) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }

  /** Block time of a slot that holds a transaction (survives restarts through the ledger). */
  blockTimeOfSlot(slot: number): number | undefined {
    return this.slotTimes.get(slot);
  }

  /** The transactions executed in `slot`, in execution order. */
  inSlot(slot: number): readonly TxRecord[] {
    return this.bySlot.get(slot) ?? [];
  }

  get(signature: string): TxRecord | undefined {
    return this.bySignature.get(signature);
  }

  has(signature: string): boolean {
    return this.bySignature.has(signature);
  }

  /** Newest-first records touching `address`, paged like getSignaturesForAddress. */
  forAddress(address: string, opts: { before?: string; until?: string; limit: number }): TxRecord[] {
    const list = this.byAddress.get(address) ?? [];
    const out: TxRecord[] = [];
    let i = list.length - 1;
    if (opts.before) {
      const b = this.bySignature.get(opts.before);
      if (!b) return [];
      while (i >= 0 && list[i]!.seq >= b.seq) i--;
    }
    for (; i >= 0 && out.length < opts.limit; i--) {
      const r = list[i]!;
      if (opts.until && r.signature === opts.until) break;
      out.push(r);
    }
    return out;
  }

  /** Records executed in slots >= `fromSlot` (newest 10k at least). */
  since(fromSlot: number): TxRecord[] {
    let i = this.recent.length;
    while (i > 0 && this.recent[i - 1]!.slot >= fromSlot) i--;
    return this.recent.slice(i);
  }
}
