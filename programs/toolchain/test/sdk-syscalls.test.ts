// The C SDK's syscall bindings and error encodings against litesvm.
import { createHash } from "node:crypto";
import type { Address } from "@solana/kit";
import { Clock } from "litesvm";
import { beforeAll, describe, expect, it } from "vitest";
import { buildFixture } from "./helpers/build-fixture.ts";
import {
  addProgram,
  createHarness,
  type Harness,
  readU64s,
  send,
  sendExpectingFailure,
  u64le,
} from "./helpers/svm.ts";

let h: Harness;
let programId: Address;
beforeAll(async () => {
  const { so } = await buildFixture(["sdk-syscalls"]);
  h = await createHarness();
  programId = await addProgram(h, so);
});

const ix = (tag: number, rest: Uint8Array = new Uint8Array()) => ({
  programAddress: programId,
  accounts: [],
  data: Buffer.concat([Buffer.from([tag]), rest]),
});

describe("C SDK syscalls", () => {
  it("sol_sha256 over two slices equals SHA-256 of their concatenation", async () => {
    const msg = Buffer.from("cistern lending marketplace: the pool always rounds in its own favour");
    const res = await send(h, [ix(0, msg)]);
    expect(Buffer.from(res.returnData().data()).toString("hex")).toBe(
      createHash("sha256").update(msg).digest("hex"),
    );
  });

  it("sol_log_data logs base64 fields as 'Program data:'", async () => {
    const res = await send(h, [ix(1, Buffer.from([1, 2, 3, 250]))]);
    expect(res.logs()).toContain(
      `Program data: ${Buffer.from([1, 2, 3, 250]).toString("base64")} ${Buffer.from("cistern").toString("base64")}`,
    );
  });

  it("rent_minimum_balance (integer maths on the f64 threshold) matches the runtime's rent-exempt minimum", async () => {
    for (const len of [0n, 8n, 165n, 1000n, 10_240n]) {
      const res = await send(h, [ix(2, u64le(len))]);
      const [minimum, perByteYear] = readU64s(res.returnData().data());
      expect(minimum).toBe(h.svm.minimumBalanceForRentExemption(len));
      expect(perByteYear).toBeGreaterThan(0n);
    }
  });

  it("sol_get_clock_sysvar returns the clock litesvm was set to", async () => {
    const c = h.svm.getClock();
    h.svm.setClock(new Clock(c.slot, c.epochStartTimestamp, c.epoch, c.leaderScheduleEpoch, 1_750_000_123n));
    const res = await send(h, [ix(3)]);
    const [slot, , epoch, , unixTimestamp] = readU64s(res.returnData().data());
    expect(slot).toBe(c.slot);
    expect(epoch).toBe(c.epoch);
    expect(unixTimestamp).toBe(1_750_000_123n);
  });

  it("ERROR_CUSTOM(0) is reported as Custom(0), not success", async () => {
    const fail = await sendExpectingFailure(h, [ix(4)]);
    expect(fail.errText).toContain("code: 0");
  });

  it("ERROR_INCORRECT_PROGRAM_ID is the runtime's IncorrectProgramId", async () => {
    const fail = await sendExpectingFailure(h, [ix(5)]);
    expect(fail.errText).toContain("IncorrectProgramId");
  });

  it("sol_get_stack_height is 1 for a top-level instruction", async () => {
    const res = await send(h, [ix(6)]);
    expect(readU64s(res.returnData().data())).toEqual([1n]);
  });

  it("sol_assert panics with the source file and line", async () => {
    const fail = await sendExpectingFailure(h, [ix(7)]);
    expect(fail.logs.join("\n")).toMatch(/SBF program Panicked in test\/fixtures\/sdk-syscalls\.c at \d+:0/);
  });
});
