import { SOL_MINT, USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InstantSellPanel } from "../../src/features/loans/instant-sell-panel.tsx";
import type { LoanRowView } from "../../src/features/loans/loan-model.ts";
import { navigate } from "../../src/lib/location.ts";
import { HomePage } from "../../src/shell/home-page.tsx";
import { PageNav } from "../../src/shell/nav.tsx";
import { address } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the home page's wallet card (#44)", () => {
  it("lists the wallet's NFTs of every standard, Core and compressed ones too", async () => {
    const classic = address();
    const pnft = address();
    const core = address();
    const compressed = address();
    const nft = (mint: string, name: string, nftType: string) => ({ mint, name, image: "", nftType });
    installApi((r) =>
      r.path === "/asset/assets"
        ? {
            body: {
              nfts: [
                nft(classic, "Tide #1", "Nft"),
                nft(pnft, "Reef #2", "ProgrammableNft"),
                nft(core, "Coral #3", "CoreNft"),
                nft(compressed, "Shell #4", "CompressedNft"),
              ],
            },
          }
        : undefined,
    );
    renderPage(<HomePage />, {
      wallet: makeWallet(Keypair.generate()),
      lamports: 5_000_000_000n,
      // classic and programmable NFTs are token accounts; Core and compressed ones are not
      tokens: [
        { mint: USDC_MINT, amount: 12_000_000n, decimals: 6 },
        { mint: classic, amount: 1n, decimals: 0 },
        { mint: pnft, amount: 1n, decimals: 0 },
      ],
    });
    const balances = await screen.findByTestId("balances");
    await within(balances).findByText("Shell #4");
    const rows = within(balances)
      .getAllByRole("row")
      .map((row) => row.textContent);
    expect(rows).toContain("Coral #3 · Core asset1");
    expect(rows).toContain("Shell #4 · Compressed NFT1");
    expect(rows).toContain("Tide #1 · NFT1");
    expect(rows).toContain("Reef #2 · Programmable NFT1");
    // each NFT once, never a row of its own and another from its token account
    expect(rows.filter((text) => text?.includes("Tide #1"))).toHaveLength(1);
  });

  it("asks nothing of the asset service without a connected wallet", () => {
    const exchanges = installApi(() => undefined);
    renderPage(<HomePage />);
    expect(screen.getByRole("button", { name: "Connect Wallet" })).toBeTruthy();
    expect(exchanges.filter((e) => e.path === "/asset/assets")).toHaveLength(0);
  });
});

describe("the phone menu (#44)", () => {
  it("closes when the entry tapped is the page already open, as when it is another page", () => {
    installApi(() => undefined);
    navigate("/loans");
    renderPage(<PageNav />);
    const toggle = screen.getByTestId("nav-menu");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const nav = screen.getByRole("navigation", { name: "Main" });
    const current = within(nav).getByRole("link", { current: "page" });
    fireEvent.click(current);
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(nav.className).not.toContain("is-open");
    // another page: closes too
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const other = within(nav)
      .getAllByRole("link")
      .find((link) => link.getAttribute("aria-current") === null)!;
    fireEvent.click(other);
    expect(screen.getByTestId("nav-menu").getAttribute("aria-expanded")).toBe("false");
  });
});

describe("what an instant sale leaves the borrower (#44)", () => {
  const row = { loan: { pubkey: address() } } as unknown as LoanRowView;
  const quote = (keeps: string, atLeast: string) => ({
    loan: row.loan.pubkey,
    venue: "local",
    currency: SOL_MINT,
    collection: address(),
    bidPrice: "5000000000",
    bid: address(),
    owedNow: "1500000000",
    borrowerKeeps: keeps,
    borrowerKeepsAtLeast: atLeast,
  });
  const show = async (keeps: string, atLeast: string) => {
    installApi((r) => (r.path === "/nft/instant-sell-quote" ? { body: quote(keeps, atLeast) } : undefined));
    renderPage(
      <InstantSellPanel row={row} owner={address()} busy={false} onConfirm={() => {}} onCancel={() => {}} />,
    );
    return (await screen.findByTestId("instant-sell-keep")).textContent;
  };

  it("shows one figure when the expected and the least read the same once rounded", async () => {
    // 3.4912 and 3.4901 SOL both read 3.49 SOL
    expect(await show("3491200000", "3490100000")).toBe("3.49 SOL");
  });

  it("shows both when they differ in what is shown", async () => {
    expect(await show("3500000000", "3490000000")).toBe("3.5 SOL at least 3.49 SOL");
  });
});

describe("what a transaction takes in SOL, shown where the terms are (#44)", () => {
  const row = { loan: { pubkey: address() } } as unknown as LoanRowView;
  it("the instant sell shows the fee, the bidder's account rent, the rent back and the SOL taken in all, to the lamport", async () => {
    const costs = {
      baseFeeLamports: "5000",
      priorityFeeLamports: "1130",
      tipLamports: "0",
      rent: [
        { account: address(), label: "the bidder's NFT account", bytes: 165, lamports: "2039280" },
        { account: address(), label: "a token record", bytes: 80, lamports: "1447680" },
      ],
      rentBack: [{ account: address(), label: "a token record", bytes: 0, lamports: "1447680" }],
      totalLamports: "2045410",
    };
    installApi((r) =>
      r.path === "/nft/instant-sell-quote"
        ? {
            body: {
              loan: row.loan.pubkey,
              venue: "local",
              currency: USDC_MINT,
              collection: address(),
              bidPrice: "400000000",
              bid: address(),
              owedNow: "100500000",
              borrowerKeeps: "299500000",
              borrowerKeepsAtLeast: "299400000",
              costs,
            },
          }
        : undefined,
    );
    renderPage(
      <InstantSellPanel row={row} owner={address()} busy={false} onConfirm={() => {}} onCancel={() => {}} />,
    );
    const shown = await screen.findByTestId("instant-sell-costs");
    expect(within(shown).getByTestId("instant-sell-network-fee").textContent).toBe(
      "Network fee0.00000613 SOL paid to Solana",
    );
    expect(within(shown).getByTestId("instant-sell-account-rent").textContent).toBe(
      "Account rent0.00348696 SOL opens the bidder's NFT account and a token record",
    );
    expect(within(shown).getByTestId("instant-sell-rent-back").textContent).toBe(
      "Rent back0.00144768 SOL a token record closes to your wallet",
    );
    // 0.00203928 SOL of the bidder's new account was the figure #44 found missing
    expect(within(shown).getByTestId("instant-sell-sol-taken-in-all").textContent).toContain(
      "0.00204541 SOL",
    );
  });

  it("a SOL borrow's quote shows the loan's rent and what arrives in all; classic escrow rent back on repay", async () => {
    const { QuotePanel } = await import("../../src/features/borrow/quote-panel.tsx");
    const { parseTransactionCosts } = await import("@cistern/protocol");
    installApi(() => undefined);
    const costs = parseTransactionCosts({
      baseFeeLamports: "10000",
      priorityFeeLamports: "165",
      tipLamports: "0",
      rent: [
        { account: address(), label: "the loan", bytes: 424, lamports: "3841920" },
        { account: address(), label: "the loan's NFT account", bytes: 165, lamports: "2039280" },
      ],
      rentBack: [],
      totalLamports: "0",
    })!;
    renderPage(
      <QuotePanel
        quote={
          {
            amount: 1_000_000_000n,
            netBorrowAmount: 1_000_000_000n,
            interest: 1_000_000n,
            cisternFees: 200_000n,
            apr: 2000,
            duration: 7 * 86_400,
            requiredRepayment: 1_001_000_000n,
          } as never
        }
        costs={{ data: costs, isPending: false, isError: false }}
        currency={SOL_MINT}
        nowSeconds={1_800_000_000}
        collateralLabel="NFT"
      />,
    );
    expect(screen.getByTestId("quote-account-rent").textContent).toBe(
      "Account rent0.0058812 SOL opens the loan and the loan's NFT account; the loan's NFT account's rent comes back when you repay",
    );
    // 1 SOL arrives, less the 0.000010165 SOL fee and the 0.0058812 SOL rent
    expect(screen.getByTestId("quote-sol-received-in-all").textContent).toContain("0.994108635 SOL");
  });
});
