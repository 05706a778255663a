import { describe, expect, it } from "vitest";
import {
  CHAIN_SLOW_SLOT_MS,
  computeChainPerformance,
  formatSlotSeconds,
  isChainSlow,
  TARGET_SLOT_MS,
} from "../chain-health.ts";

/** A validator's 60 s sample with `slots` slots and `transactions` transactions. */
const sample = (slots: number, transactions = 0, seconds = 60) => ({
  numSlots: slots,
  numTransactions: transactions,
  samplePeriodSecs: seconds,
});

describe("chain health", () => {
  it("an idle chain at the 400 ms target is not slow, however few transactions it carries", () => {
    const idle = computeChainPerformance([sample(150), sample(150), sample(150)]);
    expect(idle).toEqual({ tps: 0, slotMs: 400, sampleSeconds: 180 });
    expect(isChainSlow(idle!.slotMs)).toBe(false);
  });

  it("reads throughput and slot time over the newest five samples only", () => {
    const figures = computeChainPerformance([
      sample(150, 240_000),
      sample(140, 180_000),
      sample(150, 180_000),
      sample(146, 180_000),
      sample(150, 180_000),
      // older than the window: a stall long ago does not count
      sample(0, 0),
    ]);
    // 960,000 transactions and 736 slots in 300 s
    expect(figures).toEqual({ tps: 3200, slotMs: 408, sampleSeconds: 300 });
    expect(isChainSlow(figures!.slotMs)).toBe(false);
  });

  it("is slow from twice the target slot time on", () => {
    expect(CHAIN_SLOW_SLOT_MS).toBe(2 * TARGET_SLOT_MS);
    // 75 slots a minute: 800 ms
    const slow = computeChainPerformance([sample(75, 90_000), sample(75, 90_000)]);
    expect(slow!.slotMs).toBe(800);
    expect(isChainSlow(slow!.slotMs)).toBe(true);
    const almost = computeChainPerformance([sample(76), sample(76)]);
    expect(almost!.slotMs).toBe(789);
    expect(isChainSlow(almost!.slotMs)).toBe(false);
  });

  it("a slowdown shows from its first sample, and a stall (no slot in a sample) is slow", () => {
    const slowing = computeChainPerformance([sample(50), sample(150), sample(150), sample(150), sample(150)]);
    // the mean is 480 ms, the newest sample 1,200 ms
    expect(slowing!.slotMs).toBe(1200);
    expect(isChainSlow(slowing!.slotMs)).toBe(true);
    const stalled = computeChainPerformance([sample(0), sample(150)]);
    expect(stalled!.slotMs).toBe(60_000);
    expect(isChainSlow(stalled!.slotMs)).toBe(true);
    const halted = computeChainPerformance([sample(0)]);
    expect(isChainSlow(halted!.slotMs)).toBe(true);
  });

  it("a recovery shows once the window's mean is back under the threshold", () => {
    // newest fast, but the window still holds 4 minutes of 1.5 s slots: 968 ms on average
    const recovering = computeChainPerformance([sample(150), sample(40), sample(40), sample(40), sample(40)]);
    expect(isChainSlow(recovering!.slotMs)).toBe(true);
    const recovered = computeChainPerformance([
      sample(150),
      sample(150),
      sample(150),
      sample(150),
      sample(40),
    ]);
    expect(isChainSlow(recovered!.slotMs)).toBe(false);
  });

  it("nothing measured is never slow", () => {
    expect(computeChainPerformance([])).toBeNull();
    expect(computeChainPerformance([sample(0, 0, 0)])).toBeNull();
    expect(isChainSlow(null)).toBe(false);
    expect(isChainSlow(undefined)).toBe(false);
    expect(isChainSlow(Number.NaN)).toBe(false);
  });

  it("words a slot time in tenths of a second", () => {
    expect(formatSlotSeconds(400)).toBe("0.4 s");
    expect(formatSlotSeconds(1234)).toBe("1.2 s");
    expect(formatSlotSeconds(60_000)).toBe("60.0 s");
  });
});
