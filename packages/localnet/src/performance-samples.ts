/** One getRecentPerformanceSamples entry. */
export interface PerformanceSample {
  slot: number;
  numTransactions: number;
  numNonVoteTransactions: number;
  numSlots: number;
  samplePeriodSecs: number;
}

/** Samples kept (agave keeps 720: 12 hours of 60 s samples). */
export const MAX_PERFORMANCE_SAMPLES = 720;

/** Turns the slot clock and the transaction count into getRecentPerformanceSamples samples. */
export class PerformanceSampler {
  /** Newest first. */
  readonly samples: PerformanceSample[] = [];
  private start: { at: number; slot: number; txCount: number };

  /** @param periodMs - wall time covered by one sample (agave: 60 s) */
  constructor(
    private readonly periodMs: number,
    slot: number,
    txCount: number,
  ) {
    this.start = { at: Date.now(), slot, txCount };
  }

  /** Called every slot; closes a sample once the period has passed. */
  onSlot(slot: number, txCount: number): void {
    const now = Date.now();
    if (now - this.start.at < this.periodMs) return;
    const n = txCount - this.start.txCount;
    this.samples.unshift({
      slot,
      numTransactions: n,
      numNonVoteTransactions: n,
      numSlots: slot - this.start.slot,
      samplePeriodSecs: Math.round((now - this.start.at) / 1000),
    });
    if (this.samples.length > MAX_PERFORMANCE_SAMPLES) this.samples.pop();
    this.start = { at: now, slot, txCount };
  }
}
