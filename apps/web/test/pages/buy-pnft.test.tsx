// The Buy NFTs page with a programmable NFT listed: shown like a classic NFT, bought outright (POST /nft/buy at the
// price shown) since a loan buys classic NFTs only for now; a classic listing keeps both ways.
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
  const api = () =>
    installApi((r) => {
      if (r.path === "/nft/mortgage-listings")
        return { body: [listing(pnft, "programmable"), listing(classic, "classic")] };
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

  it("offers no loan on a pNFT (in one sentence) and buys it outright at the price shown", async () => {
    const requests = api();
    const me = Keypair.generate();
    renderPage(<BuyPage />, {
      wallet: makeWallet(me),
      tokens: [{ mint: USDC_MINT, amount: 500_000_000n, decimals: 6 }],
    });
    await waitFor(() => expect(cardOf("Storm Petrel #9")).toBeDefined());
    const card = cardOf("Storm Petrel #9");
    expect(card.textContent).toContain("120");
    // no loan, so no APR on the card (the classic one shows its pools' lowest)
    expect(card.textContent).not.toContain("APR");
    expect(cardOf("Drip Dragon #2").textContent).toContain("from 20% APR");
    expect(card.querySelector('[data-testid="mortgage-choose"]')).toBeNull();
    expect(card.querySelector('[data-testid="mortgage-card-down"]')?.textContent).toBe(
      "A loan cannot buy a programmable NFT yet; you can buy it outright.",
    );
    // the classic listing keeps the loan
    expect(cardOf("Drip Dragon #2").querySelector('[data-testid="mortgage-choose"]')).not.toBeNull();
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
