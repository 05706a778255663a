import { describe, expect, it } from "vitest";
import { encodeBase58 } from "../src/base58.ts";
import { BlockhashWindow, getMaxBlockhashAge } from "../src/blockhash-window.ts";

const hashAt = (i: number) =>
  encodeBase58(new Uint8Array(32).fill(0).map((_, j) => (j === 0 ? i & 255 : j === 1 ? i >> 8 : 7)));

describe("blockhash window", () => {
  it("keeps 150 blocks at 400 ms slots and at least 60 s of blocks with faster slots", () => {
    expect(getMaxBlockhashAge(400)).toBe(150);
    expect(getMaxBlockhashAge(1000)).toBe(150);
    expect(getMaxBlockhashAge(100)).toBe(600);
  });

  it("a shorter wall-time minimum (expiry tests) still keeps 150 blocks", () => {
    expect(getMaxBlockhashAge(80, 0)).toBe(150);
    expect(getMaxBlockhashAge(80, 20_000)).toBe(250);
  });

  it("a blockhash is valid until its height + maxAge, then forgotten", () => {
    const w = new BlockhashWindow(150);
    for (let h = 1; h <= 152; h++) w.push(hashAt(h), h);
    expect(w.isValid(hashAt(1), 151)).toBe(false); // evicted from the ring
    expect(w.isValid(hashAt(2), 152)).toBe(true);
    expect(w.isValid(hashAt(2), 153)).toBe(false); // too old at this height
    expect(w.isValid(hashAt(152), 152)).toBe(true);
    expect(w.isValid("not base58!", 152)).toBe(false);
    expect(w.latest()).toEqual({ hash: hashAt(152), height: 152 });
  });
});
