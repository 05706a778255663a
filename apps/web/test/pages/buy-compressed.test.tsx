import { USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BuyPage } from "../../src/features/buy/buy-page.tsx";
import { address } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("#33 Buy NFTs: compressed NFTs bought outright", () => {
  it("shows each compressed NFT's name and price, what the buyer lacks, and no Buy button on their own listing", async () => {
    const me = Keypair.generate();
    const collection = address();
    const [cheap, dear, mine] = [address(), address(), address()];
    const listing = (mint: string, price: string, seller = address()) => ({
      mint,
      collection,
      seller,
      currency: USDC_MINT,
      price,
    });
    installApi((r) => {
      if (r.path === "/nft/mortgage-listings") return { body: [] };
      if (r.path === "/nft/compressed-listings")
        return {
          body: [
            listing(cheap, "300000000"),
            listing(dear, "900000000"),
            listing(mine, "500000000", me.publicKey.toBase58()),
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
    await waitFor(() => expect(screen.getAllByTestId("compressed-listing")).toHaveLength(3));
    await waitFor(() =>
      expect(screen.getAllByTestId("compressed-listing-name").map((h) => h.textContent)).toEqual([
        "Cistern Shell #1",
        "Cistern Shell #2",
        "Cistern Shell #3",
      ]),
    );
    const [first, second, third] = screen.getAllByTestId("compressed-listing");
    expect(first!.querySelector("[data-testid=compressed-buy]")?.textContent).toBe("Buy for 300 USDC");
    // 900 USDC against the 500 held: said before signing, the button off
    await waitFor(() =>
      expect(second!.querySelector("[data-testid=compressed-short]")?.textContent).toBe(
        "You hold 500 USDC; the price is 900 USDC.",
      ),
    );
    expect(second!.querySelector("button")?.hasAttribute("disabled")).toBe(true);
    expect(third!.querySelector("[data-testid=compressed-buy]")).toBeNull();
    expect(third!.textContent).toContain("Your listing.");
    expect(screen.getByText("No NFT for sale in a collection that a pool finances right now.")).toBeTruthy();
  });
});
