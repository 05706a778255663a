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

/** In-memory index over every executed transaction. */
export class TxHistory {
  private bySignature = new Map<string, TxRecord>();
  private byAddress = new Map<string, TxRecord[]>();
  private recent: TxRecord[] = [];
  private slotTimes = new Map<number, number>();
  private bySlot = new Map<number, TxRecord[]>();

  get size(): number {
    return this.bySignature.size;
  }

  /** Adds a record (in execution order). */
  add(r: TxRecord): void {
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
    this.recent.push(r);
    if (this.recent.length > 20_000) this.recent.splice(0, this.recent.length - 10_000);
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
