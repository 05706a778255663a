// Programs compiled by clang-19 and linked by our linker, run in litesvm.
import { describe, expect, it } from "vitest";
import { isToolchainError, TOOLCHAIN_ERROR_CODES } from "../src/index.ts";
import { buildFixture } from "./helpers/build-fixture.ts";
import { addProgram, createHarness, readU64s, send, u64le } from "./helpers/svm.ts";

describe("linked programs run in litesvm", () => {
  it("logs through sol_log_ and sol_log_64_", async () => {
    const { so, syscalls } = await buildFixture(["hello"]);
    expect(syscalls).toEqual(["sol_log_", "sol_log_64_"]);
    const h = await createHarness();
    const programId = await addProgram(h, so);
    const res = await send(h, [{ programAddress: programId, accounts: [], data: new Uint8Array() }]);
    expect(res.logs()).toContain("Program log: hello from Cistern C");
    expect(res.logs()).toContain("Program log: 0x1, 0x2, 0x3, 0x4, 0x2a");
  });

  it("runs a 3000-byte stack frame, a nested 2000-byte frame and heap scratch", async () => {
    const { so } = await buildFixture(["stack-frames"], { STACK_BYTES: "3000" });
    const h = await createHarness();
    const programId = await addProgram(h, so);
    const res = await send(h, [{ programAddress: programId, accounts: [], data: new Uint8Array() }]);
    const sum = (n: number): bigint => {
      let s = 0n;
      for (let i = 0; i < n; i++) s += BigInt(i & 255);
      return s;
    };
    expect(readU64s(res.returnData().data())).toEqual([sum(3000), sum(2000), sum(32 * 1024)]);
  });

  it("calls through a const table of function pointers and through run-time chosen pointers (callx)", async () => {
    const { so } = await buildFixture(["fn-pointers"]);
    const h = await createHarness();
    const programId = await addProgram(h, so);
    const call = async (op: number, a: bigint, b: bigint): Promise<bigint> => {
      const data = Buffer.concat([Buffer.from([op]), u64le(a), u64le(b)]);
      const res = await send(h, [{ programAddress: programId, accounts: [], data }]);
      return readU64s(res.returnData().data())[0]!;
    };
    expect(await call(0, 40n, 2n)).toBe(42n);
    expect(await call(1, 6n, 7n)).toBe(42n);
    expect(await call(2, 50n, 8n)).toBe(42n);
    expect(await call(3, 50n, 8n)).toBe(42n);
    expect(await call(3, 8n, 34n)).toBe(42n);
  });

  it("links two objects that each define global functions calling each other, and share const data", async () => {
    const { so } = await buildFixture(["multi-a", "multi-b"]);
    const h = await createHarness();
    const programId = await addProgram(h, so);
    for (const x of [3n, 10n, 0xffffn]) {
      const res = await send(h, [{ programAddress: programId, accounts: [], data: u64le(x) }]);
      expect(readU64s(res.returnData().data())).toEqual([
        2n * x + 5n,
        2n * x,
        x * x,
        [1000n, 2000n, 3000n, 4000n][Number(x & 3n)],
      ]);
    }
  });

  it("lets a program's own memcpy override libsol.c's weak definition", async () => {
    const { so } = await buildFixture(["own-memcpy"]);
    const h = await createHarness();
    const programId = await addProgram(h, so);
    const data = Buffer.from("copied by the program's memcpy");
    const res = await send(h, [{ programAddress: programId, accounts: [], data }]);
    expect(res.logs()).toContain("Program log: own memcpy");
    expect(Buffer.from(res.returnData().data())).toEqual(data);
  });

  it("drops functions nothing references (-ffunction-sections)", async () => {
    const { so } = await buildFixture(["section-gc"]);
    const has = (v: bigint): boolean => {
      // lddw splits a 64-bit immediate into two 32-bit halves 8 bytes apart
      const lo = Buffer.alloc(4);
      lo.writeUInt32LE(Number(v & 0xffffffffn));
      const hi = Buffer.alloc(4);
      hi.writeUInt32LE(Number(v >> 32n));
      const i = so.indexOf(lo);
      return i >= 0 && so.subarray(i + 8, i + 12).equals(hi);
    };
    expect(has(0x1122334455667788n)).toBe(true);
    expect(has(0x0badc0ffee0ddf00n)).toBe(false);
    const h = await createHarness();
    const programId = await addProgram(h, so);
    const res = await send(h, [{ programAddress: programId, accounts: [], data: new Uint8Array() }]);
    expect(readU64s(res.returnData().data())).toHaveLength(1);
  });
});

describe("linker rejects what SBPF cannot run, with a clear message", () => {
  const rejection = async (names: string[]): Promise<{ code: number; message: string }> => {
    try {
      await buildFixture(names);
    } catch (e) {
      if (isToolchainError(e)) return { code: e.code, message: e.message };
      throw e;
    }
    throw new Error("link unexpectedly succeeded");
  };

  it("rejects a mutable zero-initialised global, naming it", async () => {
    const r = await rejection(["mutable-global"]);
    expect(r.code).toBe(TOOLCHAIN_ERROR_CODES.MUTABLE_GLOBAL);
    expect(r.message).toMatch(/mutable-global\.c: mutable global data in section \.bss.*symbols: counter/);
    expect(r.message).toContain("cannot have writable globals");
  });

  it("rejects an initialised mutable static, naming it", async () => {
    const r = await rejection(["mutable-static"]);
    expect(r.code).toBe(TOOLCHAIN_ERROR_CODES.MUTABLE_GLOBAL);
    expect(r.message).toMatch(/section \.data.*symbols: hits/);
  });

  it("rejects a call to an undefined non-syscall function", async () => {
    const r = await rejection(["undefined-call"]);
    expect(r.code).toBe(TOOLCHAIN_ERROR_CODES.UNDEFINED_SYMBOL);
    expect(r.message).toContain("undefined function 'not_defined_anywhere'");
  });

  it("rejects a symbol defined in two objects", async () => {
    const r = await rejection(["hello", "duplicate-symbol"]);
    expect(r.code).toBe(TOOLCHAIN_ERROR_CODES.DUPLICATE_SYMBOL);
    expect(r.message).toContain(
      "duplicate symbol 'entrypoint' defined in test/fixtures/hello.c and test/fixtures/duplicate-symbol.c",
    );
  });

  it("rejects a program without an entrypoint", async () => {
    const r = await rejection(["no-entrypoint"]);
    expect(r.code).toBe(TOOLCHAIN_ERROR_CODES.NO_ENTRYPOINT);
    expect(r.message).toContain("entry function 'entrypoint' is not defined");
  });
});
