import { USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BuyPage } from "../../src/features/buy/buy-page.tsx";
import { checkRequestInput, RequestForm } from "../../src/features/requests/request-form.tsx";
import { OpenRequests } from "../../src/features/requests/request-list.tsx";
import { address } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const input = { currency: USDC_MINT, amountText: "40", daysText: "7", aprText: "30", collateralAmount: 1n };

describe("loan request form", () => {
  it("checks the terms with the rule-book and says what is wrong in one sentence", () => {
    expect(checkRequestInput(input)).toEqual({
      ok: true,
      amount: 40_000_000n,
      durationSeconds: 7 * 86_400,
      maxAprBps: 3000,
    });
    expect(checkRequestInput({ ...input, amountText: "" })).toEqual({
      ok: false,
      error: "Enter the amount you want to borrow.",
    });
    expect(checkRequestInput({ ...input, amountText: "0.0000001" })).toMatchObject({ ok: false });
    expect(checkRequestInput({ ...input, daysText: "0" })).toEqual({
      ok: false,
      error: "Choose a duration between 1 and 365 days.",
    });
    expect(checkRequestInput({ ...input, aprText: "0" })).toMatchObject({ ok: false });
    expect(checkRequestInput({ ...input, aprText: "1001" })).toMatchObject({ ok: false });
  });

  it("states the request in plain words before signing", async () => {
    installApi(() => undefined);
    const owner = Keypair.generate();
    renderPage(
      <RequestForm
        owner={owner.publicKey.toBase58()}
        collateral={{ mint: address(), amount: 1n, isDefi: false, label: "Mad Lad #1" }}
        open
      />,
      { wallet: makeWallet(owner) },
    );
    fireEvent.change(screen.getByRole("combobox", { name: "Currency" }), { target: { value: USDC_MINT } });
    fireEvent.change(screen.getByRole("textbox", { name: "Amount" }), { target: { value: "40" } });
    expect(screen.getByTestId("request-summary").textContent).toBe(
      "You ask for 40 USDC for 7 days at up to 30% APR: at most 0.2302 USDC interest, so at most 40.2302 USDC to repay by the due date. Mad Lad #1 is locked in the Cistern program until a lender fills the request or you cancel it; unpaid after the due date and its grace period, the lender may take it.",
    );
  });
});

describe("open loan requests (Lend page)", () => {
  const request = (borrower: string) => ({
    pubkey: address(),
    borrower,
    currency: USDC_MINT,
    collateralMint: address(),
    collection: address(),
    collectionName: "Mad Lads",
    isDefi: false,
    collateralAmount: "1",
    principal: "40000000",
    duration: 7 * 86_400,
    maxApr: 3000,
    interestAtMaxApr: "230137",
    collateralValue: "100000000",
    ltvBps: 4000,
    status: "Open",
    createdAt: 1_800_000_000,
    closedAt: 0,
    loan: null,
  });

  it("lists what each borrower pledges and asks for, with the LTV, and offers Fill to another wallet", async () => {
    const lender = Keypair.generate();
    const exchanges = installApi((r) =>
      r.path === "/loan-request/list"
        ? { body: { requests: [request(address())], totalCount: 1 } }
        : undefined,
    );
    renderPage(<OpenRequests currency={USDC_MINT} />, { wallet: makeWallet(lender) });
    const row = await screen.findByTestId("request-row");
    expect(row.textContent).toContain("An NFT of Mad Lads");
    expect(row.textContent).toContain("asks for 40 USDC for 7 days at up to 30% APR");
    expect(screen.getByTestId("request-ltv").textContent).toMatch(/^LTV 40% of a 100 USDC valuation/);
    expect(row.textContent).toContain("You earn 0.18 USDC after the protocol fee");
    expect(screen.getByTestId("fill-request").textContent).toBe("Fill for 40 USDC");
    const list = exchanges.find((e) => e.path === "/loan-request/list")!;
    expect([list.query.get("status"), list.query.get("currency")]).toEqual(["open", USDC_MINT]);
  });

  it("#36 names the pledged NFT by its own name with its image when the API knows it", async () => {
    const pledged = request(address());
    installApi((r) => {
      if (r.path === "/loan-request/list") return { body: { requests: [pledged], totalCount: 1 } };
      if (r.path === "/asset/asset")
        return {
          body:
            r.query.get("mint") === pledged.collateralMint
              ? { mint: pledged.collateralMint, name: "Mad Lad #42", image: "https://img.test/42.png" }
              : null,
        };
      return undefined;
    });
    renderPage(<OpenRequests currency={USDC_MINT} />, { wallet: makeWallet(Keypair.generate()) });
    const collateral = await screen.findByTestId("request-collateral");
    await waitFor(() => expect(collateral.textContent).toBe("Mad Lad #42 (Mad Lads)"));
    expect(collateral.querySelector("img")?.getAttribute("src")).toBe("https://img.test/42.png");
    expect(screen.getByTestId("request-row").textContent).not.toContain(pledged.collateralMint.slice(0, 6));
  });

  it("names the standard of a requested Core asset or compressed NFT (a classic NFT's goes unsaid)", async () => {
    const core = request(address());
    const classic = request(address());
    installApi((r) => {
      if (r.path === "/loan-request/list") return { body: { requests: [core, classic], totalCount: 2 } };
      if (r.path === "/asset/asset") {
        const mint = r.query.get("mint");
        return {
          body:
            mint === core.collateralMint
              ? { mint, name: "Koi #3", image: "", nftType: "CoreNft" }
              : { mint, name: "Mad Lad #7", image: "", nftType: "Nft" },
        };
      }
      return undefined;
    });
    renderPage(<OpenRequests currency={USDC_MINT} />, { wallet: makeWallet(Keypair.generate()) });
    await waitFor(() => expect(screen.getAllByTestId("request-standard")).toHaveLength(1));
    expect(screen.getByTestId("request-standard").textContent).toBe("Core asset");
    const rows = screen.getAllByTestId("request-row");
    expect(rows[0]!.textContent).toContain("Koi #3");
    expect(within(rows[1]!).queryByTestId("request-standard")).toBeNull();
  });

  it("does not offer a borrower their own request", async () => {
    const me = Keypair.generate();
    installApi((r) =>
      r.path === "/loan-request/list"
        ? { body: { requests: [request(me.publicKey.toBase58())], totalCount: 1 } }
        : undefined,
    );
    renderPage(<OpenRequests currency={USDC_MINT} />, { wallet: makeWallet(me) });
    await screen.findByTestId("request-row");
    expect(screen.queryByTestId("fill-request")).toBeNull();
  });
});

describe("#36 Buy NFTs cards", () => {
  it("show each NFT's name and image, the collection under it", async () => {
    const named = address();
    const unnamed = address();
    const collection = address();
    const listing = (mint: string) => ({
      listing: { mint, collection, seller: address(), currency: USDC_MINT, price: "198000000" },
      pools: [{ pool: address(), mortgageAprBps: 2000, ltvBps: 5000, maxDurationSeconds: 30 * 86_400 }],
    });
    installApi((r) => {
      if (r.path === "/nft/mortgage-listings") return { body: [listing(named), listing(unnamed)] };
      if (r.path === "/collection/collections")
        return { body: [{ collectionId: collection, metadata: { collectionName: "Drip Dragons" } }] };
      if (r.path === "/asset/asset")
        return {
          body:
            r.query.get("mint") === named
              ? { mint: named, name: "Drip Dragon #7", image: "https://img.test/7.png" }
              : null,
        };
      return undefined;
    });
    renderPage(<BuyPage />, { wallet: makeWallet(Keypair.generate()) });
    await waitFor(() =>
      expect(screen.getAllByTestId("listing-name").map((h) => h.textContent)).toContain("Drip Dragon #7"),
    );
    const cards = screen.getAllByTestId("mortgage-listing");
    const card = cards.find((c) => c.textContent?.includes("Drip Dragon #7"))!;
    expect(card.querySelector("img")?.getAttribute("src")).toBe("https://img.test/7.png");
    // an NFT the API cannot name: no image, no address
    const other = cards.find((c) => c !== card)!;
    expect(other.querySelector("img")).toBeNull();
    expect(other.textContent).not.toContain(unnamed.slice(0, 6));
    expect(card.textContent).not.toContain(named.slice(0, 6));
  });

  it("say a listed Core asset is one under its collection and offer it a loan (a classic NFT's card names the collection alone)", async () => {
    const koi = address();
    const frog = address();
    const collection = address();
    const listing = (mint: string) => ({
      listing: {
        mint,
        collection,
        seller: address(),
        currency: USDC_MINT,
        price: "198000000",
        standard: mint === koi ? "core" : "classic",
      },
      pools: [{ pool: address(), mortgageAprBps: 2000, ltvBps: 5000, maxDurationSeconds: 30 * 86_400 }],
    });
    installApi((r) => {
      if (r.path === "/nft/mortgage-listings") return { body: [listing(koi), listing(frog)] };
      if (r.path === "/collection/collections")
        return { body: [{ collectionId: collection, metadata: { collectionName: "Koi" } }] };
      if (r.path === "/asset/asset") {
        const mint = r.query.get("mint");
        return {
          body: {
            mint,
            name: mint === koi ? "Koi #1" : "Frog #2",
            image: "",
            nftType: mint === koi ? "CoreNft" : "Nft",
          },
        };
      }
      return undefined;
    });
    renderPage(<BuyPage />, { wallet: makeWallet(Keypair.generate()) });
    await waitFor(() => expect(screen.getAllByTestId("listing-collection")).toHaveLength(2));
    const under = (name: string) =>
      screen
        .getAllByTestId("mortgage-listing")
        .find((c) => c.textContent?.includes(name))!
        .querySelector('[data-testid="listing-collection"]')!.textContent;
    expect([under("Koi #1"), under("Frog #2")]).toEqual(["Koi · Core asset", "Koi"]);
    expect(screen.getAllByTestId("mortgage-choose")).toHaveLength(2);
  });
});
