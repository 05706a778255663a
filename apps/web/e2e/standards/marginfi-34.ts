import { DEMO_WORLD } from "@cistern/localnet";
import { formatBps, formatMoney, USDC_MINT } from "@cistern/protocol";
import { decodeBankAccount } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decodeMarginfiAccount,
  decodeMarginfiBank,
  marginfiAssetAmount,
  marginfiRatesBps,
} from "../../../api/src/venues/lending/marginfi-accounts.ts";
import { findMarginfiPositionPda } from "../../../api/src/venues/lending/marginfi-lending-venue.ts";
import { getAccountData } from "../chain-reads.ts";
import { confirmed, createUsdcNftPool, shot } from "../journey-helpers.ts";
import { rpc } from "../stack.ts";
import { closePages, fundJourneyWallet, type GetWorld, openJourneyPage } from "./world.ts";

// Issue #34, marginfi v2 pinned as the lending venue as `npm start` pins it (the world pins it): a lender delegates
// idle USDC from My pools into the real marginfi program, sees marginfi's rate, 30 days later marks marginfi's
// interest into the bank's books and withdraws it all. The bank account and marginfi's accounts are read at each step.
// In the shared world: no other journey delegates, so marginfi's USDC bank holds only this lender's deposit.
// MOVES THE CLOCK (30 days): register it after the journeys that leave the clock alone.

const USDC = 1_000_000n;

export function registerMarginfiJourney(world: GetWorld): void {
  describe("marginfi delegation journey (#34)", () => {
    const lenderKey = Keypair.generate();
    const pageErrors: string[] = [];
    let lender: Page;

    beforeAll(async () => {
      await fundJourneyWallet(world(), lenderKey);
      lender = await openJourneyPage(world(), lenderKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(lender));

    it("a lender delegates idle USDC to marginfi, sees marginfi's rate, marks 30 days of marginfi's interest and withdraws it", async () => {
      const { stack } = world();
      const rpcUrl = stack.localnet.rpcUrl;
      const marginfiBank = stack.marginfi!.banks.find((b) => b.symbol === "USDC")!.bank;
      await createUsdcNftPool(lender, stack.webUrl, {
        amount: "2000",
        collections: [DEMO_WORLD.collections[0]!.collectionId],
        usdcMint: USDC_MINT,
      });
      const me = lenderKey.publicKey.toBase58();
      const banks = (await (await fetch(`${stack.apiUrl}/bank/user?pubkey=${me}`)).json()) as {
        pubkey: string;
        mint: string;
      }[];
      const bank = banks.find((b) => b.mint === USDC_MINT)!.pubkey as Address;
      const [position] = await findMarginfiPositionPda(stack.programId as Address, bank);
      const books = async () => decodeBankAccount(await getAccountData(rpcUrl, bank));
      /** What marginfi holds for the bank: floor(its asset shares x the bank's asset share value), base units. */
      const inMarginfi = async () => {
        const mb = decodeMarginfiBank(await getAccountData(rpcUrl, marginfiBank));
        const account = await getAccountData(rpcUrl, position).catch(() => null);
        if (account === null) return 0n;
        const shares =
          decodeMarginfiAccount(account).balances.find((b) => b.bank === marginfiBank)?.assetShares ?? 0n;
        return marginfiAssetAmount(mb, shares);
      };
      const shown = async (testId: string) =>
        (await panel.getByTestId(testId).textContent({ timeout: 30_000 }))?.trim();
      /** My pools reloaded until the panel shows `expected` delegated (the indexer follows the chain). */
      const untilShown = (expected: bigint) =>
        expect
          .poll(
            async () => {
              await lender.goto(`${stack.webUrl}/my-pools`);
              return shown("delegated");
            },
            { timeout: 60_000, interval: 1000 },
          )
          .toBe(formatMoney(expected, USDC_MINT));

      await lender.goto(`${stack.webUrl}/my-pools`);
      const card = lender.getByTestId("bank").filter({ hasText: "USDC bank" });
      const panel = card.getByTestId("delegation");
      await panel.waitFor({ timeout: 30_000 });

      // the rate the page shows is marginfi's bank's, as the API reports it and as marginfi's curve gives it
      const view = (await (await fetch(`${stack.apiUrl}/marginfi/bank?pubkey=${bank}`)).json()) as {
        venue: string;
        rateBps: number;
      };
      const curve = marginfiRatesBps(decodeMarginfiBank(await getAccountData(rpcUrl, marginfiBank)));
      expect(view.venue).toBe("marginfi");
      expect(view.rateBps).toBe(curve.lendingRateBps);
      expect(view.rateBps).toBeGreaterThan(0);
      expect(await panel.textContent()).toContain(`earn marginfi's ${formatBps(view.rateBps)} a year`);

      // delegate 1,500 of the 2,000 idle USDC: the books hold what marginfi holds for the bank
      const amount = 1_500n * USDC;
      await panel.getByLabel(/Delegate idle funds/).fill("1500");
      await confirmed(lender, () => panel.getByTestId("delegate-submit").click());
      let b = await books();
      expect(b.availableLiquidity).toBe(500n * USDC);
      expect(b.delegatedLiquidity).toBe(await inMarginfi());
      expect(b.delegatedLiquidity).toBeGreaterThanOrEqual(amount - 1n);
      await untilShown(b.delegatedLiquidity);
      await shot(lender, "34-marginfi-delegated");
      const delegated = b.delegatedLiquidity;
      const total = b.totalLiquidity;

      // 30 days on, the next delegation (1 USDC) accrues marginfi's bank: the books grow by marginfi's interest
      await rpc(rpcUrl, "localnet_advanceClock", [30 * 86_400]);
      await stack.localnet.marginfiOracles.refresh();
      await panel.getByLabel(/Delegate idle funds/).fill("1");
      await confirmed(lender, () => panel.getByTestId("delegate-submit").click());
      b = await books();
      expect(b.delegatedLiquidity).toBe(await inMarginfi());
      const earned = b.delegatedLiquidity - delegated - USDC;
      // about rate x 30 / 365 of the 1,500 USDC (marginfi's rate moved a little with our deposit)
      const estimate = (amount * BigInt(view.rateBps) * 30n) / (10_000n * 365n);
      expect(earned).toBeGreaterThan(estimate / 2n);
      expect(earned).toBeLessThan(estimate * 2n);
      expect(b.totalLiquidity - total).toBe(earned);
      console.info(
        `marginfi journey: rate ${view.rateBps} bps, delegated ${delegated}, 30 days earned ${earned} (estimate ${estimate}), books ${b.delegatedLiquidity}`,
      );
      await untilShown(b.delegatedLiquidity);

      // at 360 px the panel fits the screen
      await lender.setViewportSize({ width: 360, height: 740 });
      await panel.scrollIntoViewIfNeeded();
      await shot(lender, "34-marginfi-delegated-360");
      const box = (await panel.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(360);
      await lender.setViewportSize({ width: 1280, height: 900 });

      // withdrawing brings back all marginfi holds for the bank, interest included
      const worth = await inMarginfi();
      const available = b.availableLiquidity;
      await confirmed(lender, () => panel.getByTestId("withdraw-delegated").click());
      b = await books();
      expect(b.delegatedLiquidity).toBe(0n);
      expect(await inMarginfi()).toBe(0n);
      expect(b.availableLiquidity - available).toBeGreaterThanOrEqual(worth);
      expect(b.totalLiquidity).toBe(b.availableLiquidity);
      await untilShown(0n);
      expect(pageErrors).toEqual([]);
    }, 240_000);
  });
}
