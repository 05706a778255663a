import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { createAnalytics } from "../src/analytics/analytics.ts";
import { AppContext } from "../src/app-context.ts";
import { DEFAULT_RUNTIME_CONFIG } from "../src/config/runtime-config.ts";
import { getBuilderPriorityFeeOptions, parsePriorityFeeSettings } from "../src/settings/priority-fee.ts";
import SettingsPanel from "../src/settings/settings-panel.tsx";
import { loadSettings, resetSettings, setRpcUrl, settingsStore } from "../src/settings/settings-store.ts";

afterEach(() => {
  cleanup();
  act(() => resetSettings());
});

describe("priority fee", () => {
  it("defaults to fast, 0.0005 SOL, maxCap, priorityFees", () => {
    expect(parsePriorityFeeSettings(null)).toEqual({
      level: "fast",
      amountSol: "0.0005",
      type: "maxCap",
      broadcastMode: "priorityFees",
    });
  });

  it("sends the builder the level, SOL amount, type and broadcast mode, rejecting bad amounts", () => {
    expect(getBuilderPriorityFeeOptions(parsePriorityFeeSettings(null))).toEqual({
      priorityFeeLevel: "fast",
      amount: "0.0005",
      type: "maxCap",
      broadcastMode: "priorityFees",
    });
    expect(
      getBuilderPriorityFeeOptions({
        level: "ultra",
        amountSol: "0.001",
        type: "exactFee",
        broadcastMode: "jito",
      }),
    ).toEqual({ priorityFeeLevel: "ultra", amount: "0.001", type: "exactFee", broadcastMode: "jito" });
    expect(() =>
      getBuilderPriorityFeeOptions({
        level: "fast",
        amountSol: "0.0000000001",
        type: "maxCap",
        broadcastMode: "jito",
      }),
    ).toThrow();
  });

  it("falls back field by field on corrupt stored settings", () => {
    expect(parsePriorityFeeSettings({ level: "warp", amountSol: "0.0000000001", type: "exactFee" })).toEqual({
      level: "fast",
      amountSol: "0.0005",
      type: "exactFee",
      broadcastMode: "priorityFees",
    });
  });
});

describe("settings store", () => {
  it("stores the explorer under preferred-explorer and the RPC URL under rainfi-rpc", () => {
    localStorage.setItem("preferred-explorer", "solscan");
    localStorage.setItem("rainfi-rpc", "https://rpc.example");
    expect(loadSettings()).toMatchObject({ explorer: "solscan", rpcUrl: "https://rpc.example" });
    localStorage.setItem("preferred-explorer", "etherscan");
    localStorage.setItem("rainfi-rpc", "javascript:alert(1)");
    expect(loadSettings()).toMatchObject({ explorer: "solana-explorer", rpcUrl: null });
    expect(() => setRpcUrl("ftp://x")).toThrow("Not an http(s) URL: ftp://x");
  });
});

describe("settings panel", () => {
  function renderPanel() {
    render(
      <AppContext.Provider
        value={{
          config: DEFAULT_RUNTIME_CONFIG,
          rpcUrl: DEFAULT_RUNTIME_CONFIG.rpcUrl,
          analytics: createAnalytics(null),
          buildId: "t",
        }}
      >
        <SettingsPanel />
      </AppContext.Provider>,
    );
  }

  it("changes the explorer, RPC URL and priority fee, persisting each", () => {
    renderPanel();
    const explorer = screen.getByTestId("explorer-select") as HTMLSelectElement;
    expect([...explorer.options].map((o) => o.text)).toEqual([
      "Solana Explorer",
      "Solscan",
      "SolanaFM",
      "Solana Beach",
    ]);
    expect(explorer.value).toBe("solana-explorer");
    fireEvent.change(explorer, { target: { value: "solanafm" } });
    expect(localStorage.getItem("preferred-explorer")).toBe("solanafm");

    fireEvent.change(screen.getByTestId("rpc-input"), { target: { value: "not a url" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByText("Enter an http(s) URL")).toBeTruthy();
    expect(settingsStore.get().rpcUrl).toBeNull();
    fireEvent.change(screen.getByTestId("rpc-input"), { target: { value: "https://rpc.example" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(localStorage.getItem("rainfi-rpc")).toBe("https://rpc.example");

    fireEvent.click(screen.getByRole("button", { name: "Ultra" }));
    fireEvent.change(screen.getByTestId("fee-amount"), { target: { value: "0.002" } });
    expect(JSON.parse(localStorage.getItem("priority-fee")!)).toMatchObject({
      level: "ultra",
      amountSol: "0.002",
    });
    fireEvent.change(screen.getByTestId("fee-amount"), { target: { value: "abc" } });
    expect(screen.getByText("Enter a SOL amount with at most 9 decimals")).toBeTruthy();
    expect(settingsStore.get().priorityFee.amountSol).toBe("0.002");
  });
});
