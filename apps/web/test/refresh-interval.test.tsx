import { QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, renderHook } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAnalytics } from "../src/analytics/analytics.ts";
import { createQueryClient } from "../src/app.tsx";
import { AppContext } from "../src/app-context.ts";
import { DEFAULT_RUNTIME_CONFIG } from "../src/config/runtime-config.ts";
import { usePrices } from "../src/data/prices.ts";
import { toastStore } from "../src/toasts/toast-store.ts";

function setVisibility(state: "visible" | "hidden") {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => state });
  document.dispatchEvent(new Event("visibilitychange"));
}

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  setVisibility("visible");
});

function renderPrices() {
  const queryClient = createQueryClient();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <AppContext.Provider
      value={{
        config: { ...DEFAULT_RUNTIME_CONFIG, apiUrl: "http://api.test" },
        rpcUrl: DEFAULT_RUNTIME_CONFIG.rpcUrl,
        analytics: createAnalytics(null),
        buildId: "t",
      }}
    >
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </AppContext.Provider>
  );
  return renderHook(() => usePrices(), { wrapper });
}

describe("price refresh", () => {
  it("refreshes every 30 s only while the page is visible", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: false });
    let calls = 0;
    vi.stubGlobal("fetch", async () => {
      calls++;
      return new Response(JSON.stringify({ prices: { M: { price: calls } } }));
    });
    const { result } = renderPrices();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(calls).toBe(1);
    expect(result.current.data).toEqual({ M: "1" });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(30_000);
    });
    expect(calls).toBe(2);
    setVisibility("hidden");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(90_000);
    });
    expect(calls).toBe(2);
  });

  it("only logs a failed refresh", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.stubGlobal("fetch", async () => new Response("down", { status: 503 }));
    const { result } = renderPrices();
    await vi.waitFor(() => expect(result.current.isError).toBe(true));
    expect(log).toHaveBeenCalledWith("Price refresh failed", expect.any(Error));
    expect(toastStore.get()).toEqual([]);
  });
});
