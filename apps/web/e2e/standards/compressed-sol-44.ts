import { WRAPPED_SOL_MINT_ADDRESS } from "@cistern/localnet";
import { decodeLoanAccount } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAccountData } from "../chain-reads.ts";
import { borrowNftOnPage, confirmed, createNftPoolThroughApi, shot } from "../journey-helpers.ts";
import { rpc } from "../stack.ts";
import { closePages, fundJourneyWallet, type GetWorld, getPoolOf, openJourneyPage, SHELLS } from "./world.ts";

// Issue #44: a Cistern Shell borrowed and repaid in SOL in the browser, at 1280 and at 360 px. A SOL pool's take-loan
// of a compressed NFT carries the leaf's metadata and proof next to the wrapped SOL account's creation and closing:
// on main it was 1,272 bytes and every Shell loan from a SOL pool was refused ("larger than 1232 bytes"). The borrower
// borrows from this journey's lender's SOL pool (a pool of its own, as every journey here), repays on the Loans page,
// and the leaf is the borrower's again (DAS). Leaves the clock alone.

export function registerCompressedSolJourney(world: GetWorld): void {
  describe("a Cistern Shell borrowed and repaid in SOL (#44)", () => {
    const lenderKey = Keypair.generate();
    const borrowerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let borrower: Page;
    let leaves: { assetId: string; name: string }[] = [];
    let pool: string;

    const me = () => borrowerKey.publicKey.toBase58() as Address;
    const rpcUrl = () => world().stack.localnet.rpcUrl;
    const ownerOf = async (assetId: string) =>
      (await rpc<{ ownership: { owner: string } }>(rpcUrl(), "getAsset", { id: assetId } as never)).ownership
        .owner;

    /** The borrower's ongoing loan on `assetId` from the chain. */
    async function loanOn(assetId: string) {
      const loans = await world().stack.tx.state.getBorrowerLoans(me());
      const found = loans.find((l) => l.loan.collateralMint === assetId && l.loan.status === "Ongoing");
      if (!found) throw new Error(`no ongoing loan on ${assetId}`);
      return {
        pubkey: found.pubkey,
        nftType: found.loan.nftType,
        pool: found.loan.pool,
        mint: found.loan.currencyMint,
      };
    }

    /** The Loans page's ongoing row of the NFT called `name`, once shown. */
    async function loansRow(name: string) {
      await borrower.goto(`${world().stack.webUrl}/loans`);
      const row = borrower.getByTestId("ongoing-loans").locator("tbody tr", { hasText: name }).first();
      await row.waitFor({ timeout: 30_000 });
      return row;
    }

    /** Borrows 0.1 SOL against `leaf` from the journey's SOL pool, then repays it on the Loans page. */
    async function borrowAndRepay(leaf: { assetId: string; name: string }, screenshot: string) {
      const { stack } = world();
      await borrowNftOnPage(borrower, stack.webUrl, {
        nftName: leaf.name,
        amount: "0.1",
        days: "1",
        pool,
        currency: "SOL",
      });
      const loan = await loanOn(leaf.assetId);
      expect([loan.nftType, loan.pool, loan.mint]).toEqual(["CompressedNft", pool, WRAPPED_SOL_MINT_ADDRESS]);
      expect(await ownerOf(leaf.assetId)).toBe(loan.pubkey);
      const row = await loansRow(leaf.name);
      expect(await row.getByTestId("loan-standard").textContent()).toContain("Compressed NFT");
      await shot(borrower, screenshot);
      await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
      expect(decodeLoanAccount(await getAccountData(rpcUrl(), loan.pubkey)).status).toBe("Repaid");
      expect(await ownerOf(leaf.assetId)).toBe(me());
    }

    beforeAll(async () => {
      await fundJourneyWallet(world(), lenderKey);
      // the faucet gives one leaf of the collection a call: the borrower holds two
      const given = await fundJourneyWallet(world(), borrowerKey, 2);
      leaves = given.map((g) => {
        const leaf = g.compressedNfts.find((n) => n.collectionId === SHELLS.collectionId)!;
        return { assetId: leaf.assetId, name: leaf.name };
      });
      borrower = await openJourneyPage(world(), borrowerKey, pageErrors);
      await createNftPoolThroughApi(world().stack, lenderKey, {
        seed: "44",
        collections: [SHELLS.collectionId],
        currency: { mint: WRAPPED_SOL_MINT_ADDRESS, amount: "20000000000" },
      });
      pool = await getPoolOf(world(), lenderKey);
    }, 120_000);
    afterAll(() => closePages(borrower));

    it("at 1280 px: borrows 0.1 SOL against a Shell (the loan PDA owns the leaf), repays it, the leaf comes back", async () => {
      await borrowAndRepay(leaves[0]!, "44-cnft-sol-1280");
    }, 180_000);

    it("at 360 px: the same with the second Shell, the Loans page without sideways scrolling", async () => {
      await borrower.setViewportSize({ width: 360, height: 740 });
      try {
        await borrowAndRepay(leaves[1]!, "44-cnft-sol-360");
        expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      } finally {
        await borrower.setViewportSize({ width: 1280, height: 900 });
      }
      expect(pageErrors).toEqual([]);
    }, 180_000);
  });
}
