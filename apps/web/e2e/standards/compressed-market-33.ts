import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmed, shot } from "../journey-helpers.ts";
import { rpc } from "../stack.ts";
import { closePages, fundJourneyWallet, type GetWorld, openJourneyPage } from "./world.ts";

// Issue #33 in the browser (the demo market maker lists three Cistern Shells, compressed NFTs, on the local NFT market
// as `npm start` does): a new user finds them among the NFTs for sale on Buy NFTs at 1280 and 360 px, each card saying
// its standard, and buys the cheapest SOL one outright through the one Buy now panel (POST /nft/buy); the asset index
// (DAS, built from the chain) then says the user owns it, and the page no longer offers it.
// In the shared world: no other journey lists or buys a Shell, so the market maker's three stay the only ones.

interface Listed {
  listing: { mint: string; currency: string; price: string; standard?: string };
}
const SOL = "So11111111111111111111111111111111111111112";

export function registerCompressedMarketJourney(world: GetWorld): void {
  describe("Buy NFTs: compressed NFTs bought outright (#33)", () => {
    const buyerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let buyer: Page;

    beforeAll(async () => {
      await fundJourneyWallet(world(), buyerKey);
      buyer = await openJourneyPage(world(), buyerKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(buyer));

    const owner = async (assetId: string) =>
      (await rpc<{ ownership: { owner: string } }>(world().stack.localnet.rpcUrl, "getAsset", [assetId]))
        .ownership.owner;

    it("shows the market maker's compressed listings at 1280 and 360 px and buys the cheapest SOL one", async () => {
      const { stack } = world();
      const forSale = (await (await fetch(`${stack.apiUrl}/nft/mortgage-listings`)).json()) as Listed[];
      const listed = forSale.map((l) => l.listing).filter((l) => l.standard === "compressed");
      expect(listed).toHaveLength(3);
      const cheapestSol = listed
        .filter((l) => l.currency === SOL)
        .sort((a, b) => Number(BigInt(a.price) - BigInt(b.price)))[0]!;
      expect(cheapestSol.price).toBe("2000000000");
      const seller = await owner(cheapestSol.mint);

      await buyer.goto(`${stack.webUrl}/buy`);
      // the compressed cards: the one sentence that names their standard
      const cards = buyer
        .getByTestId("mortgage-listing")
        .filter({ hasText: "A loan cannot buy a compressed NFT yet; you can buy it outright." });
      await expect.poll(() => cards.count(), { timeout: 30_000 }).toBe(3);
      await expect
        .poll(() => cards.getByTestId("buy-now-choose").first().isVisible(), { timeout: 30_000 })
        .toBe(true);
      await shot(buyer, "33-buy-compressed-1280");
      await buyer.setViewportSize({ width: 360, height: 740 });
      expect(await buyer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(buyer, "33-buy-compressed-360");

      // the SOL listing at 2 SOL: the card shows the price, the panel's button the price the buyer pays at most
      const card = cards.filter({
        has: buyer.getByTestId("listing-price").getByText("2 SOL", { exact: true }),
      });
      await expect.poll(() => card.count()).toBe(1);
      await card.getByTestId("buy-now-choose").click();
      await expect.poll(() => card.getByTestId("buy-now-submit").textContent()).toBe("Pay 2 SOL");
      await confirmed(buyer, () => card.getByTestId("buy-now-submit").click());
      await buyer.setViewportSize({ width: 1280, height: 900 });

      await expect
        .poll(() => owner(cheapestSol.mint), { timeout: 30_000 })
        .toBe(buyerKey.publicKey.toBase58());
      expect(seller).not.toBe(buyerKey.publicKey.toBase58());
      await expect.poll(() => cards.count(), { timeout: 30_000 }).toBe(2);
      expect(pageErrors).toEqual([]);
    }, 300_000);
  });
}
