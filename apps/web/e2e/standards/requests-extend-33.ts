import { USDC_MINT } from "@cistern/protocol";
import { decodeCoreAsset, decodeLoanAccount, decodeRequestAccount } from "@cistern/sdk";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dasOwner as dasOwnerAt } from "../../../api/test/helpers/das-owner.ts";
import { getAccountData } from "../chain-reads.ts";
import { borrowNftOnPage, confirmed, createNftPoolThroughApi, shot } from "../journey-helpers.ts";
import { closePages, fundJourneyWallet, type GetWorld, getPoolOf, openJourneyPage, SHELLS } from "./world.ts";

// Issues #32 and #33: a borrower posts a loan request against a Metaplex Core asset in the browser and a second wallet
// fills it from the Lend page (the asset passes from the request to the loan); the borrower borrows against a
// compressed NFT (from the second wallet's pool) and extends that loan on the Loans page at 360 px (the leaf passes
// from the old loan to the new one with a proof taken at build time). The chain is read after each step: the Core
// asset's owner, the leaf's owner through the localnet's DAS getAsset.
// In the shared world other pools may lend against the Core collection: the Borrow page then offers a loan and the
// request form opens from its link; the request row is found by its terms (20 USDC for 5 days), this journey's own.

export function registerRequestsExtendJourney(world: GetWorld): void {
  describe("loan requests against a Core asset, Extend of a compressed NFT loan (#32, #33)", () => {
    const lenderKey = Keypair.generate();
    const borrowerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let borrower: Page;
    let lender: Page;
    let core: { asset: string; name: string };
    let shell: { assetId: string; name: string };

    const me = () => borrowerKey.publicKey.toBase58();
    const rpcUrl = () => world().stack.localnet.rpcUrl;
    const coreOwner = async () => decodeCoreAsset(await getAccountData(rpcUrl(), core.asset))?.owner;
    const dasOwner = async (assetId: string) => (await dasOwnerAt(rpcUrl(), assetId))!;

    beforeAll(async () => {
      for (const key of [lenderKey, borrowerKey]) {
        const [given] = await fundJourneyWallet(world(), key);
        if (key === borrowerKey) {
          core = given!.coreAssets[0]!;
          shell = given!.compressedNfts[0]!;
        }
      }
      borrower = await openJourneyPage(world(), borrowerKey, pageErrors);
      lender = await openJourneyPage(world(), lenderKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(borrower, lender));

    it("the borrower posts a request against the Core asset: the request owns it", async () => {
      const { stack } = world();
      // the lender's USDC pool lending against the compressed collection
      await createNftPoolThroughApi(stack, lenderKey, { seed: "33", collections: [SHELLS.collectionId] });
      await borrower.goto(`${stack.webUrl}/borrow`);
      const list = borrower.getByTestId("nft-list");
      await list.waitFor({ timeout: 30_000 });
      await list.getByRole("button", { name: new RegExp(core.name.replace(/[#]/g, "\\$&")) }).click();
      const form = borrower.getByTestId("request-form");
      await form.waitFor({ timeout: 30_000 });
      // with no pool lending against the Core collection the request form is open from the start
      if ((await form.getAttribute("open")) === null)
        await form.getByText("No offer fits? Post a loan request").click();
      await form.getByLabel("Currency").selectOption(USDC_MINT);
      await form.getByLabel("Amount").fill("20");
      await form.getByLabel("Days").fill("5");
      await form.getByLabel("Highest APR (%)").fill("20");
      expect(await form.getByTestId("request-summary").textContent()).toContain(
        "is locked in the Cistern program until a lender fills the request or you cancel it",
      );
      await confirmed(borrower, () => form.getByTestId("post-request").click());
      const holder = (await coreOwner())!;
      expect(holder).not.toBe(me());
      const request = decodeRequestAccount(await getAccountData(rpcUrl(), holder));
      expect([request.status, request.nftType, request.borrower, request.escrow]).toEqual([
        "Open",
        "CoreNft",
        me(),
        core.asset,
      ]);
    }, 240_000);

    it("a second wallet fills it from the Lend page at 360 px: the loan owns the asset", async () => {
      const { stack } = world();
      const requestAddress = (await coreOwner())!;
      await lender.setViewportSize({ width: 360, height: 740 });
      await lender.goto(`${stack.webUrl}/lend`);
      await lender.getByRole("tab", { name: "USDC" }).click();
      const card = lender
        .getByTestId("request-row")
        .filter({ hasText: "asks for 20 USDC for 5 days" })
        .first();
      await card.waitFor({ timeout: 30_000 });
      await card.scrollIntoViewIfNeeded();
      const box = (await card.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(360);
      await shot(lender, "33-request-core-360");
      await confirmed(lender, () => card.getByTestId("fill-request").click());
      await lender.setViewportSize({ width: 1280, height: 900 });
      const loanAddress = (await coreOwner())!;
      expect(loanAddress).not.toBe(requestAddress);
      const loan = decodeLoanAccount(await getAccountData(rpcUrl(), loanAddress));
      expect([loan.kind, loan.status, loan.nftType, loan.borrower, loan.escrow]).toEqual([
        "RequestLoan",
        "Ongoing",
        "CoreNft",
        me(),
        core.asset,
      ]);
      expect(decodeRequestAccount(await getAccountData(rpcUrl(), requestAddress)).status).toBe("Filled");
    }, 240_000);

    it("borrows against the compressed NFT and extends the loan on the Loans page at 360 px: the new loan owns the leaf", async () => {
      const { stack } = world();
      const pool = await getPoolOf(world(), lenderKey);
      await borrowNftOnPage(borrower, stack.webUrl, { nftName: shell.name, amount: "20", days: "2", pool });
      const first = await dasOwner(shell.assetId);
      const taken = decodeLoanAccount(await getAccountData(rpcUrl(), first));
      expect([taken.nftType, taken.pool]).toEqual(["CompressedNft", pool]);
      // the tree changes (another wallet's faucet mints a leaf) before the extension is built
      await stack.localnet.faucet(Keypair.generate().publicKey.toBase58());
      await borrower.setViewportSize({ width: 360, height: 740 });
      await borrower.goto(`${stack.webUrl}/loans`);
      const row = borrower.getByTestId("ongoing-loans").locator("tbody tr", { hasText: shell.name }).first();
      await row.waitFor({ timeout: 30_000 });
      expect(await row.getByTestId("loan-standard").textContent()).toContain("Compressed NFT");
      await row.getByRole("button", { name: "Extend" }).click();
      const panel = borrower.getByTestId("extend-panel");
      await panel.getByLabel(/New duration/).fill("3");
      await panel.getByTestId("extend-terms").waitFor({ timeout: 30_000 });
      expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(borrower, "33-extend-cnft-360");
      await confirmed(borrower, () => panel.getByTestId("extend-submit").click());
      await borrower.setViewportSize({ width: 1280, height: 900 });
      const next = (await dasOwner(shell.assetId))!;
      expect(next).not.toBe(first);
      const extended = decodeLoanAccount(await getAccountData(rpcUrl(), next));
      expect([extended.status, extended.nftType, extended.previousLoan]).toEqual([
        "Ongoing",
        "CompressedNft",
        first,
      ]);
      const old = decodeLoanAccount(await getAccountData(rpcUrl(), first));
      expect([old.status, old.closedBy]).toEqual(["Repaid", "Extended"]);
      expect(pageErrors).toEqual([]);
    }, 300_000);
  });
}
