import { parsePool, SOL_MINT, USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DashboardPage } from "../../src/features/dashboard/dashboard-page.tsx";
import { MarketPage } from "../../src/features/lend/market-page.tsx";
import { DEFAULT_POOL_FILTERS, filterAndSortPools } from "../../src/features/pools/pool-filters.ts";
import { PoolsPage } from "../../src/features/pools/pools-page.tsx";
import { apiPool } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const summary = (currency: string, largestPools: unknown[] = []) => ({
  currency,
  totalPools: largestPools.length,
  averageApr: 2500,
  medianApr: 2000,
  availableLiquidity: "1500000000",
  availableLiquidityUsd: 1500,
  totalBorrowed: "500000000",
  utilizationRatio: 0.25,
  mints: [],
  pairsSupported: 3,
  largestPools,
});

describe("lend page", () => {
  it("shows the market of a currency; arrow keys switch currency", async () => {
    const requests = installApi((r) =>
      r.path === "/liquidity/summary"
        ? { body: summary(r.query.get("currency")!) }
        : r.path === "/marginfi/reserve"
          ? { body: { mint: r.query.get("mint"), isDelegationSupported: true, rateBps: 650 } }
          : undefined,
    );
    renderPage(<MarketPage />);
    const market = await screen.findByTestId("market-summary");
    // pool interest on the lent part plus the venue's rate on the idle part, labelled as an estimate
    expect((await screen.findByTestId("combined-yield")).textContent).toMatch(
      /^Idle funds can earn 6\.5% a year .* about 9\.88% a year on its whole deposit: 20% on the lent part, 6\.5% on the rest\. An estimate/,
    );
    expect(market.textContent).toContain("Average APR25%");
    expect(market.textContent).toContain("Utilisation25.0%");
    expect(screen.getByTestId("state-empty").textContent).toContain("No open pools lend this currency yet");
    const sol = screen.getByRole("tab", { name: "SOL" });
    expect(sol.getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(sol, { key: "ArrowRight" });
    expect(screen.getByRole("tab", { name: "USDC" }).getAttribute("aria-selected")).toBe("true");
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: "USDC" }));
    await waitFor(() =>
      expect(
        requests.filter((r) => r.path === "/liquidity/summary").map((r) => r.query.get("currency")),
      ).toEqual([SOL_MINT, USDC_MINT]),
    );
  });

  it("shows an error with a retry when the API fails", async () => {
    installApi(() => ({ status: 500, body: { code: 11000, message: "Internal error" } }));
    renderPage(<MarketPage />);
    await waitFor(() =>
      expect(
        screen
          .getAllByTestId("state-error")
          .map((e) => e.textContent)
          .join(" "),
      ).toContain("Could not load the market"),
    );
  });
});

describe("pools list", () => {
  const pools = [
    parsePool(apiPool({ metadata: { name: "Alpha", thumbnail: "", banks: [] }, loanCurve: { apr: 1000 } })),
    parsePool(
      apiPool({
        type: "defi-pool",
        metadata: { name: "Beta", thumbnail: "", banks: [] },
        loanCurve: { apr: 3000 },
        availableLiquidity: "1",
      }),
    ),
    parsePool(apiPool({ metadata: { name: "Gamma", thumbnail: "", banks: [] }, loanCurve: { apr: 2000 } })),
  ];

  it("filters by type and name and sorts by APR or liquidity", () => {
    const names = (list: typeof pools) => list.map((p) => p.metadata.name);
    expect(names(filterAndSortPools(pools, { ...DEFAULT_POOL_FILTERS, sort: "apr-high" }))).toEqual([
      "Beta",
      "Gamma",
      "Alpha",
    ]);
    expect(names(filterAndSortPools(pools, { ...DEFAULT_POOL_FILTERS, sort: "liquidity" })).at(-1)).toBe(
      "Beta",
    );
    expect(
      names(filterAndSortPools(pools, { ...DEFAULT_POOL_FILTERS, type: "nft-pool", sort: "apr-low" })),
    ).toEqual(["Alpha", "Gamma"]);
    expect(names(filterAndSortPools(pools, { ...DEFAULT_POOL_FILTERS, search: "gam" }))).toEqual(["Gamma"]);
  });

  it("lists pools and says when none match", async () => {
    installApi((r) =>
      r.path === "/dirty/pools"
        ? {
            body: {
              pools: pools.map((p) => apiPool({ pubkey: p.pubkey, metadata: p.metadata })),
              banks: [],
              totalCount: 3,
            },
          }
        : undefined,
    );
    renderPage(<PoolsPage />);
    expect((await screen.findByTestId("pool-count")).textContent).toBe("3 of 3 pools");
    fireEvent.change(screen.getByLabelText("Search"), { target: { value: "zzz" } });
    expect(screen.getByTestId("state-empty").textContent).toBe("No pools match these filters.");
  });
});

describe("dashboard", () => {
  it("shows protocol TVL, volume bars and top users without a wallet", async () => {
    installApi((r) => {
      if (r.path === "/tvl") {
        return {
          body: {
            tvlUsd: 1234.5,
            byCurrency: [
              {
                currency: USDC_MINT,
                totalLiquidity: "1000000000",
                availableLiquidity: "0",
                borrowedLiquidity: "250000000",
                tvlUsd: 1000,
              },
            ],
          },
        };
      }
      if (r.path === "/loan/stats-total")
        return {
          body: {
            totalLoans: 4,
            ongoingLoans: 1,
            repaidLoans: 3,
            liquidatedLoans: 0,
            byCurrency: [],
            volumeUsd: 400,
          },
        };
      if (r.path === "/loan/volume-stats") return { body: [] };
      if (r.path === "/loan/stats-per-collection") return { body: [] };
      if (r.path === "/dirty/top-users")
        return { body: [{ user: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", loans: 4, volumeUsd: 400 }] };
      return undefined;
    });
    renderPage(<DashboardPage />);
    const top = await screen.findByTestId("top-users");
    expect(within(top).getByText("9xQe...VFin")).toBeTruthy();
    expect(screen.getByText("No loans in the last 30 days.")).toBeTruthy();
    await waitFor(() => expect(screen.getByText("$1,234.50")).toBeTruthy());
    expect(screen.getByText("250 USDC")).toBeTruthy();
    expect(screen.queryByText("You")).toBeNull();
  });

  it("shows an empty state, not $0 axes, when the wallet's 30-day history is all zero", async () => {
    installApi((r) => {
      if (r.path === "/liquidity/liabilities")
        return {
          body: Array.from({ length: 30 }, (_, i) => ({
            date: `2026-11-${String(i + 1).padStart(2, "0")}`,
            liabilities: 0,
            assets: 0,
          })),
        };
      if (r.path === "/loan/volume-stats") return { body: [] };
      return undefined;
    });
    renderPage(<DashboardPage />, { wallet: makeWallet(Keypair.generate()) });
    expect(
      await screen.findByText(
        "No loans in the last 30 days: borrow to see your liabilities and collateral here.",
      ),
    ).toBeTruthy();
    expect(screen.queryByRole("img", { name: /Liabilities and collateral value/ })).toBeNull();
  });
});
