import { USDC_MINT } from "@cistern/protocol";
import {
  addressFromBytes,
  decodeLoanAccount,
  decodePoolAccount,
  decodeTokenRecord,
  findAssociatedTokenPda,
  findTokenRecordPda,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PNFT_COLLECTION } from "../../../api/test/helpers/nft-standards-catalog.ts";
import { nftPoolUpdateBody } from "../../../api/test/tx/support/tx-world.ts";
import { getAccountData } from "../chain-reads.ts";
import {
  confirmed,
  createNftPoolThroughApi,
  NFT_POOL_LIMITS,
  sendThroughApi,
  shot,
} from "../journey-helpers.ts";
import { closePages, fundJourneyWallet, type GetWorld, getPoolOf, openJourneyPage } from "./world.ts";

// Issue #32, the mortgage of a programmable NFT in the browser: a seller lists two Storm Petrels on the NFT market, a
// lender's pool finances the collection with mortgages, and a new wallet buys one with a mortgage on Buy NFTs at
// 1280 px and the other at 360 px. After each, the chain: the buyer's associated token account holds the pNFT, its
// token record is Locked with the loan PDA as the delegate, and the loan is an Ongoing Mortgage of a pNFT at its
// pool's mortgage APR. In the shared world another journey's pool may also finance the petrels: the loan's pool is
// read from the chain, not assumed.

const PETL = DEMO_PNFT_COLLECTION.collectionId;

export function registerPnftMortgageJourney(world: GetWorld): void {
  describe("a pNFT bought with a mortgage in the browser (#32)", () => {
    const lenderKey = Keypair.generate();
    const buyerKey = Keypair.generate();
    const sellerKey = Keypair.generate();
    const pageErrors: string[] = [];
    let buyer: Page;
    let listed: { mint: string; name: string }[] = [];

    const me = () => buyerKey.publicKey.toBase58();
    const rpcUrl = () => world().stack.localnet.rpcUrl;

    /** The buyer's ongoing loan on `mint`, from the chain. */
    async function loanOn(mint: string): Promise<string> {
      const loans = await world().stack.tx.state.getBorrowerLoans(me() as Address);
      const found = loans.find((l) => l.loan.collateralMint === mint && l.loan.status === "Ongoing");
      if (!found) throw new Error(`no ongoing loan on ${mint}`);
      return found.pubkey;
    }

    /** Buys `nft` with a mortgage on Buy NFTs at the page's current width, then reads the chain. */
    async function buyWithMortgage(nft: { mint: string; name: string }, width: number) {
      const { stack } = world();
      await buyer.goto(`${stack.webUrl}/buy`);
      const card = buyer.getByTestId("mortgage-listing").filter({ hasText: nft.name }).first();
      await card.waitFor({ timeout: 30_000 });
      expect(await card.getByTestId("listing-collection").textContent()).toContain("Programmable NFT");
      expect(await buyer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await card.getByTestId("mortgage-choose").click();
      const panel = card.getByTestId("mortgage-panel");
      const sentence = panel.getByTestId("mortgage-sentence");
      await sentence.waitFor({ timeout: 30_000 });
      expect(await sentence.textContent()).toContain("the NFT stays in your wallet, locked to the loan");
      await shot(buyer, `32-pnft-mortgage-${width}`);
      await confirmed(buyer, () => panel.getByTestId("mortgage-submit").click());

      // the chain: the buyer's own token account holds it, delegated to the loan PDA and locked
      const loan = await loanOn(nft.mint);
      const token = await findAssociatedTokenPda(me() as Address, nft.mint as Address);
      const held = await getAccountData(rpcUrl(), token);
      expect(addressFromBytes(held.subarray(32, 64))).toBe(me());
      expect(Buffer.from(held).readBigUInt64LE(64)).toBe(1n);
      const [record] = await findTokenRecordPda(nft.mint as Address, token);
      expect(decodeTokenRecord(await getAccountData(rpcUrl(), record))).toEqual({
        state: "Locked",
        delegate: loan,
      });
      const account = decodeLoanAccount(await getAccountData(rpcUrl(), loan));
      expect([account.status, account.kind, account.nftType, account.escrow]).toEqual([
        "Ongoing",
        "Mortgage",
        "ProgrammableNft",
        token,
      ]);
      const pool = decodePoolAccount(await getAccountData(rpcUrl(), account.pool));
      expect([pool.flags.mortgage, account.aprBps]).toEqual([true, pool.mortgageAprBps]);
    }

    beforeAll(async () => {
      const { stack } = world();
      await fundJourneyWallet(world(), lenderKey);
      await fundJourneyWallet(world(), buyerKey);
      // two faucet calls: two Storm Petrels to list
      listed = (await fundJourneyWallet(world(), sellerKey, 2)).map((g) => g.programmableNfts[0]!);
      // a lender lends against the petrels and offers mortgages at 12%
      await createNftPoolThroughApi(stack, lenderKey, { seed: "3202", collections: [PETL] });
      const pool = await getPoolOf(world(), lenderKey);
      await sendThroughApi(
        stack,
        lenderKey,
        "/nft/update-pool",
        nftPoolUpdateBody({
          pool,
          owner: lenderKey.publicKey.toBase58(),
          apr: 3650,
          limits: NFT_POOL_LIMITS,
          collections: [PETL],
          mortgageApr: 1200,
        }),
      );
      // the seller lists both through the API (Token Metadata moves each to its listing PDA)
      for (const [i, nft] of listed.entries())
        await sendThroughApi(stack, sellerKey, "/nft/list", {
          seller: sellerKey.publicKey.toBase58(),
          nftMint: nft.mint,
          currency: USDC_MINT,
          price: String(40_000_000 + i * 5_000_000),
        });
      buyer = await openJourneyPage(world(), buyerKey, pageErrors);
    }, 180_000);
    afterAll(() => closePages(buyer));

    it("buys a Storm Petrel with a mortgage at 1280 px: in the buyer's wallet, delegated to the loan and locked", async () => {
      await buyer.setViewportSize({ width: 1280, height: 900 });
      await buyWithMortgage(listed[0]!, 1280);
    }, 240_000);

    it("buys another with a mortgage at 360 px: the same custody, read from the chain", async () => {
      await buyer.setViewportSize({ width: 360, height: 740 });
      await buyWithMortgage(listed[1]!, 360);
      await buyer.setViewportSize({ width: 1280, height: 900 });
      expect(pageErrors).toEqual([]);
    }, 240_000);
  });
}
