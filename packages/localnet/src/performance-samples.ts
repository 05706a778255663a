/** One getRecentPerformanceSamples entry. */
export interface PerformanceSample {
  /** The newest slot when the sample was taken. */
  slot: number;
  numTransactions: number;
  /** Every transaction here: a single node casts no votes. */
  numNonVoteTransactions: number;
  /** Slots produced during the sample (0 when slot production stalled). */
  numSlots: number;
  /** Wall seconds the sample covers, whole seconds as agave reports them. */
  samplePeriodSecs: number;
}

/** Samples kept (agave keeps 720: 12 hours of 60 s samples). */
export const MAX_PERFORMANCE_SAMPLES = 720;

/** What the sampler reads from the chain at each sample. */
export type ChainCounters = () => { slot: number; txCount: number };

/**
 * Takes getRecentPerformanceSamples samples on its own timer, as agave's SamplePerformanceService does (every 60 s),
 * not on the slot clock: a sample is taken whether or not slots were produced, so slow or stalled slot production
 * shows as few (or zero) `numSlots` over the period instead of as no sample at all.
 */
export class PerformanceSampler {
  /** Newest first. */
  readonly samples: PerformanceSample[] = [];
  private start: { at: number; slot: number; txCount: number };
  private timer: NodeJS.Timeout | null = null;

  /**
   * @param periodMs - wall time covered by one sample (agave: 60 s)
   * @param read - the chain's current slot and transaction count
   * @param now - epoch milliseconds the first sample starts at
   */
  constructor(
    private readonly periodMs: number,
    private readonly read: ChainCounters,
    now: number = Date.now(),
  ) {
    this.start = { at: now, ...read() };
  }

  /** Samples every period from now until {@link stop}; the timer does not keep the process alive. */
  startTimer(now: number = Date.now()): void {
    if (this.timer) return;
    // the chain's start-up (replay, demo seed) produced no slots on the clock: it is no part of the first sample
    this.start = { at: now, ...this.read() };
    this.timer = setInterval(() => this.sample(), this.periodMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Closes the current sample at `now` (epoch milliseconds) and starts the next. */
  sample(now: number = Date.now()): void {
    const { slot, txCount } = this.read();
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
