/**
 * A time-weighted price over a window of slots, from readings of a pool's spot price at known slots.
 *
 * - Each reading enters clamped to within TWAP_MAX_STEP_BPS (10%) of the previous accepted reading, whatever the
 *   spot did: a swap of any size moves one reading by at most 10%.
 * - A reading stands for the slots from its own to the next reading's (the last one: to itself, one slot); the
 *   price is the slot-weighted mean of the readings over the last `windowSlots` slots.
 *
 * Bound: a swap that holds for one slot (one reading, sampled every slot) moves the price by at most
 * 10% / windowSlots (150 slots: 0.067%); a reading that stands for h slots, by at most 10% x h / windowSlots.
 * A sustained move is fully in the price once the readings have caught up (ln(ratio) / ln(1.1) readings) and a
 * whole window has passed after that. The confidence is half the spread of the accepted readings in the window.
 */
export const TWAP_MAX_STEP_BPS = 1_000n;

interface Reading {
  slot: number;
  /** Accepted (clamped) price, nano-USD per whole token. */
  price: bigint;
  /** Epoch seconds it was read. */
  at: number;
}

export interface TwapValue {
  priceNanos: bigint;
  confidenceNanos: bigint;
  /** Epoch seconds of the newest reading. */
  at: number;
  /** Slots the window covers (less than the window while it fills after a start). */
  coveredSlots: number;
}

/** One pool's readings and its time-weighted price. */
export class SlotTwap {
  private readings: Reading[] = [];
  constructor(readonly windowSlots: number) {}

  /** Adds the spot price read at `slot` (ignored when not newer than the last reading). */
  observe(slot: number, spotNanos: bigint, at: number): void {
    const last = this.readings.at(-1);
    if (last !== undefined && slot <= last.slot) return;
    let price = spotNanos;
    if (last !== undefined) {
      const high = (last.price * (10_000n + TWAP_MAX_STEP_BPS)) / 10_000n;
      const low = (last.price * (10_000n - TWAP_MAX_STEP_BPS)) / 10_000n;
      price = price > high ? high : price < low ? low : price;
    }
    this.readings.push({ slot, price, at });
    // keep the readings of the window plus the one before it (it stands for the window's first slots)
    const start = slot - this.windowSlots + 1;
    let drop = 0;
    while (drop + 1 < this.readings.length && this.readings[drop + 1]!.slot <= start) drop++;
    if (drop > 0) this.readings.splice(0, drop);
  }

  /** The time-weighted price over the window ending at the newest reading; null before any reading. */
  value(): TwapValue | null {
    const last = this.readings.at(-1);
    if (last === undefined) return null;
    const start = Math.max(last.slot - this.windowSlots + 1, this.readings[0]!.slot);
    let sum = 0n;
    let slots = 0;
    let min = last.price;
    let max = last.price;
    for (let i = 0; i < this.readings.length; i++) {
      const r = this.readings[i]!;
      const from = Math.max(r.slot, start);
      const to = i + 1 < this.readings.length ? this.readings[i + 1]!.slot : last.slot + 1;
      if (to <= from) continue;
      sum += r.price * BigInt(to - from);
      slots += to - from;
      if (r.price < min) min = r.price;
      if (r.price > max) max = r.price;
    }
    return {
      priceNanos: sum / BigInt(slots),
      confidenceNanos: (max - min) / 2n,
      at: last.at,
      coveredSlots: slots,
    };
  }
}
