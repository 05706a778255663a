import { isCisternError } from "@cistern/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { requestJson } from "../src/tx/http-client.ts";

afterEach(() => vi.useRealTimers());

function respond(status: number, body: unknown): typeof fetch {
  return async () => new Response(typeof body === "string" ? body : JSON.stringify(body), { status });
}

describe("requestJson", () => {
  it("returns the JSON body", async () => {
    expect(await requestJson("http://x.test/a", { fetchImpl: respond(200, { ok: 1 }) })).toEqual({ ok: 1 });
  });

  it.each([400, 404, 422])("maps %i to an error with the server message", async (status) => {
    const error = await requestJson("http://x.test/a", {
      fetchImpl: respond(status, { message: "bad pool" }),
    }).catch((e: unknown) => e);
    expect(isCisternError(error)).toBe(true);
    expect((error as Error).message).toBe("bad pool");
    expect((error as { code: number }).code).toBe(4000 + status);
  });

  it("joins list messages with commas and falls back to 'Unknown error {status}'", async () => {
    await expect(
      requestJson("http://x.test/a", { fetchImpl: respond(400, { message: ["a", "b"] }) }),
    ).rejects.toThrow("a, b");
    await expect(requestJson("http://x.test/a", { fetchImpl: respond(422, {}) })).rejects.toThrow(
      "Unknown error 422",
    );
  });

  it("reports other statuses by number", async () => {
    await expect(requestJson("http://x.test/a", { fetchImpl: respond(503, "down") })).rejects.toThrow(
      "Request failed with status 503",
    );
  });

  it("times out after 30 s", async () => {
    vi.useFakeTimers();
    const hanging: typeof fetch = (_url, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))),
      );
    const pending = requestJson("http://x.test/a", { fetchImpl: hanging }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(((await pending) as Error).message).toBe("Request timed out after 30 seconds");
  });
});
