import { afterEach, describe, expect, it, vi } from "vitest";
import { createAnalytics } from "../src/analytics/analytics.ts";
import { scheduleSessionRecording } from "../src/shell/session-recording.ts";

afterEach(() => {
  vi.useRealTimers();
  for (const el of document.querySelectorAll("script[data-session-recording]")) el.remove();
});

describe("session-recording script", () => {
  it("is injected 5 s after load when configured", () => {
    vi.useFakeTimers();
    scheduleSessionRecording("https://rec.test/r.js");
    vi.advanceTimersByTime(4999);
    expect(document.querySelector("script[data-session-recording]")).toBeNull();
    vi.advanceTimersByTime(1);
    expect(document.querySelector("script[data-session-recording]")?.getAttribute("src")).toBe(
      "https://rec.test/r.js",
    );
  });

  it("is absent when not configured", () => {
    vi.useFakeTimers();
    scheduleSessionRecording(null);
    vi.advanceTimersByTime(10_000);
    expect(document.querySelector("script[data-session-recording]")).toBeNull();
  });
});

describe("analytics", () => {
  it("POSTs page views and actions to the configured URL", async () => {
    const calls: { url: string; body: unknown }[] = [];
    const fetchImpl = (async (url: string, init?: RequestInit) => {
      calls.push({ url, body: JSON.parse(String(init?.body)) });
      return new Response(null, { status: 204 });
    }) as typeof fetch;
    const analytics = createAnalytics("https://api.test/analytics", fetchImpl);
    analytics.pageView("/");
    analytics.action("transaction_confirmed", { action: "Withdraw" });
    expect(calls.map((c) => c.url)).toEqual(["https://api.test/analytics", "https://api.test/analytics"]);
    expect(calls[0]!.body).toMatchObject({ type: "page_view", path: "/" });
    expect(calls[1]!.body).toMatchObject({
      type: "action",
      name: "transaction_confirmed",
      properties: { action: "Withdraw" },
    });
  });

  it("sends nothing without a URL and ignores delivery failures", async () => {
    const fetchImpl = vi.fn(async () => {
      throw new Error("offline");
    });
    createAnalytics(null, fetchImpl as unknown as typeof fetch).pageView("/");
    expect(fetchImpl).not.toHaveBeenCalled();
    const failing = createAnalytics("https://api.test/analytics", fetchImpl as unknown as typeof fetch);
    expect(() => failing.action("x")).not.toThrow();
    await new Promise((r) => setTimeout(r, 0));
  });
});
