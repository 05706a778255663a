import { parseLoan, USDC_MINT } from "@cistern/protocol";
import { encodeLoanAccount, type LoanAccount, address as toAddress } from "@cistern/sdk";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { canLiquidate, viewLoan } from "../../src/features/loans/loan-model.ts";
import { LoansPage } from "../../src/features/loans/loans-page.tsx";
import { toastStore } from "../../src/toasts/toast-store.ts";
import { apiLoan } from "./fixtures.ts";
import { createFakeChainAccounts, installApi, makeWallet, renderPage } from "./render-page.tsx";

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

/** The bytes of `loan`'s account once the chain ended it (`closedBy`), at `at`. */
function endedLoanBytes(
  loan: ReturnType<typeof apiLoan>,
  closedBy: "Liquidated" | "Repaid",
  at: number,
): Uint8Array {
  const key = () => toAddress(Keypair.generate().publicKey.toBase58());
  const account: LoanAccount = {
    bump: 255,
    escrowBump: 254,
    status: closedBy,
    kind: "ClassicLoan",
    isDefi: false,
    nftType: "Nft",
    borrower: toAddress(loan.borrower as string),
    pool: key(),
    bank: key(),
    currencyMint: toAddress(USDC_MINT),
    collateralMint: key(),
    collection: key(),
    escrow: key(),
    nonce: 1n,
    collateralAmount: 1n,
    principal: 40_000_000n,
    interest: 100_000n,
    aprBps: 3650,
    durationSeconds: BigInt(7 * DAY),
    createdAt: BigInt(loan.createdAt as number),
    expiredAt: BigInt((loan.createdAt as number) + 7 * DAY),
    repaidAt: closedBy === "Repaid" ? BigInt(at) : 0n,
    liquidatedAt: closedBy === "Liquidated" ? BigInt(at) : 0n,
    soldAt: 0n,
    repaidAmount: closedBy === "Repaid" ? 40_100_000n : 0n,
    protocolFeePaid: 0n,
    collateralValue: 100_000_000n,
    attestationSlot: 1n,
    extendedTo: null,
    closedBy,
    previousLoan: null,
  };
  return new Uint8Array(encodeLoanAccount(account));
}

describe("loans on my pools follow the chain", () => {
  function world() {
    const lender = Keypair.generate();
    const me = lender.publicKey.toBase58();
    const pastGrace = apiLoan({
      lender: me,
      createdAt: NOW - 7 * DAY - 8 * HOUR,
      duration: 7 * DAY,
      amount: "40000000",
    });
    const other = apiLoan({ lender: me, createdAt: NOW - DAY, duration: 7 * DAY });
    // the API's list has not seen the keeper's liquidation yet: it still says Ongoing
    const requests = installApi((r) => {
      if (r.path === "/dirty/activity-by-lender")
        return { body: { loans: [pastGrace, other], totalCount: 2, ongoingCount: 2 } };
      if (r.path === "/nft/liquidate-loan")
        return {
          status: 400,
          body: {
            code: 4400,
            name: "INVALID_INPUT",
            message: `loan ${pastGrace.pubkey} is Liquidated, not Ongoing`,
          },
        };
      return undefined;
    });
    vi.spyOn(Date, "now").mockReturnValue(NOW * 1000);
    const accounts = createFakeChainAccounts();
    renderPage(<LoansPage />, { wallet: makeWallet(lender), nowSeconds: NOW, accounts });
    return { pastGrace, other, requests, accounts };
  }

  it("a loan the keeper liquidates leaves Ongoing for History at once, without a reload", async () => {
    const { pastGrace, other, requests, accounts } = world();
    fireEvent.click(await screen.findByRole("tab", { name: "Loans on my pools" }));
    const table = await screen.findByTestId("lender-loans");
    expect(within(table).getAllByTestId("liquidate")).toHaveLength(1);
    // every ongoing loan listed is followed on chain
    await waitFor(() =>
      expect(accounts.subscribed().sort()).toEqual([pastGrace.pubkey, other.pubkey].sort()),
    );
    const listed = requests.filter((r) => r.path === "/dirty/activity-by-lender").length;

    accounts.set(pastGrace.pubkey, endedLoanBytes(pastGrace, "Liquidated", NOW - 5));
    await waitFor(() => expect(table.querySelector(`[data-loan="${pastGrace.pubkey}"]`)).toBeNull());
    expect(within(table).queryAllByTestId("liquidate")).toHaveLength(0);
    expect(screen.queryByTestId("liquidatable-note")).toBeNull();
    const history = screen.getByTestId("lender-loan-history");
    expect(history.querySelector(`[data-loan="${pastGrace.pubkey}"]`)?.textContent).toContain("Liquidated");
    // and the lists are asked again (the indexer's view catches up)
    await waitFor(() =>
      expect(requests.filter((r) => r.path === "/dirty/activity-by-lender").length).toBeGreaterThan(listed),
    );
    // the loan that ended is no longer followed; the other still is
    await waitFor(() => expect(accounts.subscribed()).toEqual([other.pubkey]));
  });

  it("a Liquidate the chain already made reads one plain sentence from the code, never an address", async () => {
    const { pastGrace, accounts } = world();
    fireEvent.click(await screen.findByRole("tab", { name: "Loans on my pools" }));
    const table = await screen.findByTestId("lender-loans");
    await waitFor(() => expect(accounts.subscribed()).toContain(pastGrace.pubkey));
    // the keeper's liquidation lands, and the socket's notification is lost
    accounts.setSilently(pastGrace.pubkey, endedLoanBytes(pastGrace, "Liquidated", NOW - 5));
    fireEvent.click(within(table).getByTestId("liquidate"));
    await waitFor(() =>
      expect(toastStore.get().map((t) => t.title)).toContain(
        "Error in Liquidate Loan: This loan was already liquidated: the NFT is in your wallet.",
      ),
    );
    expect(JSON.stringify(toastStore.get().map((t) => [t.title, t.help]))).not.toContain(pastGrace.pubkey);
    // and the list shows how it ended
    await waitFor(() => expect(table.querySelector(`[data-loan="${pastGrace.pubkey}"]`)).toBeNull());
  });
});
