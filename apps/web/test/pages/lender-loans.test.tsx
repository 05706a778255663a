import { parseLoan } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { canLiquidate, viewLoan } from "../../src/features/loans/loan-model.ts";
import { LoansPage } from "../../src/features/loans/loans-page.tsx";
import { apiLoan } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

const DAY = 86_400;
const HOUR = 3_600;
const NOW = 1_800_000_000;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("liquidation visibility rule", () => {
  it("allows liquidating only an ongoing loan strictly past expiry + grace", () => {
    const lender = Keypair.generate().publicKey.toBase58();
    // 2-day loan: 2 hours of grace.
    const loan = parseLoan(apiLoan({ createdAt: NOW, duration: 2 * DAY }));
    const at = (t: number) => canLiquidate(viewLoan(loan, lender, t));
    expect(at(NOW + DAY)).toBe(false);
    expect(at(NOW + 2 * DAY)).toBe(false);
    expect(at(NOW + 2 * DAY + 2 * HOUR)).toBe(false);
    expect(at(NOW + 2 * DAY + 2 * HOUR + 1)).toBe(true);
    const repaid = parseLoan(apiLoan({ createdAt: NOW, duration: 2 * DAY, status: "repaid" }));
    expect(canLiquidate(viewLoan(repaid, lender, NOW + 10 * DAY))).toBe(false);
    const liquidated = parseLoan(apiLoan({ createdAt: NOW, duration: 2 * DAY, status: "liquidated" }));
    expect(canLiquidate(viewLoan(liquidated, lender, NOW + 10 * DAY))).toBe(false);
  });
});

describe("loans on my pools", () => {
  it("shows Liquidate only on loans past grace and builds the liquidation with the lender as payer", async () => {
    const lender = Keypair.generate();
    const me = lender.publicKey.toBase58();
    const active = apiLoan({ lender: me, createdAt: NOW - DAY, duration: 7 * DAY });
    const inGrace = apiLoan({ lender: me, createdAt: NOW - 7 * DAY - HOUR, duration: 7 * DAY });
    const pastGrace = apiLoan({
      lender: me,
      createdAt: NOW - 7 * DAY - 8 * HOUR,
      duration: 7 * DAY,
      amount: "40000000",
    });
    const closed = apiLoan({ lender: me, status: "liquidated", liquidatedAt: NOW - 10 });
    const requests = installApi((r) => {
      if (r.path === "/dirty/activity-by-lender")
        return { body: { loans: [active, inGrace, pastGrace, closed], totalCount: 4, ongoingCount: 3 } };
      if (r.method === "POST") return { status: 400, body: { code: 1000, message: "refused" } };
      return undefined;
    });
    vi.spyOn(Date, "now").mockReturnValue(NOW * 1000);
    renderPage(<LoansPage />, { wallet: makeWallet(lender), nowSeconds: NOW });
    fireEvent.click(await screen.findByRole("tab", { name: "Loans on my pools" }));
    const table = await screen.findByTestId("lender-loans");
    const row = (pubkey: string) => table.querySelector(`[data-loan="${pubkey}"]`) as HTMLElement;
    expect(within(row(active.pubkey)).queryByRole("button", { name: /Liquidate/ })).toBeNull();
    expect(within(row(inGrace.pubkey)).queryByRole("button", { name: /Liquidate/ })).toBeNull();
    expect(row(inGrace.pubkey).textContent).toContain("In grace period");
    expect(row(pastGrace.pubkey).textContent).toContain("Past grace");
    expect(within(table).getAllByTestId("liquidate")).toHaveLength(1);
    expect(screen.getByTestId("liquidatable-note").textContent).toContain("1 loan is past expiry and grace");
    const history = screen.getByTestId("lender-loan-history");
    expect(history.querySelector(`[data-loan="${closed.pubkey}"]`)?.textContent).toContain("Liquidated");
    expect(history.querySelector('[data-testid="liquidate"]')).toBeNull();

    fireEvent.click(within(row(pastGrace.pubkey)).getByTestId("liquidate"));
    await waitFor(() => expect(requests.some((r) => r.path === "/nft/liquidate-loan")).toBe(true));
    expect(requests.find((r) => r.path === "/nft/liquidate-loan")!.body).toMatchObject({
      loan: pastGrace.pubkey,
      payer: me,
    });
    // The refused build leaves the loan where it was, and the button usable again.
    await waitFor(() =>
      expect((within(row(pastGrace.pubkey)).getByTestId("liquidate") as HTMLButtonElement).disabled).toBe(
        false,
      ),
    );
    expect(requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });
});
