import { describe, expect, it } from "vitest";
import { createResponseCache } from "../../src/http/response-cache.ts";

const flush = () => new Promise((r) => setImmediate(r));

describe("response cache", () => {
  it("reuses an answer within the TTL and never serves one older than the TTL", async () => {
    let clock = 0;
    let loads = 0;
    const cache = createResponseCache<number>(1000, 10, () => clock);
    const load = async () => ++loads;
    expect(await cache.get("a", load)).toBe(1);
    clock = 999;
    expect(await cache.get("a", load)).toBe(1);
    clock = 1000;
    // expired: both callers wait for the one new load (no stale answer)
    const first = cache.get("a", load);
    const second = cache.get("a", load);
    expect([await first, await second]).toEqual([2, 2]);
    expect(loads).toBe(2);
  });

  it("never keeps a failure", async () => {
    let clock = 0;
    const cache = createResponseCache<string>(1000, 10, () => clock);
    await expect(cache.get("b", () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    expect(await cache.get("b", async () => "ok")).toBe("ok");
    clock = 5000;
    await expect(cache.get("b", () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    await flush();
    expect(await cache.get("b", async () => "again")).toBe("again");
  });

  it("is off with a TTL of 0 and bounded in size", async () => {
    let loads = 0;
    const off = createResponseCache<number>(0);
    await off.get("a", async () => ++loads);
    await off.get("a", async () => ++loads);
    expect(loads).toBe(2);
    const small = createResponseCache<string>(60_000, 2);
    await small.get("a", async () => "a1");
    await small.get("b", async () => "b1");
    await small.get("c", async () => "c1");
    expect(await small.get("a", async () => "a2")).toBe("a2");
    expect(await small.get("c", async () => "c2")).toBe("c1");
  });
});
