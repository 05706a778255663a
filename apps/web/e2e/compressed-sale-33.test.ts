/**
 * @vitest-environment node
 */
import { mkdir } from "node:fs/promises";
import { DEMO_WORLD } from "@cistern/localnet";
import { USDC_MINT } from "@cistern/protocol";
import {
  decodeLoanAccount,
  decodeMarketBid,
  decodeVenuesAccount,
  findVenuesPda,
  getPlaceBidInstruction,
} from "@cistern/sdk";
import { type Address, createKeyPairSignerFromBytes, generateKeyPairSigner } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../api/src/tx/builder/protocol-lookup-table.ts";
import { findAssociatedTokenAddress } from "../../api/src/tx/builder/wire-instructions.ts";
import { dasOwner } from "../../api/test/helpers/das-owner.ts";
import { createFixedValuationSources, DEMO_PRICES } from "../../api/test/helpers/fixed-valuation.ts";
import { sendAsAdmin } from "../../api/test/tx/support/tx-world.ts";
import { getAccountData, getTokenBalance, parseShownUsdc } from "./chain-reads.ts";
import { launchChromium, TEST_OUTPUT_DIR } from "./harness.ts";
import { borrowNftOnPage, confirmed, createNftPoolThroughApi, openAs, shot } from "./journey-helpers.ts";
import { JOURNEY_SLOT_MS, type Stack, startStack } from "./stack.ts";

// Issue #33, the instant sell of a loan against a compressed NFT in the browser (a world of its own, the journeys'
// stack): a borrower borrows against a leaf of "Cistern Shells", then on a 360 px phone sells the loan instantly into
// a collection bid; the leaf's owner is read through the localnet's DAS (getAsset) before and after, the loan from the
// chain. Collection values are the API's fixed test prices.

const SHELLS = DEMO_WORLD.compressedCollections[0]!;

let stack: Stack | undefined;
let browser: Browser | undefined;
let borrower: Page;
const lenderKey = Keypair.generate();
const borrowerKey = Keypair.generate();
const bidderKey = Keypair.generate();
const pageErrors: string[] = [];
let leaf: { assetId: string; name: string };

const me = () => borrowerKey.publicKey.toBase58() as Address;
const leafOwner = (assetId: string) => dasOwner(stack!.localnet.rpcUrl, assetId);

/** The borrower's ongoing loan on `assetId`, from the chain. */
async function loanOn(assetId: string): Promise<string> {
  const loans = await stack!.tx.state.getBorrowerLoans(me());
  const found = loans.find((l) => l.loan.collateralMint === assetId && l.loan.status === "Ongoing");
  if (!found) throw new Error(`no ongoing loan on ${assetId}`);
  return found.pubkey;
}

beforeAll(async () => {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  stack = await startStack({
    slotMs: JOURNEY_SLOT_MS,
    valuationSources: createFixedValuationSources({
      tokens: DEMO_PRICES.tokens,
      collections: { ...DEMO_PRICES.collections, [SHELLS.collectionId]: 10_000_000_000n },
    }),
  });
  for (const key of [lenderKey, borrowerKey, bidderKey]) {
    const given = await stack.localnet.faucet(key.publicKey.toBase58());
    await stack.localnet.fundWallet(key.publicKey.toBase58(), { lamports: 100_000_000_000n });
    if (key === borrowerKey) {
      const c = given.compressedNfts[0]!;
      leaf = { assetId: c.assetId, name: c.name };
    }
  }
  await createNftPoolThroughApi(stack, lenderKey, { seed: "3301", collections: [SHELLS.collectionId] });
  // a bidder wants any Shell for 100 USDC
  const [venues] = await findVenuesPda(stack.programId as Address);
  const market = decodeVenuesAccount(await getAccountData(stack.localnet.rpcUrl, venues)).marketProgram;
  const bidder = bidderKey.publicKey.toBase58() as Address;
  await sendAsAdmin(stack.api, stack.tx, await createKeyPairSignerFromBytes(bidderKey.secretKey), [
    await getPlaceBidInstruction({
      programAddress: market,
      bidder,
      nonce: 3301n,
      collection: SHELLS.collectionId as Address,
      currencyMint: USDC_MINT as Address,
      bidderCurrencyAccount: await findAssociatedTokenAddress(bidder, USDC_MINT as Address),
      price: 100_000_000n,
    }),
  ]);
  // the protocol's lookup table, as `npm start`'s keeper creates it (a leaf's transactions carry a proof)
  const payer = await generateKeyPairSigner();
  await stack.localnet.fundWallet(payer.address, { lamports: 1_000_000_000n });
  await ensureProtocolLookupTable(stack.tx, payer);
  browser = await launchChromium();
  borrower = await openAs(browser, borrowerKey, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("the instant sell of a compressed NFT loan in the browser (#33)", () => {
  it("sells a loan against a compressed NFT instantly at 360 px: DAS names the bidder the leaf's owner, the loan is Sold", async () => {
    await borrowNftOnPage(borrower, stack!.webUrl, { nftName: leaf.name, amount: "20", days: "7" });
    const loan = await loanOn(leaf.assetId);
    expect(await leafOwner(leaf.assetId)).toBe(loan);
    await borrower.setViewportSize({ width: 360, height: 740 });
    await borrower.goto(`${stack!.webUrl}/loans`);
    const row = borrower.locator(`tr[data-loan="${loan}"]`);
    await row.waitFor({ timeout: 30_000 });
    expect(await row.getByTestId("loan-standard").textContent()).toContain("Compressed NFT");
    expect(await row.getByTestId("instant-sell").isVisible()).toBe(true);
    expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await shot(borrower, "33-cnft-loan-row-360");
    // the best Shells bid in USDC (ours, or the demo market maker's), as the API quotes it
    const quote = (await (
      await fetch(`${stack!.apiUrl}/nft/instant-sell-quote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ borrower: me(), loan }),
      })
    ).json()) as { bid: string; bidPrice: string };
    const best = decodeMarketBid(await getAccountData(stack!.localnet.rpcUrl, quote.bid));
    expect(best.price >= 100_000_000n).toBe(true);
    await row.getByTestId("instant-sell").click();
    const sell = borrower.getByTestId("instant-sell-panel");
    await sell.getByTestId("instant-sell-quote").waitFor({ timeout: 30_000 });
    expect(parseShownUsdc((await sell.getByTestId("instant-sell-bid").textContent()) ?? "")).toBe(best.price);
    expect(await borrower.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await shot(borrower, "33-cnft-instant-sell-360");
    const before = await getTokenBalance(stack!.localnet.rpcUrl, me(), USDC_MINT);
    await confirmed(borrower, () => sell.getByTestId("instant-sell-submit").click());
    // the chain: DAS names the bidder the leaf's owner, the loan is Sold, the borrower kept the bid less the repayment
    expect(await leafOwner(leaf.assetId)).toBe(best.bidder);
    const sold = decodeLoanAccount(await getAccountData(stack!.localnet.rpcUrl, loan));
    expect([sold.status, sold.nftType]).toEqual(["Sold", "CompressedNft"]);
    expect(await getTokenBalance(stack!.localnet.rpcUrl, me(), USDC_MINT)).toBe(
      before + best.price - sold.repaidAmount,
    );
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
