// #33 on Buy NFTs: compressed NFTs listed among the others (GET /nft/mortgage-listings, no pool finances them),
// each card with its name, price and standard, bought outright through the one Buy now panel (POST /nft/buy,
// `nftMint` the asset id, the price shown the most paid).
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

describe("#33 Buy NFTs: compressed NFTs bought outright", () => {
  it("shows each compressed NFT's name, price and standard, what the buyer lacks, no Buy on their own listing, and buys through /nft/buy", async () => {
    const me = Keypair.generate();
    const collection = address();
    const [cheap, dear, mine] = [address(), address(), address()];
    const listing = (mint: string, price: string, seller = address()) => ({
      listing: { mint, collection, seller, currency: USDC_MINT, price, standard: "compressed" },
      pools: [],
    });
    const requests = installApi((r) => {
      if (r.path === "/nft/mortgage-listings")
        return {
          body: [
            listing(cheap, "300000000"),
            listing(mine, "500000000", me.publicKey.toBase58()),
            listing(dear, "900000000"),
          ],
        };
      if (r.path === "/collection/collections")
        return { body: [{ collectionId: collection, metadata: { collectionName: "Cistern Shells" } }] };
      if (r.path === "/asset/asset") {
        const n = [cheap, dear, mine].indexOf(r.query.get("mint") ?? "") + 1;
        return { body: { mint: r.query.get("mint"), name: `Cistern Shell #${n}`, image: "" } };
      }
      return undefined;
    });
    renderPage(<BuyPage />, {
      wallet: makeWallet(me),
      tokens: [{ mint: USDC_MINT, amount: 500_000_000n, decimals: 6 }],
    });
    await waitFor(() => expect(screen.getAllByTestId("mortgage-listing")).toHaveLength(3));
    await waitFor(() =>
      expect(screen.getAllByTestId("listing-name").map((h) => h.textContent)).toEqual([
        "Cistern Shell #1",
        "Cistern Shell #3",
        "Cistern Shell #2",
      ]),
    );
    const [first, third, second] = screen.getAllByTestId("mortgage-listing");
    expect(first!.querySelector("[data-testid=listing-price]")?.textContent).toBe("300 USDC");
    expect(first!.querySelector("[data-testid=mortgage-card-down]")?.textContent).toBe(
      "A loan cannot buy a compressed NFT yet; you can buy it outright.",
    );
    expect(first!.textContent).not.toContain("APR");
    expect(first!.querySelector("[data-testid=mortgage-choose]")).toBeNull();
    // the buyer's own listing: no Buy button
    expect(third!.querySelector("[data-testid=buy-now-choose]")).toBeNull();
    expect(third!.textContent).toContain("Your listing.");
    // 900 USDC against the 500 held: said before signing, the button off
    fireEvent.click(second!.querySelector("[data-testid=buy-now-choose]")!);
    await waitFor(() =>
      expect(second!.querySelector("[data-testid=buy-now-short]")?.textContent).toBe(
        "You hold 500 USDC; the price is 900 USDC.",
      ),
    );
    expect((second!.querySelector("[data-testid=buy-now-submit]") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));

    fireEvent.click(first!.querySelector("[data-testid=buy-now-choose]")!);
    expect(await payBuyNow(requests, "Pay 300 USDC", first)).toMatchObject({
      buyer: me.publicKey.toBase58(),
      nftMint: cheap,
      maxPrice: "300000000",
    });
  });

  it("says so when nothing is for sale", async () => {
    installApi((r) => (r.path === "/nft/mortgage-listings" ? { body: [] } : undefined));
    renderPage(<BuyPage />, { wallet: makeWallet(Keypair.generate()) });
    expect(await screen.findByText("No NFT is for sale right now.")).toBeTruthy();
  });
});
