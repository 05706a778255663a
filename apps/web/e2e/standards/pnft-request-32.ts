import { USDC_MINT } from "@cistern/protocol";
import { addressFromBytes, decodeLoanAccount, decodeRequestAccount } from "@cistern/sdk";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAccountData } from "../chain-reads.ts";
import { confirmed, createNftPoolThroughApi, shot } from "../journey-helpers.ts";
import { rpc } from "../stack.ts";
import { closePages, fundJourneyWallet, type GetWorld, openJourneyPage, SHELLS } from "./world.ts";

// Issue #32: a borrower posts a loan request against a programmable NFT in the browser at 1280 px (the request PDA then
// owns it in its associated token account), a second wallet fills it from the Lend page at 360 px (the new loan PDA's
// account holds it), and the borrower repays it on the Loans page (it is back in the borrower's wallet). Who owns the
// pNFT is read from the chain after each step: the token account holding the mint and that account's owner.
// The request row is found by its terms (21 USDC for 4 days), this journey's own.

export function registerPnftRequestJourney(world: GetWorld): void {
  describe("a loan request against a programmable NFT, filled and repaid (#32)", () => {
    const lenderKey = Keypair.generate();
    const borrowerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let borrower: Page;
    let lender: Page;
    let pnft: { mint: string; name: string };
    let requestAddress: string;

    const me = () => borrowerKey.publicKey.toBase58();
    const rpcUrl = () => world().stack.localnet.rpcUrl;

    /** Who holds the pNFT now: the token account holding the mint's one token and that account's owner. */
    async function holder(): Promise<{ account: string; owner: string }> {
      const largest = await rpc<{ value: { address: string; amount: string }[] }>(
        rpcUrl(),
        "getTokenLargestAccounts",
        [pnft.mint, { commitment: "confirmed" }],
      );
      const held = largest.value.find((a) => a.amount === "1");
      if (!held) throw new Error(`no account holds ${pnft.mint}`);
      const data = await getAccountData(rpcUrl(), held.address);
      return { account: held.address, owner: addressFromBytes(data.subarray(32, 64)) };
    }

    beforeAll(async () => {
      for (const key of [lenderKey, borrowerKey]) {
        const [given] = await fundJourneyWallet(world(), key);
        if (key === borrowerKey) pnft = given!.programmableNfts[0]!;
      }
      borrower = await openJourneyPage(world(), borrowerKey, pageErrors);
      lender = await openJourneyPage(world(), lenderKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(borrower, lender));

    it("the borrower posts a request against the pNFT at 1280 px: the request PDA's account holds it", async () => {
      const { stack } = world();
      // the lender's USDC nft-pool (a fill lends from a pool of the lender's; its collections do not matter)
      await createNftPoolThroughApi(stack, lenderKey, { seed: "3201", collections: [SHELLS.collectionId] });
      expect((await holder()).owner).toBe(me());
      await borrower.setViewportSize({ width: 1280, height: 900 });
      await borrower.goto(`${stack.webUrl}/borrow`);
      const list = borrower.getByTestId("nft-list");
      await list.waitFor({ timeout: 30_000 });
      await list.getByRole("button", { name: new RegExp(pnft.name.replace(/[#]/g, "\\$&")) }).click();
      const form = borrower.getByTestId("request-form");
      await form.waitFor({ timeout: 30_000 });
      expect(await borrower.getByTestId("request-custody-note").textContent()).toBe(
        "A loan request holds it outside your wallet: the request, then the loan, owns it until you cancel or repay.",
      );
      // another journey's pool may lend against the pNFT collection: the form is then behind its link
      if ((await form.getAttribute("open")) === null)
        await form.getByText("No offer fits? Post a loan request").click();
      await form.getByLabel("Currency").selectOption(USDC_MINT);
      await form.getByLabel("Amount").fill("21");
      await form.getByLabel("Days").fill("4");
      await form.getByLabel("Highest APR (%)").fill("20");
      await shot(borrower, "32-request-pnft-1280");
      await confirmed(borrower, () => form.getByTestId("post-request").click());
      const held = await holder();
      expect(held.owner).not.toBe(me());
      requestAddress = held.owner;
      const request = decodeRequestAccount(await getAccountData(rpcUrl(), requestAddress));
      expect([request.status, request.nftType, request.pnftHeld, request.borrower, request.escrow]).toEqual([
        "Open",
        "ProgrammableNft",
        true,
        me(),
        held.account,
      ]);
    }, 240_000);

    it("a second wallet fills it from the Lend page at 360 px: the loan PDA's account holds it", async () => {
      const { stack } = world();
      await lender.setViewportSize({ width: 360, height: 740 });
      await lender.goto(`${stack.webUrl}/lend`);
      await lender.getByRole("tab", { name: "USDC" }).click();
      const card = lender
        .getByTestId("request-row")
        .filter({ hasText: "asks for 21 USDC for 4 days" })
        .first();
      await card.waitFor({ timeout: 30_000 });
      await card.scrollIntoViewIfNeeded();
      const box = (await card.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(360);
      expect(await lender.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(lender, "32-request-pnft-fill-360");
      await confirmed(lender, () => card.getByTestId("fill-request").click());
      await lender.setViewportSize({ width: 1280, height: 900 });
      const held = await holder();
      expect(held.owner).not.toBe(requestAddress);
      const loan = decodeLoanAccount(await getAccountData(rpcUrl(), held.owner));
      expect([loan.kind, loan.status, loan.nftType, loan.pnftHeld, loan.borrower, loan.escrow]).toEqual([
        "RequestLoan",
        "Ongoing",
        "ProgrammableNft",
        true,
        me(),
        held.account,
      ]);
      expect(decodeRequestAccount(await getAccountData(rpcUrl(), requestAddress)).status).toBe("Filled");
    }, 240_000);

    it("the borrower repays it on the Loans page: the pNFT is back in the borrower's wallet", async () => {
      const { stack } = world();
      const loanAddress = (await holder()).owner;
      await borrower.goto(`${stack.webUrl}/loans`);
      const row = borrower.getByTestId("ongoing-loans").locator("tbody tr", { hasText: pnft.name }).first();
      await row.waitFor({ timeout: 30_000 });
      expect(await row.getByTestId("loan-standard").textContent()).toContain("Programmable NFT");
      await shot(borrower, "32-request-pnft-loans-1280");
      await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
      expect((await holder()).owner).toBe(me());
      expect(decodeLoanAccount(await getAccountData(rpcUrl(), loanAddress)).status).toBe("Repaid");
      expect(pageErrors).toEqual([]);
    }, 240_000);
  });
}
