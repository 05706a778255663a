import {
  addressFromBytes,
  decodeCoreAsset,
  decodeLoanAccount,
  decodeTokenRecord,
  findAssociatedTokenPda,
  findTokenRecordPda,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_CORE_COLLECTION,
  DEMO_PNFT_COLLECTION,
} from "../../../api/test/helpers/nft-standards-catalog.ts";
import { getAccountData } from "../chain-reads.ts";
import { borrowNftOnPage, confirmed, createNftPoolThroughApi, shot } from "../journey-helpers.ts";
import { rpc } from "../stack.ts";
import { closePages, fundJourneyWallet, type GetWorld, getPoolOf, openJourneyPage } from "./world.ts";

// Issue #32: a new user borrows against a programmable NFT and a Metaplex Core asset in the browser (from this
// journey's lender's pool), repays one and lets the other default; after a clock jump the keeper hands it to the pool
// owner. The asset's on-chain state (owner, delegate, lock) is read at each step.
// MOVES THE CLOCK (26 h) and runs a keeper round: register it after the journeys that leave the clock alone.

export function registerNftStandardsJourney(world: GetWorld): void {
  describe("loans against a programmable NFT and a Core asset (#32)", () => {
    const lenderKey = Keypair.generate();
    const borrowerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let borrower: Page;
    let pnft: { mint: string; name: string };
    let core: { asset: string; name: string };
    let pool: string;

    const me = () => borrowerKey.publicKey.toBase58() as Address;
    const rpcUrl = () => world().stack.localnet.rpcUrl;

    /** The borrower's token account of the pNFT: owner, amount, and its token record (lock, delegate). */
    async function pnftState(owner: Address) {
      const token = await findAssociatedTokenPda(owner, pnft.mint as Address);
      const data = await getAccountData(rpcUrl(), token).catch(() => null);
      const [record] = await findTokenRecordPda(pnft.mint as Address, token);
      const recordData = await getAccountData(rpcUrl(), record).catch(() => null);
      return {
        owner: data ? addressFromBytes(data.subarray(32, 64)) : null,
        amount: data ? Buffer.from(data).readBigUInt64LE(64) : 0n,
        record: recordData ? decodeTokenRecord(recordData) : null,
      };
    }

    const coreOwner = async () => decodeCoreAsset(await getAccountData(rpcUrl(), core.asset))?.owner;

    /** The borrower's ongoing loan on `collateral` from the chain (the program's accounts by borrower). */
    async function loanOn(collateral: string) {
      const loans = await world().stack.tx.state.getBorrowerLoans(me());
      const found = loans.find((l) => l.loan.collateralMint === collateral && l.loan.status === "Ongoing");
      if (!found) throw new Error(`no ongoing loan on ${collateral}`);
      return {
        pubkey: found.pubkey,
        status: found.loan.status,
        nftType: found.loan.nftType,
        pool: found.loan.pool,
      };
    }

    beforeAll(async () => {
      for (const key of [lenderKey, borrowerKey]) {
        const [given] = await fundJourneyWallet(world(), key);
        if (key === borrowerKey) {
          pnft = given!.programmableNfts[0]!;
          core = given!.coreAssets[0]!;
        }
      }
      borrower = await openJourneyPage(world(), borrowerKey, pageErrors);
    }, 120_000);
    afterAll(() => closePages(borrower));

    it("a lender lends against both standards; the borrower sees each asset's standard at 1280 and 360 px", async () => {
      const { stack } = world();
      await createNftPoolThroughApi(stack, lenderKey, {
        seed: "32",
        collections: [DEMO_PNFT_COLLECTION.collectionId, DEMO_CORE_COLLECTION.collectionId],
      });
      pool = await getPoolOf(world(), lenderKey);
      await borrower.goto(`${stack.webUrl}/borrow`);
      const list = borrower.getByTestId("nft-list");
      const petrel = list.getByRole("button", { name: new RegExp(pnft.name.replace(/[#]/g, "\\$&")) });
      const koi = list.getByRole("button", { name: new RegExp(core.name.replace(/[#]/g, "\\$&")) });
      await petrel.getByText("Best offer").waitFor({ timeout: 30_000 });
      expect(await petrel.getByTestId("nft-standard").textContent()).toContain("Programmable NFT");
      expect(await koi.getByTestId("nft-standard").textContent()).toContain("Core asset");
      await borrower.setViewportSize({ width: 360, height: 740 });
      await petrel.click();
      await borrower.getByTestId("custody-note").waitFor();
      // the loan panel fits the phone: no sideways scrolling
      expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(borrower, "32-borrow-pnft-360");
      await borrower.setViewportSize({ width: 1280, height: 900 });
    }, 240_000);

    it("borrows against the pNFT (locked in the wallet, the loan its delegate) and the Core asset (owned by the loan)", async () => {
      const { stack } = world();
      await borrowNftOnPage(borrower, stack.webUrl, { nftName: pnft.name, amount: "20", days: "1", pool });
      const pnftLoan = await loanOn(pnft.mint);
      expect([pnftLoan.nftType, pnftLoan.pool]).toEqual(["ProgrammableNft", pool]);
      expect(await pnftState(me())).toEqual({
        owner: me(),
        amount: 1n,
        record: { state: "Locked", delegate: pnftLoan.pubkey },
      });
      await borrowNftOnPage(borrower, stack.webUrl, { nftName: core.name, amount: "20", days: "1", pool });
      const coreLoan = await loanOn(core.asset);
      expect([coreLoan.nftType, coreLoan.pool]).toEqual(["CoreNft", pool]);
      expect(await coreOwner()).toBe(coreLoan.pubkey);
    }, 240_000);

    it("repays the pNFT loan on the Loans page at 360 px: unlocked, no delegate, still in the wallet", async () => {
      const { stack } = world();
      const pnftLoan = await loanOn(pnft.mint);
      await borrower.setViewportSize({ width: 360, height: 740 });
      await borrower.goto(`${stack.webUrl}/loans`);
      const ongoing = borrower.getByTestId("ongoing-loans");
      const row = ongoing.locator("tbody tr", { hasText: pnft.name }).first();
      await row.waitFor({ timeout: 30_000 });
      // the row names the standard and offers Repay, Extend and Instant sell (the program sells a pNFT loan too)
      expect(await row.getByTestId("loan-standard").textContent()).toContain("Programmable NFT");
      expect(await row.getByRole("button", { name: "Extend" }).count()).toBe(1);
      expect(await row.getByTestId("instant-sell").count()).toBe(1);
      await shot(borrower, "32-loans-pnft-360");
      await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
      await borrower.setViewportSize({ width: 1280, height: 900 });
      const data = await getAccountData(rpcUrl(), pnftLoan.pubkey);
      expect(decodeLoanAccount(data).status).toBe("Repaid");
      expect(await pnftState(me())).toEqual({
        owner: me(),
        amount: 1n,
        record: { state: "Unlocked", delegate: null },
      });
    }, 240_000);

    it("lets the Core loan default: after a clock jump the keeper hands the asset to the pool owner", async () => {
      const { stack } = world();
      const coreLoan = await loanOn(core.asset);
      await rpc(rpcUrl(), "localnet_advanceClock", [86_400 + 2 * 3_600]);
      await new Promise((r) => setTimeout(r, 1_000));
      const round = await stack.runKeeperRound();
      expect(round.liquidated.map((l) => l.loan)).toContain(coreLoan.pubkey);
      expect(await coreOwner()).toBe(lenderKey.publicKey.toBase58());
      expect(decodeLoanAccount(await getAccountData(rpcUrl(), coreLoan.pubkey)).status).toBe("Liquidated");
      expect(pageErrors).toEqual([]);
    }, 240_000);
  });
}
