import { describe, expect, it } from "vitest";
import {
  MAX_PERFORMANCE_SAMPLES,
  type PerformanceSample,
  PerformanceSampler,
} from "../src/performance-samples.ts";
import { rpc, startTestLocalnet } from "./helpers.ts";

describe("performance samples", () => {
  it("samples on its own clock: slots and transactions per period, zero slots when slot production stalls", () => {
    const chain = { slot: 10, txCount: 3 };
    const sampler = new PerformanceSampler(60_000, () => chain, 0);
    // start-up (replay, seed) is no part of the first sample
    chain.slot = 12;
    chain.txCount = 40;
    sampler.startTimer(1_000);
    sampler.stop();
    chain.slot = 162;
    chain.txCount = 52;
    sampler.sample(61_000);
    // slot production stalls for a minute: the sample is still taken, with no slot
    chain.txCount = 52;
    sampler.sample(121_400);
    expect(sampler.samples).toEqual<PerformanceSample[]>([
      { slot: 162, numTransactions: 0, numNonVoteTransactions: 0, numSlots: 0, samplePeriodSecs: 60 },
      { slot: 162, numTransactions: 12, numNonVoteTransactions: 12, numSlots: 150, samplePeriodSecs: 60 },
    ]);
    for (let i = 0; i < MAX_PERFORMANCE_SAMPLES + 5; i++) sampler.sample(121_400 + (i + 1) * 60_000);
    expect(sampler.samples).toHaveLength(MAX_PERFORMANCE_SAMPLES);
  });

  it("an idle localnet at the 400 ms slot reports its real slots and no transactions", async () => {
    const net = await startTestLocalnet({ seed: false, slotMs: 400, samplePeriodSeconds: 2 });
    try {
      type Sample = PerformanceSample;
      let samples: Sample[] = [];
      const deadline = Date.now() + 30_000;
      while (samples.length < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        samples = (await rpc(net.rpcUrl, "getRecentPerformanceSamples", [5])).result as Sample[];
      }
      expect(samples.length).toBeGreaterThanOrEqual(2);
      const slot = (await rpc(net.rpcUrl, "getSlot")).result as number;
      // newest first, each ending at the slot it was taken at
      expect(samples[0]!.slot).toBeGreaterThan(samples[1]!.slot);
      expect(samples[0]!.slot).toBeLessThanOrEqual(slot);
      expect(samples[0]!.slot - samples[1]!.slot).toBe(samples[0]!.numSlots);
      for (const s of samples) {
        expect(s.samplePeriodSecs).toBe(2);
        expect(s.numTransactions).toBe(0);
        expect(s.numNonVoteTransactions).toBe(0);
        // 5 slots of 400 ms in 2 s; a loaded machine delays the slot timer a little, never speeds it up
        expect(s.numSlots).toBeGreaterThanOrEqual(3);
        expect(s.numSlots).toBeLessThanOrEqual(6);
      }
    } finally {
      await net.cleanup();
    }
  }, 60_000);
});
