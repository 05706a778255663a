import { USDC_MINT } from "@cistern/protocol";
import { decodeLoanAccount, decodeMarketBid, getPlaceBidInstruction } from "@cistern/sdk";
import { type Address, createKeyPairSignerFromBytes } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../../api/src/tx/builder/wire-instructions.ts";
import { dasOwner } from "../../../api/test/helpers/das-owner.ts";
import { sendAsAdmin } from "../../../api/test/tx/support/tx-world.ts";
import { getAccountData, getTokenBalance, parseShownUsdc } from "../chain-reads.ts";
import { borrowNftOnPage, confirmed, createNftPoolThroughApi, shot } from "../journey-helpers.ts";
import { closePages, fundJourneyWallet, type GetWorld, getPoolOf, openJourneyPage, SHELLS } from "./world.ts";

// Issue #33, the instant sell of a loan against a compressed NFT in the browser: a borrower borrows against a leaf of
// "Cistern Shells" (from its own lender's pool), then on a 360 px phone sells the loan instantly into a collection
// bid; the leaf's owner is read through the localnet's DAS (getAsset) before and after, the loan from the chain.

export function registerCompressedSaleJourney(world: GetWorld): void {
  describe("the instant sell of a compressed NFT loan in the browser (#33)", () => {
    const lenderKey = Keypair.generate();
    const borrowerKey = Keypair.generate();
    const bidderKey = Keypair.generate();
    const pageErrors: string[] = [];
    let borrower: Page;
    let leaf: { assetId: string; name: string };
    let pool: string;

    const me = () => borrowerKey.publicKey.toBase58() as Address;
    const rpcUrl = () => world().stack.localnet.rpcUrl;
    const leafOwner = (assetId: string) => dasOwner(rpcUrl(), assetId);

    /** The borrower's ongoing loan on `assetId`, from the chain. */
    async function loanOn(assetId: string): Promise<string> {
      const loans = await world().stack.tx.state.getBorrowerLoans(me());
      const found = loans.find((l) => l.loan.collateralMint === assetId && l.loan.status === "Ongoing");
      if (!found) throw new Error(`no ongoing loan on ${assetId}`);
      return found.pubkey;
    }

    beforeAll(async () => {
      const { stack, marketProgram } = world();
      for (const key of [lenderKey, borrowerKey, bidderKey]) {
        const [given] = await fundJourneyWallet(world(), key);
        if (key === borrowerKey) {
          const c = given!.compressedNfts[0]!;
          leaf = { assetId: c.assetId, name: c.name };
        }
      }
      await createNftPoolThroughApi(stack, lenderKey, { seed: "3301", collections: [SHELLS.collectionId] });
      pool = await getPoolOf(world(), lenderKey);
      // a bidder wants any Shell for 100 USDC
      const bidder = bidderKey.publicKey.toBase58() as Address;
      await sendAsAdmin(stack.api, stack.tx, await createKeyPairSignerFromBytes(bidderKey.secretKey), [
        await getPlaceBidInstruction({
          programAddress: marketProgram,
          bidder,
          nonce: 3301n,
          collection: SHELLS.collectionId as Address,
          currencyMint: USDC_MINT as Address,
          bidderCurrencyAccount: await findAssociatedTokenAddress(bidder, USDC_MINT as Address),
          price: 100_000_000n,
        }),
      ]);
      borrower = await openJourneyPage(world(), borrowerKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(borrower));

    it("sells a loan against a compressed NFT instantly at 360 px: DAS names the bidder the leaf's owner, the loan is Sold", async () => {
      const { stack } = world();
      await borrowNftOnPage(borrower, stack.webUrl, { nftName: leaf.name, amount: "20", days: "7", pool });
      const loan = await loanOn(leaf.assetId);
      expect(await leafOwner(leaf.assetId)).toBe(loan);
      await borrower.setViewportSize({ width: 360, height: 740 });
      await borrower.goto(`${stack.webUrl}/loans`);
      const row = borrower.locator(`tr[data-loan="${loan}"]`);
      await row.waitFor({ timeout: 30_000 });
      expect(await row.getByTestId("loan-standard").textContent()).toContain("Compressed NFT");
      expect(await row.getByTestId("instant-sell").isVisible()).toBe(true);
      expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(borrower, "33-cnft-loan-row-360");
      // the best Shells bid in USDC (ours, or the demo market maker's), as the API quotes it
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
      expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(borrower, "33-cnft-instant-sell-360");
      const before = await getTokenBalance(rpcUrl(), me(), USDC_MINT);
      await confirmed(borrower, () => sell.getByTestId("instant-sell-submit").click());
      // the chain: DAS names the bidder the leaf's owner, the loan is Sold, the borrower kept the bid less the repayment
      expect(await leafOwner(leaf.assetId)).toBe(best.bidder);
      const sold = decodeLoanAccount(await getAccountData(rpcUrl(), loan));
      expect([sold.status, sold.nftType]).toEqual(["Sold", "CompressedNft"]);
      expect(await getTokenBalance(rpcUrl(), me(), USDC_MINT)).toBe(before + best.price - sold.repaidAmount);
      expect(pageErrors).toEqual([]);
    }, 300_000);
  });
}
