// The Buy NFTs page with a programmable NFT listed: shown like a classic NFT, financed by a pool it offers the mortgage
// (its terms before signing, the pNFT staying in the buyer's wallet locked to the loan) and is bought outright (POST
// /nft/buy at the price shown) too; without a pool, outright only.
import { USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BuyPage } from "../../src/features/buy/buy-page.tsx";
import { payBuyNow } from "./buy-now.ts";
import { address } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Buy NFTs: a programmable NFT listing", () => {
  const pnft = address();
  const classic = address();
  const collection = address();
  const listing = (mint: string, standard: "programmable" | "classic") => ({
    listing: { mint, collection, seller: address(), currency: USDC_MINT, price: "120000000", standard },
    pools: [{ pool: address(), mortgageAprBps: 2000, ltvBps: 5000, maxDurationSeconds: 30 * 86_400 }],
  });
  const api = (pnftPools = true) =>
    installApi((r) => {
      if (r.path === "/nft/mortgage-listings") {
        const ours = listing(pnft, "programmable");
        return { body: [pnftPools ? ours : { ...ours, pools: [] }, listing(classic, "classic")] };
      }
      if (r.path === "/nft/take-mortgage-quote")
        return {
          body: {
            mint: pnft,
            collection,
            currency: USDC_MINT,
            price: "120000000",
            downPayment: "60000000",
            principal: "60000000",
            aprBps: 2000,
            durationSeconds: 7 * 86_400,
            interest: "230137",
            totalCost: "120230137",
            seller: address(),
          },
        };
      if (r.path === "/collection/collections")
        return { body: [{ collectionId: collection, metadata: { collectionName: "Storm Petrels" } }] };
      if (r.path === "/asset/asset")
        return {
          body:
            r.query.get("mint") === pnft
              ? { mint: pnft, name: "Storm Petrel #9", image: "https://img.test/9.png" }
              : { mint: classic, name: "Drip Dragon #2", image: "https://img.test/2.png" },
        };
      return undefined;
    });
  const cardOf = (name: string) =>
    screen.getAllByTestId("mortgage-listing").find((c) => c.textContent?.includes(name))!;

  it("offers the mortgage on a pNFT a pool finances: the down payment, the terms, the pNFT kept in the wallet locked; posts the mortgage", async () => {
    const requests = api();
    const me = Keypair.generate();
    renderPage(<BuyPage />, {
      wallet: makeWallet(me),
      tokens: [{ mint: USDC_MINT, amount: 500_000_000n, decimals: 6 }],
    });
    await waitFor(() => expect(cardOf("Storm Petrel #9")).toBeDefined());
    const card = cardOf("Storm Petrel #9");
    expect(card.textContent).toContain("120");
    expect(card.textContent).toContain("from 20% APR");
    await waitFor(() =>
      expect(card.querySelector('[data-testid="mortgage-card-down"]')?.textContent).toMatch(
        /^60(\.00)? USDC down, 60(\.00)? USDC financed \(50(\.00)?% of the price\)$/,
      ),
    );
    fireEvent.click(card.querySelector('[data-testid="mortgage-choose"]')!);
    const sentence = await screen.findByTestId("mortgage-sentence");
    expect(sentence.textContent).toContain(
      "Until you repay, the NFT stays in your wallet, locked to the loan.",
    );
    const submit = () => screen.getByTestId("mortgage-submit") as HTMLButtonElement;
    await waitFor(() => expect(submit().disabled).toBe(false)); // the terms and the balance read
    fireEvent.click(submit());
    await waitFor(() => expect(requests.find((r) => r.path === "/nft/take-mortgage")).toBeDefined());
    expect(requests.find((r) => r.path === "/nft/take-mortgage")!.body).toMatchObject({
      buyer: me.publicKey.toBase58(),
      nftMint: pnft,
      duration: 7 * 86_400,
      amount: "60000000",
    });
  });

  it("without a pool, offers no loan on a pNFT (in one sentence) and buys it outright at the price shown", async () => {
    const requests = api(false);
    const me = Keypair.generate();
    renderPage(<BuyPage />, {
      wallet: makeWallet(me),
      tokens: [{ mint: USDC_MINT, amount: 500_000_000n, decimals: 6 }],
    });
    await waitFor(() => expect(cardOf("Storm Petrel #9")).toBeDefined());
    const card = cardOf("Storm Petrel #9");
    // no loan, so no APR on the card (the classic one shows its pools' lowest)
    expect(card.textContent).not.toContain("APR");
    expect(cardOf("Drip Dragon #2").textContent).toContain("from 20% APR");
    expect(card.querySelector('[data-testid="mortgage-choose"]')).toBeNull();
    expect(card.querySelector('[data-testid="mortgage-card-down"]')?.textContent).toBe(
      "A loan cannot buy this NFT yet; you can buy it outright.",
    );
    fireEvent.click(card.querySelector('[data-testid="buy-now-choose"]')!);
    expect((await screen.findByTestId("buy-now-sentence")).textContent).toContain("and the NFT is yours");
    expect(screen.queryByTestId("buy-now-short")).toBeNull();
    expect(await payBuyNow(requests, "Pay 120 USDC")).toMatchObject({
      buyer: me.publicKey.toBase58(),
      nftMint: pnft,
      maxPrice: "120000000",
    });
  });

  it("says the wallet holds too little before signing", async () => {
    const requests = api();
    renderPage(<BuyPage />, {
      wallet: makeWallet(Keypair.generate()),
      tokens: [{ mint: USDC_MINT, amount: 5_000_000n, decimals: 6 }],
    });
    await waitFor(() => expect(cardOf("Storm Petrel #9")).toBeDefined());
    fireEvent.click(cardOf("Storm Petrel #9").querySelector('[data-testid="buy-now-choose"]')!);
    expect((await screen.findByTestId("buy-now-short")).textContent).toMatch(
      /^You hold 5(\.00)? USDC; the price is 120(\.00)? USDC\.$/,
    );
    expect((screen.getByTestId("buy-now-submit") as HTMLButtonElement).disabled).toBe(true);
    expect(requests.filter((r) => r.method === "POST" && r.path === "/nft/buy")).toEqual([]);
  });
});
