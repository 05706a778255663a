import { USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LoansPage } from "../../src/features/loans/loans-page.tsx";
import { apiLoan, SOL_MINT } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

const DAY = 86_400;
const NOW = 1_800_000_000;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

/** The Loans page of a borrower with one loan running, the API answering chain performance with `performance`. */
async function renderWithPerformance(performance: Record<string, unknown>) {
  const borrower = Keypair.generate();
  const loan = apiLoan({ borrower: borrower.publicKey.toBase58(), createdAt: NOW - DAY, duration: 14 * DAY });
  const requests = installApi((r) => {
    if (r.path === "/loan/user") return { body: { loans: [loan], totalCount: 1, ongoingCount: 1 } };
    if (r.path === "/prices")
      return { body: { prices: { [USDC_MINT]: { price: "1" }, [SOL_MINT]: { price: "150" } } } };
    if (r.path === "/dirty/chain-performance") return { body: performance };
    return undefined;
  });
  renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
  await screen.findByText("Ongoing (1)");
  // the page has asked for (and so rendered with) the chain's performance
  await vi.waitFor(() => expect(requests.some((r) => r.path === "/dirty/chain-performance")).toBe(true));
  await new Promise((r) => setTimeout(r, 50));
}

describe("the Loans page's outage warning (slot time by the protocol rule, not transactions a second)", () => {
  it("a healthy idle localnet (0 transactions a second, 400 ms slots): no warning", async () => {
    // the API's answer over an idle localnet at the 400 ms target (apps/api/test/chain/chain-performance.test.ts)
    await renderWithPerformance({ tps: 0, source: "rpc", slotMs: 400, slow: false, sampleSeconds: 10 });
    expect(screen.queryByTestId("outage-warning")).toBeNull();
    expect(document.body.textContent).not.toContain("running slow");
  });

  it("a fresh localnet with no sample yet (the spec's fallback): no warning", async () => {
    await renderWithPerformance({
      tps: 2000,
      source: "fallback",
      slotMs: null,
      slow: false,
      sampleSeconds: 0,
    });
    expect(screen.queryByTestId("outage-warning")).toBeNull();
  });

  it("a slowed localnet (1.6 s slots): the warning, with how slow", async () => {
    await renderWithPerformance({ tps: 0, source: "rpc", slotMs: 1667, slow: true, sampleSeconds: 10 });
    const warning = await screen.findByTestId("outage-warning");
    expect(warning.textContent).toBe(
      "Solana is running slow right now (blocks take 1.7 s instead of 0.4 s), so transactions may take longer to " +
        "land. Repay early: the on-chain due dates and grace period do not change during an outage.",
    );
  });

  it("a busy chain at the slot target is not slow, however many or few transactions", async () => {
    await renderWithPerformance({ tps: 350, source: "rpc", slotMs: 420, slow: false, sampleSeconds: 300 });
    expect(screen.queryByTestId("outage-warning")).toBeNull();
  });
});
