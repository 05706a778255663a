import { ConnectionContext } from "@solana/wallet-adapter-react";
import type { Connection } from "@solana/web3.js";
import { QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { createAnalytics } from "../src/analytics/analytics.ts";
import { createQueryClient } from "../src/app.tsx";
import { AppContext } from "../src/app-context.ts";
import { DEFAULT_RUNTIME_CONFIG } from "../src/config/runtime-config.ts";
import {
  getBuilderPriorityFeeOptions,
  getPriorityFeeAmountError,
  parsePriorityFeeSettings,
} from "../src/settings/priority-fee.ts";
import SettingsPanel from "../src/settings/settings-panel.tsx";
import {
  loadSettings,
  resetSettings,
  setPriorityFee,
  setRpcUrl,
  settingsStore,
} from "../src/settings/settings-store.ts";

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

  it("refuses amounts the API would refuse: 0, over 9 decimals, above 0.01 SOL", () => {
    expect(getPriorityFeeAmountError("0.01")).toBeNull();
    expect(getPriorityFeeAmountError("0.000000001")).toBeNull();
    expect(getPriorityFeeAmountError("0.010000001")).toBe(
      "The priority fee can be at most 0.01 SOL (the same limit applies to the Jito tip)",
    );
    expect(getPriorityFeeAmountError("0")).toBe("The priority fee must be more than 0 SOL");
    expect(getPriorityFeeAmountError("0.0000000001")).toBe("Enter a SOL amount with at most 9 decimals");
    expect(getPriorityFeeAmountError("")).toBe("Enter a SOL amount with at most 9 decimals");
    expect(() =>
      getBuilderPriorityFeeOptions({
        level: "fast",
        amountSol: "0.5",
        type: "exactFee",
        broadcastMode: "jito",
      }),
    ).toThrow(
      "Priority fee 0.5 SOL: The priority fee can be at most 0.01 SOL (the same limit applies to the Jito tip)",
    );
    expect(
      getBuilderPriorityFeeOptions({ ...parsePriorityFeeSettings(null), amountSol: "0.01" }).amount,
    ).toBe("0.01");
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

  it("loads a stored priority fee above 0.01 SOL, or of 0, as the default amount", () => {
    const stored = { level: "ultra", amountSol: "0.02", type: "exactFee", broadcastMode: "jito" };
    localStorage.setItem("priority-fee", JSON.stringify(stored));
    expect(loadSettings().priorityFee).toEqual({ ...stored, amountSol: "0.0005" });
    localStorage.setItem("priority-fee", JSON.stringify({ ...stored, amountSol: "0" }));
    expect(loadSettings().priorityFee.amountSol).toBe("0.0005");
    localStorage.setItem("priority-fee", JSON.stringify({ ...stored, amountSol: "0.01" }));
    expect(loadSettings().priorityFee.amountSol).toBe("0.01");
  });

  it("refuses to store a priority fee the API would refuse, writing nothing", () => {
    const fee = { ...settingsStore.get().priorityFee, amountSol: "0.011" };
    expect(() => setPriorityFee(fee)).toThrow(
      "Priority fee 0.011 SOL: The priority fee can be at most 0.01 SOL",
    );
    expect(localStorage.getItem("priority-fee")).toBeNull();
    expect(settingsStore.get().priorityFee.amountSol).toBe("0.0005");
  });
});

describe("settings panel", () => {
  function renderPanel(recentFees: { slot: number; prioritizationFee: number }[] = []) {
    const connection = {
      rpcEndpoint: "http://rpc.test",
      getRecentPrioritizationFees: async () => recentFees,
    } as unknown as Connection;
    render(
      <AppContext.Provider
        value={{
          config: DEFAULT_RUNTIME_CONFIG,
          rpcUrl: DEFAULT_RUNTIME_CONFIG.rpcUrl,
          analytics: createAnalytics(null),
          buildId: "t",
        }}
      >
        <QueryClientProvider client={createQueryClient()}>
          <ConnectionContext.Provider value={{ connection }}>
            <SettingsPanel />
          </ConnectionContext.Provider>
        </QueryClientProvider>
      </AppContext.Provider>,
    );
  }

  it("shows what each priority level adds to a typical transaction at the cluster's recent fees", async () => {
    // recent fees average 20,000 micro-lamports per CU: 100,000 CU cost 2,000 / 3,000 / 6,000 lamports
    renderPanel([
      { slot: 1, prioritizationFee: 10_000 },
      { slot: 2, prioritizationFee: 30_000 },
    ]);
    expect((await screen.findByTestId("priority-estimate-note")).textContent).toContain(
      "100,000 compute units",
    );
    expect(screen.getByTestId("priority-medium").textContent).toBe("Medium ≈ 0.000002 SOL");
    expect(screen.getByTestId("priority-fast").textContent).toBe("Fast ≈ 0.000003 SOL");
    expect(screen.getByTestId("priority-ultra").textContent).toBe("Ultra ≈ 0.000006 SOL");
  });

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
    expect(screen.getByRole("alert").textContent).toBe(
      "Enter a SOL amount with at most 9 decimals. Not saved: transactions keep using 0.002 SOL.",
    );
    expect(settingsStore.get().priorityFee.amountSol).toBe("0.002");
  });

  it("shows why a priority fee is refused and saves nothing until it is within 0.01 SOL", () => {
    renderPanel();
    const input = screen.getByLabelText("Max cap (SOL)") as HTMLInputElement;
    expect(input.value).toBe("0.0005");
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByText("More than 0 and at most 0.01 SOL.")).toBeTruthy();

    fireEvent.change(input, { target: { value: "0.02" } });
    expect(screen.getByRole("alert").textContent).toBe(
      "The priority fee can be at most 0.01 SOL (the same limit applies to the Jito tip). " +
        "Not saved: transactions keep using 0.0005 SOL.",
    );
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(input.value).toBe("0.02");
    expect(localStorage.getItem("priority-fee")).toBeNull();
    expect(settingsStore.get().priorityFee.amountSol).toBe("0.0005");

    fireEvent.change(input, { target: { value: "0" } });
    expect(screen.getByRole("alert").textContent).toContain("The priority fee must be more than 0 SOL.");
    fireEvent.change(input, { target: { value: "0.0000000001" } });
    expect(screen.getByRole("alert").textContent).toContain("Enter a SOL amount with at most 9 decimals.");
    expect(localStorage.getItem("priority-fee")).toBeNull();

    fireEvent.change(input, { target: { value: "0.01" } });
    expect(screen.queryByRole("alert")).toBeNull();
    expect(input.getAttribute("aria-invalid")).toBe("false");
    expect(JSON.parse(localStorage.getItem("priority-fee")!)).toMatchObject({ amountSol: "0.01" });
    expect(settingsStore.get().priorityFee.amountSol).toBe("0.01");

    fireEvent.change(screen.getByDisplayValue("Priority fees"), { target: { value: "jito" } });
    expect(
      screen.getByText("More than 0 and at most 0.01 SOL (the Jito tip is the same amount)."),
    ).toBeTruthy();
    expect(getBuilderPriorityFeeOptions(settingsStore.get().priorityFee)).toEqual({
      priorityFeeLevel: "fast",
      amount: "0.01",
      type: "maxCap",
      broadcastMode: "jito",
    });
  });

  it("shows the default amount when the stored one is above 0.01 SOL", () => {
    localStorage.setItem(
      "priority-fee",
      JSON.stringify({ level: "medium", amountSol: "1", type: "exactFee" }),
    );
    act(() => settingsStore.set(loadSettings()));
    renderPanel();
    expect((screen.getByLabelText("Exact fee (SOL)") as HTMLInputElement).value).toBe("0.0005");
    expect(screen.getByRole("button", { name: "Medium" }).getAttribute("aria-pressed")).toBe("true");
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
