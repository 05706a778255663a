/**
 * Whether Solana is running slow, from the cluster's performance samples (getRecentPerformanceSamples).
 *
 * The rule: the cluster is slow when its slots take at least twice Solana's 400 ms slot target (800 ms), the slot
 * time being the worse of the mean over the newest samples and the newest sample's own, so a slowdown shows from
 * its first sample and a stall (a sample without a slot) at once. A transaction waits for slots to land and be confirmed, so slot time is what a
 * borrower feels; transactions per second is not a health figure (an idle chain, such as a fresh localnet, does
 * few transactions and is perfectly healthy, and a busy one is not slow for being busy).
 */

/** Solana's target slot time. */
export const TARGET_SLOT_MS = 400;
/** From this mean slot time on (twice the target) the cluster counts as slow. */
export const CHAIN_SLOW_SLOT_MS = 2 * TARGET_SLOT_MS;
/** Newest performance samples the figures average over (a validator samples every 60 s: 5 minutes). */
export const CHAIN_PERFORMANCE_SAMPLES = 5;

/** The fields of one getRecentPerformanceSamples entry that the figures use. */
export interface PerformanceSampleFigures {
  numSlots: number;
  numTransactions: number;
  samplePeriodSecs: number;
}

/** What the cluster's newest samples say. */
export interface ChainPerformanceFigures {
  /** Transactions per second (votes included, as the samples count them), rounded. */
  tps: number;
  /**
   * Slot time in milliseconds, rounded: the worse of the mean over the samples and the newest sample's. A period
   * in which no slot was produced counts as one slot of that length, so a stalled chain is slow, not unmeasured.
   */
  slotMs: number;
  /** Wall seconds the figures cover. */
  sampleSeconds: number;
}

/**
 * Figures of the newest {@link CHAIN_PERFORMANCE_SAMPLES} samples (`samples` newest first, as the RPC answers),
 * or null when they cover no time (no sample yet: a validator's first one comes after a minute).
 */
export function computeChainPerformance(
  samples: readonly PerformanceSampleFigures[],
): ChainPerformanceFigures | null {
  const used = samples.slice(0, CHAIN_PERFORMANCE_SAMPLES);
  const sampleSeconds = used.reduce((s, x) => s + x.samplePeriodSecs, 0);
  if (!(sampleSeconds > 0)) return null;
  const slots = used.reduce((s, x) => s + x.numSlots, 0);
  const transactions = used.reduce((s, x) => s + x.numTransactions, 0);
  const newest = used[0]!;
  const newestSlotMs =
    newest.samplePeriodSecs > 0 ? (newest.samplePeriodSecs * 1000) / Math.max(1, newest.numSlots) : 0;
  return {
    tps: Math.round(transactions / sampleSeconds),
    slotMs: Math.round(Math.max((sampleSeconds * 1000) / Math.max(1, slots), newestSlotMs)),
    sampleSeconds,
  };
}

/** True when a measured mean slot time is slow (see the rule above); nothing measured is never slow. */
export function isChainSlow(slotMs: number | null | undefined): boolean {
  return typeof slotMs === "number" && Number.isFinite(slotMs) && slotMs >= CHAIN_SLOW_SLOT_MS;
}

/** "1.2 s" for 1,234 ms: a slot time as the warning words it (tenths of a second). */
export function formatSlotSeconds(slotMs: number): string {
  return `${(Math.round(slotMs / 100) / 10).toFixed(1)} s`;
}
