import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { UpdateBanner } from "../src/shell/update-banner.tsx";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function serveBuildId(ids: string[]) {
  const calls: string[] = [];
  vi.stubGlobal("fetch", async (url: string) => {
    calls.push(url);
    const buildId = ids[Math.min(calls.length - 1, ids.length - 1)];
    return new Response(JSON.stringify({ buildId }), { headers: { "content-type": "application/json" } });
  });
  return calls;
}

describe("website-update banner", () => {
  it("stays hidden while the server runs this build, and shows once a new build is deployed (10 min check)", async () => {
    vi.useFakeTimers();
    const calls = serveBuildId(["build-1", "build-2"]);
    render(<UpdateBanner buildId="build-1" />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(calls).toEqual(["/api/build-id"]);
    expect(screen.queryByRole("status")).toBeNull();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10 * 60_000 - 1);
    });
    expect(calls).toHaveLength(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(calls).toHaveLength(2);
    expect(screen.getByRole("status").textContent).toContain("A new version of the website is available.");
    expect(screen.getByRole("button", { name: "Refresh" })).toBeTruthy();
  });

  it("ignores a failed check", async () => {
    vi.stubGlobal("fetch", async () => {
      throw new Error("offline");
    });
    render(<UpdateBanner buildId="build-1" />);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 10));
    });
    expect(screen.queryByRole("status")).toBeNull();
  });
});
