import { USDC_MINT } from "@cistern/protocol";
import {
  addressFromBytes,
  decodePoolAccount,
  findAssociatedTokenPda,
  findMarketListingPda,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PNFT_COLLECTION } from "../../../api/test/helpers/nft-standards-catalog.ts";
import { getAccountData } from "../chain-reads.ts";
import { confirmed, createUsdcNftPool, shot } from "../journey-helpers.ts";
import { rpc } from "../stack.ts";
import { closePages, fundJourneyWallet, type GetWorld, getPoolOf, openJourneyPage } from "./world.ts";

// Issue #32, the NFT market's programmable NFTs in the browser: the demo market maker's Storm Petrels are listed
// (each held by its listing PDA, moved there by Token Metadata under the demo rule set, which the world set to allow
// the lending program and the market); a lender's pool that offers mortgages on the collection puts them on Buy NFTs,
// where a pNFT offers no loan and is bought outright, at 360 px. The chain then shows the buyer holding it and the
// listing gone.

export function registerNftMarketPnftJourney(world: GetWorld): void {
  describe("programmable NFTs on the NFT market (#32)", () => {
    const lenderKey = Keypair.generate();
    const buyerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let lender: Page;
    let buyer: Page;

    beforeAll(async () => {
      for (const key of [lenderKey, buyerKey]) await fundJourneyWallet(world(), key);
      lender = await openJourneyPage(world(), lenderKey, pageErrors);
      buyer = await openJourneyPage(world(), buyerKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(lender, buyer));

    it("a pNFT listed on Buy NFTs offers no loan and is bought outright at 360 px: the buyer holds it, the listing is gone", async () => {
      const { stack, marketProgram } = world();
      const petrels = DEMO_PNFT_COLLECTION.collectionId;
      // the lender's USDC pool on the Storm Petrels, with mortgages turned on in My pools
      await createUsdcNftPool(lender, stack.webUrl, {
        amount: "450",
        collections: [petrels],
        usdcMint: USDC_MINT,
        apr: "20",
      });
      const desk = await getPoolOf(world(), lenderKey);
      await lender.goto(`${stack.webUrl}/my-pools/${desk}`);
      const terms = lender.getByRole("form", { name: "Update pool" });
      await terms.waitFor({ timeout: 30_000 });
      await terms.getByLabel("Mortgages").check();
      await terms.getByLabel("Mortgage APR (%)").fill("15");
      await confirmed(lender, () => terms.getByRole("button", { name: "Update pool" }).click());
      expect(decodePoolAccount(await getAccountData(stack.localnet.rpcUrl, desk)).flags.mortgage).toBe(true);

      // the market maker's USDC listing of a petrel reaches Buy NFTs
      type Listed = {
        listing: { mint: string; collection: string; currency: string; price: string; standard?: string };
      };
      let listing: Listed["listing"] | undefined;
      await expect
        .poll(
          async () => {
            const all = (await (await fetch(`${stack.apiUrl}/nft/mortgage-listings`)).json()) as Listed[];
            listing = all.find(
              (l) => l.listing.collection === petrels && l.listing.currency === USDC_MINT,
            )?.listing;
            return listing?.standard;
          },
          { timeout: 30_000 },
        )
        .toBe("programmable");
      const mint = listing!.mint as Address;
      await buyer.setViewportSize({ width: 360, height: 740 });
      await buyer.goto(`${stack.webUrl}/buy`);
      const card = buyer
        .getByTestId("mortgage-listing")
        .filter({ hasText: "Storm Petrels" })
        .filter({ hasText: "USDC" })
        .first();
      await card.waitFor({ timeout: 30_000 });
      expect(await card.getByTestId("mortgage-card-down").textContent()).toBe(
        "A loan cannot buy a programmable NFT yet; you can buy it outright.",
      );
      expect(await card.getByTestId("mortgage-choose").count()).toBe(0);
      await card.getByTestId("buy-now-choose").click();
      await card.getByTestId("buy-now-sentence").waitFor();
      expect(await buyer.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(
        false,
      );
      await shot(buyer, "32-buy-pnft-360");
      await confirmed(buyer, () => card.getByTestId("buy-now-submit").click());

      // the chain: the buyer's associated token account holds the pNFT, the listing is closed
      const held = await getAccountData(
        stack.localnet.rpcUrl,
        await findAssociatedTokenPda(buyerKey.publicKey.toBase58() as Address, mint),
      );
      expect(addressFromBytes(held.subarray(32, 64))).toBe(buyerKey.publicKey.toBase58());
      expect(Buffer.from(held).readBigUInt64LE(64)).toBe(1n);
      const [listingPda] = await findMarketListingPda(marketProgram, mint);
      const gone = await rpc<{ value: unknown }>(stack.localnet.rpcUrl, "getAccountInfo", [
        listingPda,
        { encoding: "base64", commitment: "confirmed" },
      ]);
      expect(gone.value).toBeNull();
      expect(pageErrors).toEqual([]);
    }, 300_000);
  });
}
