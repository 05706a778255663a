import { USDC_MINT } from "@cistern/protocol";
import {
  decodeCoreAsset,
  decodeLoanAccount,
  decodeMarketBid,
  getListCoreAssetInstruction,
  getPlaceBidInstruction,
} from "@cistern/sdk";
import { type Address, createKeyPairSignerFromBytes } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../../api/src/tx/builder/wire-instructions.ts";
import { DEMO_CORE_COLLECTION } from "../../../api/test/helpers/nft-standards-catalog.ts";
import { nftPoolUpdateBody, sendAsAdmin } from "../../../api/test/tx/support/tx-world.ts";
import { getAccountData, getTokenBalance, parseShownUsdc } from "../chain-reads.ts";
import {
  borrowNftOnPage,
  confirmed,
  createNftPoolThroughApi,
  NFT_POOL_LIMITS,
  sendThroughApi,
  shot,
} from "../journey-helpers.ts";
import { closePages, fundJourneyWallet, type GetWorld, getPoolOf, openJourneyPage } from "./world.ts";

// Issue #32, the sale endings of a Core loan in the browser: a borrower sells a loan against a Metaplex Core asset
// instantly into a collection bid, and buys a listed Core asset with a mortgage on Buy NFTs, at 1280 and 360 px. The
// asset's owner and the loan are read from the chain after each.
// In the shared world: the loan is taken from this journey's lender's pool; this lender is the only one offering
// mortgages on the Koi, so the mortgage panel's 15% is its pool's.

const KOI = DEMO_CORE_COLLECTION.collectionId;

export function registerCoreSalesJourney(world: GetWorld): void {
  describe("the sales of a Core loan in the browser (#32)", () => {
    const lenderKey = Keypair.generate();
    const borrowerKey = Keypair.generate();
    const bidderKey = Keypair.generate();
    const sellerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let borrower: Page;
    let koi: { asset: string; name: string };
    let listed: { asset: string; name: string };
    let pool: string;

    const me = () => borrowerKey.publicKey.toBase58();
    const rpcUrl = () => world().stack.localnet.rpcUrl;
    const coreOwner = async (asset: string) => decodeCoreAsset(await getAccountData(rpcUrl(), asset))?.owner;
    const loanAccount = async (loan: string) => decodeLoanAccount(await getAccountData(rpcUrl(), loan));

    /** The pinned NFT market's instructions, signed by `key` through the API's transaction factory. */
    async function sendMarket(key: Keypair, instructions: Parameters<typeof sendAsAdmin>[3]) {
      const signer = await createKeyPairSignerFromBytes(key.secretKey);
      await sendAsAdmin(world().stack.api, world().stack.tx, signer, instructions);
    }

    /** The borrower's ongoing loan on `collateral`, from the chain. */
    async function loanOn(collateral: string): Promise<string> {
      const loans = await world().stack.tx.state.getBorrowerLoans(me() as Address);
      const found = loans.find((l) => l.loan.collateralMint === collateral && l.loan.status === "Ongoing");
      if (!found) throw new Error(`no ongoing loan on ${collateral}`);
      return found.pubkey;
    }

    beforeAll(async () => {
      const { stack, marketProgram } = world();
      for (const key of [lenderKey, borrowerKey, bidderKey, sellerKey]) {
        const [given] = await fundJourneyWallet(world(), key);
        if (key === borrowerKey) koi = given!.coreAssets[0]!;
        if (key === sellerKey) listed = given!.coreAssets[0]!;
      }
      // a lender lends against the Koi and offers mortgages at 15%
      await createNftPoolThroughApi(stack, lenderKey, { seed: "3201", collections: [KOI] });
      const owner = lenderKey.publicKey.toBase58();
      pool = await getPoolOf(world(), lenderKey);
      await sendThroughApi(
        stack,
        lenderKey,
        "/nft/update-pool",
        nftPoolUpdateBody({
          pool,
          owner,
          apr: 3650,
          limits: NFT_POOL_LIMITS,
          collections: [KOI],
          mortgageApr: 1500,
        }),
      );
      // a bidder wants any Koi for 100 USDC; a seller lists one for 60 USDC
      const bidder = bidderKey.publicKey.toBase58() as Address;
      await sendMarket(bidderKey, [
        await getPlaceBidInstruction({
          programAddress: marketProgram,
          bidder,
          nonce: 3201n,
          collection: KOI as Address,
          currencyMint: USDC_MINT as Address,
          bidderCurrencyAccount: await findAssociatedTokenAddress(bidder, USDC_MINT as Address),
          price: 100_000_000n,
        }),
      ]);
      await sendMarket(sellerKey, [
        await getListCoreAssetInstruction({
          programAddress: marketProgram,
          seller: sellerKey.publicKey.toBase58() as Address,
          asset: listed.asset as Address,
          collection: KOI as Address,
          currencyMint: USDC_MINT as Address,
          price: 60_000_000n,
        }),
      ]);
      borrower = await openJourneyPage(world(), borrowerKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(borrower));

    it("sells a loan against a Core asset instantly: the bidder owns the asset, the loan is Sold (1280 px; the row at 360 px)", async () => {
      const { stack } = world();
      await borrowNftOnPage(borrower, stack.webUrl, { nftName: koi.name, amount: "20", days: "7", pool });
      const loan = await loanOn(koi.asset);
      expect(await coreOwner(koi.asset)).toBe(loan);
      await borrower.goto(`${stack.webUrl}/loans`);
      const row = borrower.locator(`tr[data-loan="${loan}"]`);
      await row.waitFor({ timeout: 30_000 });
      expect(await row.getByTestId("loan-standard").textContent()).toContain("Core asset");
      // the phone sees the row's Instant sell without sideways scrolling
      await borrower.setViewportSize({ width: 360, height: 740 });
      expect(await row.getByTestId("instant-sell").isVisible()).toBe(true);
      expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(borrower, "32-core-loan-row-360");
      await borrower.setViewportSize({ width: 1280, height: 900 });
      // the best Koi bid in USDC (the demo market maker's or ours), as the API quotes it
      const quote = (await (
        await fetch(`${stack.apiUrl}/nft/instant-sell-quote`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ borrower: me(), loan }),
        })
      ).json()) as { bid: string; bidPrice: string };
      const best = decodeMarketBid(await getAccountData(rpcUrl(), quote.bid));
      expect(best.price >= 100_000_000n).toBe(true);
      await row.getByTestId("instant-sell").click();
      const sell = borrower.getByTestId("instant-sell-panel");
      await sell.getByTestId("instant-sell-quote").waitFor({ timeout: 30_000 });
      expect(parseShownUsdc((await sell.getByTestId("instant-sell-bid").textContent()) ?? "")).toBe(
        best.price,
      );
      await shot(borrower, "32-core-instant-sell-1280");
      const before = await getTokenBalance(rpcUrl(), me(), USDC_MINT);
      await confirmed(borrower, () => sell.getByTestId("instant-sell-submit").click());
      // the chain: the bidder owns the asset, the loan is Sold and the borrower kept the bid less what it repaid
      expect(await coreOwner(koi.asset)).toBe(best.bidder);
      const sold = await loanAccount(loan);
      expect([sold.status, sold.nftType]).toEqual(["Sold", "CoreNft"]);
      expect(await getTokenBalance(rpcUrl(), me(), USDC_MINT)).toBe(before + best.price - sold.repaidAmount);
    }, 240_000);

    it("buys a listed Core asset with a mortgage on Buy NFTs at 360 px: the loan PDA owns it (the card at 1280 px)", async () => {
      const { stack } = world();
      await borrower.goto(`${stack.webUrl}/buy`);
      const card = borrower.getByTestId("mortgage-listing").filter({ hasText: listed.name }).first();
      await card.waitFor({ timeout: 30_000 });
      expect(await card.getByTestId("listing-collection").textContent()).toContain("Core asset");
      await shot(borrower, "32-core-buy-1280");
      await borrower.setViewportSize({ width: 360, height: 740 });
      expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await card.getByTestId("mortgage-choose").click();
      const panel = card.getByTestId("mortgage-panel");
      await panel.getByTestId("mortgage-apr").getByText("15%").waitFor({ timeout: 30_000 });
      expect(await panel.getByTestId("mortgage-price").textContent()).toContain("60 USDC");
      await shot(borrower, "32-core-mortgage-360");
      await confirmed(borrower, () => panel.getByTestId("mortgage-submit").click());
      await borrower.setViewportSize({ width: 1280, height: 900 });
      // the chain: the new loan is a Core mortgage and its PDA owns the asset
      const loan = await loanOn(listed.asset);
      const account = await loanAccount(loan);
      expect([account.kind, account.nftType, account.aprBps, account.escrow]).toEqual([
        "Mortgage",
        "CoreNft",
        1500,
        listed.asset,
      ]);
      expect(account.pool).toBe(pool);
      expect(await coreOwner(listed.asset)).toBe(loan);
      expect(pageErrors).toEqual([]);
    }, 240_000);
  });
}
