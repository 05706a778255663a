import { computeLoanQuote, parsePool, SOL_MINT, USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { convertValue, findOffers } from "../../src/features/borrow/borrow-model.ts";
import { BorrowPage } from "../../src/features/borrow/borrow-page.tsx";
import { QuotePanel } from "../../src/features/borrow/quote-panel.tsx";
import { formatDateTime } from "../../src/kit/format.ts";
import { address, apiPool } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

const NOW = 1_800_000_000;
const collection = address();
const nftMint = address();
const prices = { [SOL_MINT]: "150", [USDC_MINT]: "1" };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("quote display", () => {
  it("shows every term before signing: receive, interest, fee, APR, repayment, expiry, grace", () => {
    // 100 USDC for 7 days at 36.5%: 3650 x 100e6 x 168 h / 87.6e6 = 700000 = 0.7 USDC; fee 20% = 0.14.
    const quote = computeLoanQuote({
      amount: 100_000_000n,
      durationSeconds: 7 * 86400,
      aprBps: 3650,
      decimals: 6,
      priceUsd: "1",
    });
    renderPage(<QuotePanel quote={quote} currency={USDC_MINT} nowSeconds={NOW} collateralLabel="NFT" />);
    const text = (id: string) => screen.getByTestId(id).querySelector("dd")!.textContent;
    expect(text("quote-you-receive")).toBe("100 USDC ≈ $100.00");
    expect(text("quote-interest")).toBe("0.7 USDC ≈ $0.70");
    expect(text("quote-of-which-cistern-fee")).toBe("0.14 USDC 20% of the interest");
    expect(text("quote-apr")).toBe("36.5%");
    expect(text("quote-repay-by-expiry")).toBe("100.7 USDC");
    expect(text("quote-expires")).toBe(formatDateTime(NOW + 7 * 86400));
    expect(text("quote-grace-period")).toBe("7h 0m");
    expect(screen.getByTestId("quote").textContent).toContain(
      `after ${formatDateTime(NOW + 7 * 86400 + 7 * 3600)} the lender may claim your NFT`,
    );
  });
});

describe("borrow model", () => {
  it("values collateral across currencies, rounding down, and ranks offers", () => {
    expect(convertValue(5_000_000_000n, SOL_MINT, 9, USDC_MINT, prices)).toBe(750_000_000n);
    expect(convertValue(1n, USDC_MINT, 6, SOL_MINT, prices)).toBe(6n); // 1e-6 USD / 150 = 6.67 lamports -> 6
    expect(convertValue(1n, address(), 6, USDC_MINT, prices)).toBeNull();
    const cheap = parsePool(
      apiPool({ collections: [{ collection, collectionLtv: 5000, exposure: 10000, borrowedAmount: "0" }] }),
    );
    const small = parsePool(
      apiPool({
        availableLiquidity: "100000000",
        collections: [{ collection, collectionLtv: 9000, exposure: 10000, borrowedAmount: "0" }],
      }),
    );
    const offers = findOffers({
      pools: [small, cheap],
      collateralId: collection,
      valueMint: SOL_MINT,
      valueDecimals: 9,
      value: 5_000_000_000n,
      prices,
    });
    expect(offers.map((o) => [o.pool.pubkey, o.maxBorrow])).toEqual([
      [cheap.pubkey, 375_000_000n],
      [small.pubkey, 100_000_000n],
    ]);
  });
});

describe("borrow model decides offers with the rule-book", () => {
  it("ranks SOL and USDC offers by USD, not by base units, and never offers a pool that cannot lend its minimum", () => {
    const entry = [{ collection, collectionLtv: 5000, exposure: 10000, borrowedAmount: "0" }];
    // 2 SOL (300 USD) against 375 USDC: by base units the SOL pool "lends more"; in USD it lends less
    const solPool = parsePool(
      apiPool({
        currency: SOL_MINT,
        availableLiquidity: "2000000000",
        totalLiquidity: "9000000000",
        collections: entry,
      }),
    );
    const usdcPool = parsePool(apiPool({ collections: entry }));
    // a pool whose minimum (1000 USD) is above what it lends against this NFT (375 USD)
    const highMinimum = parsePool(
      apiPool({
        limits: { minDuration: 86400, maxDuration: 14 * 86400, minAmountUsd: 1000, maxAmountUsd: 5000 },
        collections: entry,
      }),
    );
    const offers = findOffers({
      pools: [solPool, highMinimum, usdcPool],
      collateralId: collection,
      valueMint: SOL_MINT,
      valueDecimals: 9,
      value: 5_000_000_000n,
      prices,
    });
    expect(offers.map((o) => o.pool.pubkey)).toEqual([usdcPool.pubkey, solPool.pubkey]);
    expect(offers.map((o) => [o.minBorrow, o.maxBorrow])).toEqual([
      [10_000_000n, 375_000_000n],
      [66_666_667n, 2_000_000_000n],
    ]);
  });
});

describe("borrow page", () => {
  function api() {
    const pool = apiPool({
      metadata: { name: "Cats desk", thumbnail: "", banks: [] },
      collections: [{ collection, collectionLtv: 5000, exposure: 10000, borrowedAmount: "0" }],
    });
    const requests = installApi((r) => {
      if (r.path === "/asset/assets") {
        return {
          body: {
            nfts: [
              {
                mint: nftMint,
                name: "Cat #1",
                symbol: "CAT",
                image: "",
                collection,
                collectionName: "Cistern Cats",
                nftType: "Nft",
                floorPrice: 5,
                floorPriceLamports: "5000000000",
                floorPriceUsd: 750,
              },
            ],
          },
        };
      }
      if (r.path === "/dirty/pools") return { body: { pools: [pool], banks: [], totalCount: 1 } };
      if (r.path === "/prices")
        return { body: { prices: { [SOL_MINT]: { price: 150 }, [USDC_MINT]: { price: 1 } } } };
      if (r.path === "/nft/take-loan") return { status: 422, body: { code: 1, message: "Pool paused" } };
      return undefined;
    });
    return { requests, pool };
  }

  it("names each NFT's standard in the list and says how a programmable NFT or a Core asset is held", async () => {
    const pnft = address();
    const core = address();
    installApi((r) => {
      if (r.path === "/asset/assets") {
        const nft = (mint: string, name: string, nftType: string) => ({
          mint,
          name,
          image: "",
          collection,
          collectionName: "Cistern Cats",
          nftType,
          floorPriceLamports: "5000000000",
          floorPriceUsd: 750,
        });
        return {
          body: {
            nfts: [
              nft(nftMint, "Cat #1", "Nft"),
              nft(pnft, "Petrel #5", "ProgrammableNft"),
              nft(core, "Koi #5", "CoreNft"),
            ],
          },
        };
      }
      if (r.path === "/dirty/pools") return { body: { pools: [], banks: [], totalCount: 0 } };
      if (r.path === "/prices") return { body: { prices: { [SOL_MINT]: { price: 150 } } } };
      return undefined;
    });
    renderPage(<BorrowPage />, { wallet: makeWallet(Keypair.generate()), nowSeconds: NOW });
    const list = await screen.findByTestId("nft-list");
    expect(
      within(list)
        .getAllByTestId("nft-standard")
        .map((e) => e.textContent?.trim()),
    ).toEqual(["· NFT", "· Programmable NFT", "· Core asset"]);
    fireEvent.click(within(list).getByText("Petrel #5"));
    expect((await screen.findByTestId("custody-note")).textContent).toBe(
      "Programmable NFT. It stays in your wallet, locked to the loan until you repay; if the loan defaults it goes to the lender.",
    );
    // no pool lends against them here: a loan request is offered for each, a programmable NFT's with where it goes
    await screen.findByTestId("request-form");
    expect(screen.getByTestId("request-custody-note").textContent).toBe(
      "A loan request holds it outside your wallet: the request, then the loan, owns it until you cancel or repay.",
    );
    fireEvent.click(within(list).getByText("Koi #5"));
    expect((await screen.findByTestId("custody-note")).textContent).toBe(
      "Core asset. The loan holds it until you repay; if the loan defaults it goes to the lender.",
    );
    await screen.findByTestId("request-form");
    expect(screen.queryByTestId("request-custody-note")).toBeNull();
    fireEvent.click(within(list).getByText("Cat #1"));
    await screen.findByTestId("request-form");
  });

  it("asks for a wallet first", () => {
    installApi(() => undefined);
    renderPage(<BorrowPage />);
    expect(screen.getByTestId("connect-required").textContent).toContain("Connect a wallet");
  });

  it("shows the best offer, refuses bad amounts without sending, and sends a valid loan", async () => {
    const borrower = Keypair.generate();
    const { requests, pool } = api();
    renderPage(<BorrowPage />, { wallet: makeWallet(borrower), nowSeconds: NOW });
    const list = await screen.findByTestId("nft-list");
    await waitFor(() =>
      expect(within(list).getByTestId("best-offer").textContent).toBe("Best offer 375 USDC at 36.5%"),
    );
    fireEvent.click(within(list).getByRole("button", { pressed: false }));
    const amount = await screen.findByLabelText(/Amount \(USDC\)/);
    const submit = screen.getByTestId("borrow-submit");

    fireEvent.change(amount, { target: { value: "400" } });
    expect(screen.getByTestId("borrow-error").textContent).toBe(
      "This pool lends at most 375 USDC against this collateral.",
    );
    fireEvent.click(submit);
    // the pool's own minimum (10 USD at 1 USD per USDC), as the program enforces it
    fireEvent.change(amount, { target: { value: "9.99" } });
    expect(screen.getByTestId("borrow-error").textContent).toBe("This pool's loans start at 10 USDC.");
    fireEvent.change(amount, { target: { value: "-5" } });
    expect(screen.getByTestId("borrow-error").textContent).toBe("The amount must be positive.");
    fireEvent.change(amount, { target: { value: "1.0000001" } });
    expect(screen.getByTestId("borrow-error").textContent).toBe("Enter a number with at most 6 decimals.");
    fireEvent.click(submit);
    fireEvent.change(amount, { target: { value: "100" } });
    fireEvent.change(screen.getByLabelText(/Duration/), { target: { value: "30" } });
    expect(screen.getByTestId("borrow-error").textContent).toBe("Choose a duration between 1 and 14 days.");
    expect(screen.queryByTestId("quote")).toBeNull();
    fireEvent.click(submit);
    // nothing built: the only POST is the quote measuring a valid draft's costs (#44)
    expect(requests.filter((r) => r.method === "POST" && r.path !== "/nft/quote")).toEqual([]);

    fireEvent.change(screen.getByLabelText(/Duration/), { target: { value: "7" } });
    expect(screen.getByTestId("borrow-error").textContent).toBe("");
    expect(screen.getByTestId("quote-repay-by-expiry").textContent).toContain("100.7 USDC");
    fireEvent.click(screen.getByTestId("borrow-submit"));
    await waitFor(() => expect(requests.some((r) => r.path === "/nft/take-loan")).toBe(true));
    expect(requests.find((r) => r.path === "/nft/take-loan")!.body).toMatchObject({
      borrower: borrower.publicKey.toBase58(),
      pool: pool.pubkey,
      nftMint,
      amount: "100000000",
      duration: 7 * 86400,
    });
  });

  it("a chosen offer brings its own duration, and every problem of the form shows at once", async () => {
    const entry = (ltv: number) => [{ collection, collectionLtv: ltv, exposure: 10000, borrowedAmount: "0" }];
    const long = apiPool({
      metadata: { name: "Long desk", thumbnail: "", banks: [] },
      limits: { minDuration: 86400, maxDuration: 30 * 86400, minAmountUsd: 10, maxAmountUsd: 5000 },
      collections: entry(5000),
    });
    // lends less (99 USDC left in its bank) and for 3 days at most: ranked second
    const short = apiPool({
      metadata: { name: "Short desk", thumbnail: "", banks: [] },
      availableLiquidity: "99000000",
      loanCurve: { apr: 5000 },
      limits: { minDuration: 86400, maxDuration: 3 * 86400, minAmountUsd: 10, maxAmountUsd: 5000 },
      collections: entry(9000),
    });
    installApi((r) => {
      if (r.path === "/asset/assets")
        return {
          body: {
            nfts: [
              {
                mint: nftMint,
                name: "Cat #1",
                collection,
                collectionName: "Cistern Cats",
                floorPriceLamports: "5000000000",
              },
            ],
          },
        };
      if (r.path === "/dirty/pools") return { body: { pools: [short, long], banks: [], totalCount: 2 } };
      if (r.path === "/prices")
        return { body: { prices: { [SOL_MINT]: { price: 150 }, [USDC_MINT]: { price: 1 } } } };
      return undefined;
    });
    renderPage(<BorrowPage />, { wallet: makeWallet(Keypair.generate()), nowSeconds: NOW });
    const list = await screen.findByTestId("nft-list");
    await waitFor(() => expect(within(list).getByTestId("best-offer").textContent).toContain("375 USDC"));
    fireEvent.click(within(list).getByRole("button", { pressed: false }));
    const days = (await screen.findByLabelText(/Duration/)) as HTMLInputElement;
    expect(days.value).toBe("30"); // the first offer's longest
    fireEvent.click(screen.getByRole("radio", { name: /Short desk/ }));
    expect(days.value).toBe("3");
    // 500 USDC for 5 days: the amount and the duration are both wrong, and both say so
    fireEvent.change(screen.getByLabelText(/Amount \(USDC\)/), { target: { value: "500" } });
    fireEvent.change(days, { target: { value: "5" } });
    expect(screen.getByTestId("borrow-error-amount").textContent).toBe(
      "This pool has 99 USDC available to lend right now.",
    );
    expect(screen.getByTestId("borrow-error-duration").textContent).toBe(
      "Choose a duration between 1 and 3 days.",
    );
    expect(screen.getByLabelText(/Amount \(USDC\)/).getAttribute("aria-invalid")).toBe("true");
    expect(days.getAttribute("aria-invalid")).toBe("true");
    // a typed duration the next offer lends for stays; one it does not is replaced by its longest
    fireEvent.click(screen.getByRole("radio", { name: /Long desk/ }));
    expect(days.value).toBe("5");
    expect(screen.queryByTestId("borrow-error-duration")).toBeNull();
    fireEvent.click(screen.getByRole("radio", { name: /Short desk/ }));
    expect(days.value).toBe("3");
    fireEvent.change(screen.getByLabelText(/Amount \(USDC\)/), { target: { value: "50" } });
    expect(screen.getByTestId("borrow-error").textContent).toBe("");
    expect(screen.getByTestId("quote-repay-by-expiry").textContent).toContain("USDC");
  });

  it("says why there are no offers when the pools cannot be loaded", async () => {
    installApi((r) => {
      if (r.path === "/asset/tokens")
        return { body: { tokens: [{ mint: USDC_MINT, amount: "5", decimals: 6 }] } };
      if (r.path === "/dirty/pools") return { status: 500, body: { code: 11000, message: "Internal error" } };
      return undefined;
    });
    renderPage(<BorrowPage />, { wallet: makeWallet(Keypair.generate()) });
    fireEvent.click(screen.getByRole("tab", { name: "Tokens" }));
    expect((await screen.findByTestId("offers-problem")).textContent).toBe(
      "Pools could not be loaded, so no offers can be shown. Try again in a moment.",
    );
  });

  it("shows the empty state when the wallet holds no NFTs", async () => {
    installApi((r) => (r.path === "/asset/assets" ? { body: { nfts: [] } } : undefined));
    renderPage(<BorrowPage />, { wallet: makeWallet(Keypair.generate()) });
    expect((await screen.findByTestId("state-empty")).textContent).toContain("This wallet holds no NFTs");
  });
});
