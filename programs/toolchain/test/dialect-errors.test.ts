// What the SBPF C dialect cannot compile fails with clang's error plus a hint at the fix.
import { describe, expect, it } from "vitest";
import { isToolchainError, TOOLCHAIN_ERROR_CODES } from "../src/index.ts";
import { buildFixture } from "./helpers/build-fixture.ts";

async function compileError(dialectCase: number): Promise<string> {
  try {
    await buildFixture(["dialect-errors"], { DIALECT_CASE: String(dialectCase) });
  } catch (e) {
    if (isToolchainError(e, TOOLCHAIN_ERROR_CODES.COMPILE_FAILED)) return e.message;
    throw e;
  }
  throw new Error("compile unexpectedly succeeded");
}

describe("C dialect errors explain themselves", () => {
  it("more than 5 arguments", async () => {
    const m = await compileError(1);
    expect(m).toContain("error: stack arguments are not supported");
    expect(m).toContain("hint: SBPF functions take at most 5 arguments: pass a pointer to a struct instead");
  });

  it("__int128 multiply/divide", async () => {
    const m = await compileError(2);
    expect(m).toContain("'__multi3' is not supported");
    expect(m).toContain(
      "hint: __int128 multiply/divide/shift is not available on BPF: use the U128 helpers in u128.h",
    );
  });

  it("signed division", async () => {
    const m = await compileError(3);
    expect(m).toContain("hint: signed 64-bit division is not in SBPF v0: use sdiv64() from u128.h");
  });

  it("returning a 16-byte struct from a non-inlined function", async () => {
    const m = await compileError(4);
    expect(m).toContain("aggregate returns are not supported");
    expect(m).toContain("hint: functions cannot return structs larger than 8 bytes unless inlined");
  });
});
