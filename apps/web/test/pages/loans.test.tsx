import { parseLoan, USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { viewLoan } from "../../src/features/loans/loan-model.ts";
import { LoansPage } from "../../src/features/loans/loans-page.tsx";
import { navigate } from "../../src/lib/location.ts";
import { address, apiLoan, apiPool, SOL_MINT } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

const DAY = 86_400;
const NOW = 1_800_000_000;

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("loan phases", () => {
  it("follows expiry, the near-expiry window, grace and liquidation", () => {
    const borrower = Keypair.generate().publicKey.toBase58();
    const loan = parseLoan(apiLoan({ borrower, createdAt: NOW, duration: 7 * DAY }));
    const at = (t: number) => viewLoan(loan, borrower, t);
    expect(at(NOW + DAY).phase).toBe("active");
    // 30% minimum interest: 0.7 x 0.3 = 0.21 USDC
    expect(at(NOW + DAY).owedNow).toBe(100_210_000n);
    expect(at(NOW + 6 * DAY).phase).toBe("near-expiry");
    expect(at(NOW + 7 * DAY).phase).toBe("near-expiry");
    expect(at(NOW + 7 * DAY + 1).phase).toBe("grace");
    // one overdue hour at twice the rate: ceil(2 x 3650 x 100e6 x 1 / 87.6e6) = 8334
    expect(at(NOW + 7 * DAY + 1).owedNow).toBe(100_708_334n);
    expect(at(NOW + 7 * DAY + 7 * 3600).phase).toBe("grace");
    expect(at(NOW + 7 * DAY + 7 * 3600 + 1).phase).toBe("liquidatable");
    // someone else's loan is never "near expiry" for this wallet
    expect(viewLoan(loan, "other", NOW + 6 * DAY).phase).toBe("active");
    expect(viewLoan(parseLoan(apiLoan({ status: "repaid" })), borrower, NOW).phase).toBe("repaid");
  });
});

describe("loans page", () => {
  it("shows loading, then the error state with a retry", async () => {
    let fail = true;
    installApi((r) =>
      r.path === "/loan/user"
        ? fail
          ? { status: 500, body: { code: 11000, message: "boom" } }
          : { body: { loans: [], totalCount: 0, ongoingCount: 0 } }
        : undefined,
    );
    renderPage(<LoansPage />, { wallet: makeWallet(Keypair.generate()), nowSeconds: NOW });
    expect(screen.getByTestId("state-loading").textContent).toContain("Loading your loans");
    const error = await screen.findByTestId("state-error");
    expect(error.textContent).toContain("Could not load your loans");
    fail = false;
    fireEvent.click(within(error).getByRole("button", { name: "Try again" }));
    expect((await screen.findByTestId("state-empty")).textContent).toContain("You have no loans yet");
  });

  it("says when a cheaper pool would take a loan, shows its terms before signing, and moves it to that pool", async () => {
    const borrower = Keypair.generate();
    const me = borrower.publicKey.toBase58();
    const loan = apiLoan({ borrower: me, createdAt: NOW - DAY, duration: 14 * DAY });
    const cheaper = address();
    const requests = installApi((r) => {
      if (r.path === "/loan/user") return { body: { loans: [loan], totalCount: 1, ongoingCount: 1 } };
      if (r.path === "/prices")
        return { body: { prices: { [USDC_MINT]: { price: "1" }, [SOL_MINT]: { price: "150" } } } };
      if (r.path === "/loan/refinance-offer")
        return {
          body: {
            loan: loan.pubkey,
            pool: cheaper,
            apr: 800,
            duration: 13 * DAY,
            owedNow: "400000",
            newInterest: "700000",
            saving: "2500000",
          },
        };
      if (r.method === "POST") return { status: 422, body: { code: 1, message: "refused" } };
      return undefined;
    });
    renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    const hint = await screen.findByTestId("refinance-hint");
    expect(hint.textContent).toMatch(/^A cheaper offer exists: 8% APR saves 2\.5 USDC/);
    fireEvent.click(within(hint).getByTestId("refinance"));
    // nothing is signed before the new terms show
    const terms = await screen.findByTestId("refinance-terms");
    expect(requests.some((r) => r.method === "POST")).toBe(false);
    expect(within(terms).getByTestId("refinance-new-apr").textContent).toContain("8%");
    expect(within(terms).getByTestId("refinance-pay-now").textContent).toContain("0.4 USDC");
    expect(within(terms).getByTestId("refinance-new-due-date").textContent).toMatch(/UTC/);
    expect(within(terms).getByTestId("refinance-repay-by-the-new-due-date").textContent).toContain(
      "100.7 USDC",
    );
    fireEvent.click(screen.getByTestId("refinance-submit"));
    await waitFor(() => expect(requests.some((r) => r.method === "POST")).toBe(true));
    const post = requests.find((r) => r.method === "POST")!;
    expect(post.path).toBe("/nft/refinance-loan");
    expect(post.body).toMatchObject({ borrower: me, loan: loan.pubkey, pool: cheaper });
  });

  it("offers no move whose saving is not worth the transaction", async () => {
    const borrower = Keypair.generate();
    const me = borrower.publicKey.toBase58();
    const loan = apiLoan({ borrower: me, createdAt: NOW - DAY, duration: 14 * DAY });
    const requests = installApi((r) => {
      if (r.path === "/loan/user") return { body: { loans: [loan], totalCount: 1, ongoingCount: 1 } };
      if (r.path === "/prices")
        return { body: { prices: { [USDC_MINT]: { price: "1" }, [SOL_MINT]: { price: "150" } } } };
      if (r.path === "/loan/refinance-offer")
        return {
          body: { loan: loan.pubkey, pool: address(), apr: 800, duration: 13 * DAY, saving: "10000" },
        };
      return undefined;
    });
    renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    await screen.findByTestId("ongoing-loans");
    await waitFor(() => expect(requests.some((r) => r.path === "/loan/refinance-offer")).toBe(true));
    await waitFor(() => expect(requests.some((r) => r.path === "/prices")).toBe(true));
    expect(screen.queryByTestId("refinance-hint")).toBeNull();
  });

  it("says a loan's collateral is a programmable NFT, a Core asset or a compressed NFT; each of their loans is sold instantly", async () => {
    const borrower = Keypair.generate();
    const me = borrower.publicKey.toBase58();
    const classic = apiLoan({ borrower: me, createdAt: NOW - DAY, duration: 7 * DAY });
    const pnft = apiLoan({
      borrower: me,
      createdAt: NOW - DAY,
      duration: 7 * DAY,
      loanType: "ProgrammableNft",
    });
    const core = apiLoan({ borrower: me, createdAt: NOW - DAY, duration: 7 * DAY, loanType: "CoreNft" });
    const leaf = apiLoan({
      borrower: me,
      createdAt: NOW - DAY,
      duration: 7 * DAY,
      loanType: "CompressedNft",
    });
    installApi((r) => {
      if (r.path === "/loan/user")
        return { body: { loans: [classic, pnft, core, leaf], totalCount: 4, ongoingCount: 4 } };
      return undefined;
    });
    renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    const table = await screen.findByTestId("ongoing-loans");
    const standard = (loan: { pubkey: string }) =>
      table.querySelector(`[data-loan="${loan.pubkey}"] [data-testid="loan-standard"]`)?.textContent?.trim();
    expect([standard(classic), standard(pnft), standard(core), standard(leaf)]).toEqual([
      undefined,
      "· Programmable NFT",
      "· Core asset",
      "· Compressed NFT",
    ]);
    // every row offers Repay, Extend and an instant sell (the program sells each of these standards)
    const row = (loan: { pubkey: string }) =>
      table.querySelector(`[data-loan="${loan.pubkey}"]`)! as HTMLElement;
    for (const loan of [classic, pnft, core, leaf]) {
      expect(within(row(loan)).getByTestId("instant-sell").textContent).toBe("Instant sell");
      expect(within(row(loan)).queryByTestId("no-sale-why")).toBeNull();
    }
    for (const loan of [pnft, core, leaf]) {
      expect(within(row(loan)).getByRole("button", { name: "Extend" })).toBeDefined();
      expect(within(row(loan)).getByRole("button", { name: "Repay" })).toBeDefined();
    }
  });

  it("lists ongoing loans with countdowns, warns near expiry and repays two together", async () => {
    const borrower = Keypair.generate();
    const me = borrower.publicKey.toBase58();
    const soon = apiLoan({ borrower: me, createdAt: NOW - 6.5 * DAY, duration: 7 * DAY });
    const later = apiLoan({ borrower: me, createdAt: NOW - DAY, duration: 7 * DAY, amount: "50000000" });
    const repaid = apiLoan({ borrower: me, status: "repaid", repaidAt: NOW - 10 });
    const requests = installApi((r) => {
      if (r.path === "/loan/user")
        return { body: { loans: [soon, later, repaid], totalCount: 3, ongoingCount: 2 } };
      if (r.method === "POST") return { status: 422, body: { code: 1, message: "refused" } };
      return undefined;
    });
    vi.spyOn(Date, "now").mockReturnValue(NOW * 1000);
    renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    const table = await screen.findByTestId("ongoing-loans");
    expect(screen.getByTestId("near-expiry").textContent).toContain("A loan is due within a day");
    const soonRow = table.querySelector(`[data-loan="${soon.pubkey}"]`)!;
    expect(soonRow.textContent).toContain("Expires soon");
    expect(soonRow.textContent).toContain("expires in 12h 0m");
    expect(screen.getByTestId("loan-history").textContent).toContain("Repaid");

    const repayAll = screen.getByTestId("repay-selected");
    expect((repayAll as HTMLButtonElement).disabled).toBe(true);
    for (const box of within(table).getAllByRole("checkbox")) fireEvent.click(box);
    // owed now: 157 h accrued on the first (0.654167), the 30% minimum on the second (0.105)
    expect(repayAll.textContent).toBe("Repay selected (2) · 150.7592 USDC");
    fireEvent.click(repayAll);
    await waitFor(() => expect(requests.some((r) => r.method === "POST")).toBe(true));
    const post = requests.find((r) => r.method === "POST")!;
    expect(post.body).toMatchObject({ borrower: me, loans: [soon.pubkey, later.pubkey] });
  });

  it("puts past-due loans in the page's loudest warning with their Repay, and says why a past-grace loan cannot be extended", async () => {
    const borrower = Keypair.generate();
    const me = borrower.publicKey.toBase58();
    // 7-day loans: grace is 7 h; one ended 2 h ago (in grace), one 8 h ago (past grace)
    const inGrace = apiLoan({ borrower: me, createdAt: NOW - 7 * DAY - 2 * 3600, duration: 7 * DAY });
    const pastGrace = apiLoan({ borrower: me, createdAt: NOW - 7 * DAY - 8 * 3600, duration: 7 * DAY });
    const requests = installApi((r) => {
      if (r.path === "/loan/user")
        return { body: { loans: [inGrace, pastGrace], totalCount: 2, ongoingCount: 2 } };
      if (r.method === "POST") return { status: 422, body: { code: 1, message: "refused" } };
      return undefined;
    });
    vi.spyOn(Date, "now").mockReturnValue(NOW * 1000);
    renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    const alert = await screen.findByTestId("past-due");
    expect(alert.getAttribute("role")).toBe("alert");
    expect(within(alert).getByRole("heading").textContent).toBe(
      "2 loans are past due: repay to keep your collateral",
    );
    const items = alert.querySelectorAll("li");
    // most urgent first: the one the lender can claim now
    expect(items[0]!.getAttribute("data-loan")).toBe(pastGrace.pubkey);
    expect(items[0]!.textContent).toContain("The lender can claim your collateral at any moment.");
    expect(items[1]!.textContent).toContain("The lender can claim your collateral in 5h 0m.");
    expect(screen.queryByTestId("near-expiry")).toBeNull();
    const table = screen.getByTestId("ongoing-loans");
    const pastRow = table.querySelector(`[data-loan="${pastGrace.pubkey}"]`)!;
    expect(
      (within(pastRow as HTMLElement).getByRole("button", { name: "Extend" }) as HTMLButtonElement).disabled,
    ).toBe(true);
    expect(within(pastRow as HTMLElement).getByTestId("extend-why").textContent).toBe(
      "Past grace: a loan can no longer be extended, only repaid.",
    );
    const graceRow = table.querySelector(`[data-loan="${inGrace.pubkey}"]`)!;
    expect(
      (within(graceRow as HTMLElement).getByRole("button", { name: "Extend" }) as HTMLButtonElement).disabled,
    ).toBe(false);
    fireEvent.click(within(items[0] as HTMLElement).getByRole("button", { name: /^Repay / }));
    await waitFor(() => expect(requests.some((r) => r.method === "POST")).toBe(true));
    expect(requests.find((r) => r.method === "POST")!.body).toMatchObject({
      borrower: me,
      loans: [pastGrace.pubkey],
    });
  });

  it("orders loans by due date, shows the tokens a loan locks, and what each closed loan paid and earned", async () => {
    const borrower = Keypair.generate();
    const me = borrower.publicKey.toBase58();
    const later = apiLoan({ borrower: me, createdAt: NOW - DAY, duration: 7 * DAY });
    const sooner = apiLoan({ borrower: me, createdAt: NOW - DAY, duration: 3 * DAY });
    const token = apiLoan({
      borrower: me,
      createdAt: NOW - DAY,
      duration: 14 * DAY,
      collateral: SOL_MINT,
      collection: SOL_MINT,
      collateralAmount: "2500000000",
      loanType: "Token",
    });
    const repaid = apiLoan({
      borrower: me,
      status: "repaid",
      createdAt: NOW - 5 * DAY,
      repaidAt: NOW - 2 * DAY,
      repaidAmount: "100300000",
    });
    const liquidated = apiLoan({
      borrower: me,
      status: "liquidated",
      createdAt: NOW - 20 * DAY,
      liquidatedAt: NOW - 9 * DAY,
    });
    installApi((r) => {
      if (r.path === "/loan/user")
        return {
          body: { loans: [later, token, repaid, sooner, liquidated], totalCount: 5, ongoingCount: 3 },
        };
      if (r.path === "/currency/currencies")
        return { body: { [SOL_MINT]: { metadata: { symbol: "SOL", name: "Solana", decimals: 9 } } } };
      return undefined;
    });
    renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    const table = await screen.findByTestId("ongoing-loans");
    const order = [...table.querySelectorAll("tbody tr")].map((r) => r.getAttribute("data-loan"));
    expect(order).toEqual([sooner.pubkey, later.pubkey, token.pubkey]);
    await waitFor(() =>
      expect(table.querySelector(`[data-loan="${token.pubkey}"]`)!.textContent).toContain("2.5 SOL locked"),
    );
    const history = screen.getByTestId("loan-history");
    const rows = [...history.querySelectorAll("tbody tr")];
    expect(rows.map((r) => r.getAttribute("data-loan"))).toEqual([repaid.pubkey, liquidated.pubkey]);
    expect(rows[0]!.querySelector('[data-testid="paid"]')!.textContent).toBe("100.3 USDC");
    expect(rows[0]!.querySelector('[data-testid="interest-earned"]')!.textContent).toBe("0.3 USDC");
    expect(rows[1]!.querySelector('[data-testid="paid"]')!.textContent).toBe("collateral to the lender");
    expect(history.querySelector('[data-testid="owed-now"]')).toBeNull();
  });

  it("extends with a fresh quote and refuses a duration beyond the pool's maximum", async () => {
    const borrower = Keypair.generate();
    const me = borrower.publicKey.toBase58();
    const pool = apiPool({ currency: USDC_MINT });
    const loan = apiLoan({ borrower: me, pool: pool.pubkey, createdAt: NOW - DAY, duration: 7 * DAY });
    const requests = installApi((r) => {
      if (r.path === "/loan/user") return { body: { loans: [loan], totalCount: 1, ongoingCount: 1 } };
      if (r.path === "/pool/pool") return { body: pool };
      if (r.method === "POST") return { status: 422, body: { code: 1, message: "refused" } };
      return undefined;
    });
    renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    fireEvent.click(await screen.findByRole("button", { name: "Extend" }));
    const panel = await screen.findByTestId("extend-panel");
    const days = await within(panel).findByLabelText(/New duration/);
    expect(within(panel).getByTestId("extend-pay-now").textContent).toContain("0.21 USDC");
    expect(within(panel).queryByText(/You receive/)).toBeNull();
    fireEvent.change(days, { target: { value: "15" } });
    expect(within(panel).getByTestId("extend-error").textContent).toBe("Choose between 1 and 14 days.");
    fireEvent.click(within(panel).getByTestId("extend-submit"));
    expect(requests.filter((r) => r.method === "POST")).toEqual([]);
    fireEvent.change(days, { target: { value: "7" } });
    expect(within(panel).getByTestId("extend-repay-by-the-new-due-date").textContent).toContain("100.7 USDC");
    fireEvent.click(within(panel).getByTestId("extend-submit"));
    await waitFor(() => expect(requests.some((r) => r.path === "/nft/extend-loan")).toBe(true));
    expect(requests.find((r) => r.path === "/nft/extend-loan")!.body).toMatchObject({
      borrower: me,
      loan: loan.pubkey,
      duration: 7 * DAY,
    });
  });
});

describe("#36 the loan rows name their NFT and a notification opens its loan", () => {
  it("shows a mortgage's NFT by name and image (never its mint) and marks the loan a notification opened", async () => {
    const borrower = Keypair.generate();
    const me = borrower.publicKey.toBase58();
    const mortgage = apiLoan({ borrower: me, createdAt: NOW - DAY, kind: { mortgage: {} } });
    const other = apiLoan({ borrower: me, createdAt: NOW - DAY, duration: 3 * DAY });
    installApi((r) => {
      if (r.path === "/loan/user")
        return { body: { loans: [mortgage, other], totalCount: 2, ongoingCount: 2 } };
      if (r.path === "/asset/asset" && r.query.get("mint") === mortgage.collateral)
        return {
          body: { mint: mortgage.collateral, name: "Drip Dragon #7", image: "https://img.test/dragon.png" },
        };
      if (r.path === "/asset/asset") return { body: null };
      return undefined;
    });
    navigate(`/loans?loan=${mortgage.pubkey}`);
    renderPage(<LoansPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    const table = await screen.findByTestId("ongoing-loans");
    const row = table.querySelector(`tr[data-loan="${mortgage.pubkey}"]`) as HTMLElement;
    await waitFor(() =>
      expect(within(row).getByTestId("loan-collateral").textContent).toBe(" mortgage, Drip Dragon #7"),
    );
    expect(row.querySelector("img")?.getAttribute("src")).toBe("https://img.test/dragon.png");
    // an NFT the API cannot name shows its collection only, not a shortened mint
    const plain = table.querySelector(`tr[data-loan="${other.pubkey}"]`) as HTMLElement;
    expect(within(plain).getByTestId("loan-collateral").textContent).toBe(" ");
    expect(table.textContent).not.toContain(mortgage.collateral.slice(0, 4));
    expect(table.textContent).not.toContain(other.collateral.slice(0, 4));
    // the row the notification opened is marked, and only it
    expect(screen.getByTestId("opened-loan").getAttribute("data-loan")).toBe(mortgage.pubkey);
    expect(row.getAttribute("aria-current")).toBe("true");
    navigate("/loans");
  });
});
