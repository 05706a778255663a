/**
 * @vitest-environment node
 */
import { mkdir } from "node:fs/promises";
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
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFixedValuationSources } from "../../api/test/helpers/fixed-valuation.ts";
import {
  ALL_STANDARDS_PRICES,
  DEMO_CORE_COLLECTION,
  DEMO_PNFT_COLLECTION,
  writeCatalogWithAllStandards,
} from "../../api/test/helpers/nft-standards-catalog.ts";
import { getAccountData } from "./chain-reads.ts";
import { launchChromium, makeTempDir, removeDir, TEST_OUTPUT_DIR } from "./harness.ts";
import { borrowNftOnPage, confirmed, createNftPoolThroughApi, openAs, shot } from "./journey-helpers.ts";
import { JOURNEY_SLOT_MS, rpc, type Stack, startStack } from "./stack.ts";

// Issue #32 on a world of its own (the journeys' stack): a new user borrows against a programmable NFT and a
// Metaplex Core asset in the browser, repays one and lets the other default; after a clock jump the keeper hands it to
// the pool owner. The asset's on-chain state (owner, delegate, lock) is read at each step. Collection values are the
// API's fixed test prices (the local NFT market values classic collections only).

let stack: Stack | undefined;
let browser: Browser | undefined;
let catalogDir: string | undefined;
let borrower: Page;
const lenderKey = Keypair.generate();
const borrowerKey = Keypair.generate();
const pageErrors: string[] = [];
let pnft: { mint: string; name: string };
let core: { asset: string; name: string };

beforeAll(async () => {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  catalogDir = await makeTempDir("cistern-standards-catalog-");
  stack = await startStack({
    slotMs: JOURNEY_SLOT_MS,
    env: { CATALOG_FILE: writeCatalogWithAllStandards(catalogDir) },
    valuationSources: createFixedValuationSources(ALL_STANDARDS_PRICES),
  });
  // the demo rule set lets only the programs it lists hold a delegate of (or receive) the demo pNFTs
  await stack.localnet.setDemoRuleSetPrograms([stack.programId]);
  for (const key of [lenderKey, borrowerKey]) {
    const given = await stack.localnet.faucet(key.publicKey.toBase58());
    await stack.localnet.fundWallet(key.publicKey.toBase58(), { lamports: 100_000_000_000n });
    if (key === borrowerKey) {
      pnft = given.programmableNfts[0]!;
      core = given.coreAssets[0]!;
    }
  }
  browser = await launchChromium();
  borrower = await openAs(browser, borrowerKey, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await removeDir(catalogDir);
});

const me = () => borrowerKey.publicKey.toBase58() as Address;

/** The borrower's token account of the pNFT: owner, amount, and its token record (lock, delegate). */
async function pnftState(owner: Address) {
  const token = await findAssociatedTokenPda(owner, pnft.mint as Address);
  const data = await getAccountData(stack!.localnet.rpcUrl, token).catch(() => null);
  const [record] = await findTokenRecordPda(pnft.mint as Address, token);
  const recordData = await getAccountData(stack!.localnet.rpcUrl, record).catch(() => null);
  return {
    owner: data ? addressFromBytes(data.subarray(32, 64)) : null,
    amount: data ? Buffer.from(data).readBigUInt64LE(64) : 0n,
    record: recordData ? decodeTokenRecord(recordData) : null,
  };
}

async function coreOwner(): Promise<string | undefined> {
  return decodeCoreAsset(await getAccountData(stack!.localnet.rpcUrl, core.asset))?.owner;
}

/** The borrower's ongoing loan on `collateral` from the chain (the program's accounts by borrower). */
async function loanOn(collateral: string): Promise<{ pubkey: string; status: string; nftType: string }> {
  const loans = await stack!.tx.state.getBorrowerLoans(me());
  const found = loans.find((l) => l.loan.collateralMint === collateral && l.loan.status === "Ongoing");
  if (!found) throw new Error(`no ongoing loan on ${collateral}`);
  return { pubkey: found.pubkey, status: found.loan.status, nftType: found.loan.nftType };
}

describe("loans against a programmable NFT and a Core asset (#32)", () => {
  it("a lender lends against both standards; the borrower sees each asset's standard at 1280 and 360 px", async () => {
    await createNftPoolThroughApi(stack!, lenderKey, {
      seed: "32",
      collections: [DEMO_PNFT_COLLECTION.collectionId, DEMO_CORE_COLLECTION.collectionId],
    });
    await borrower.goto(`${stack!.webUrl}/borrow`);
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
    await borrowNftOnPage(borrower, stack!.webUrl, { nftName: pnft.name, amount: "20", days: "1" });
    const pnftLoan = await loanOn(pnft.mint);
    expect(pnftLoan.nftType).toBe("ProgrammableNft");
    expect(await pnftState(me())).toEqual({
      owner: me(),
      amount: 1n,
      record: { state: "Locked", delegate: pnftLoan.pubkey },
    });
    await borrowNftOnPage(borrower, stack!.webUrl, { nftName: core.name, amount: "20", days: "1" });
    const coreLoan = await loanOn(core.asset);
    expect(coreLoan.nftType).toBe("CoreNft");
    expect(await coreOwner()).toBe(coreLoan.pubkey);
  }, 240_000);

  it("repays the pNFT loan on the Loans page at 360 px: unlocked, no delegate, still in the wallet", async () => {
    const pnftLoan = await loanOn(pnft.mint);
    await borrower.setViewportSize({ width: 360, height: 740 });
    await borrower.goto(`${stack!.webUrl}/loans`);
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
    const data = await getAccountData(stack!.localnet.rpcUrl, pnftLoan.pubkey);
    expect(decodeLoanAccount(data).status).toBe("Repaid");
    expect(await pnftState(me())).toEqual({
      owner: me(),
      amount: 1n,
      record: { state: "Unlocked", delegate: null },
    });
  }, 240_000);

  it("lets the Core loan default: after a clock jump the keeper hands the asset to the pool owner", async () => {
    const coreLoan = await loanOn(core.asset);
    await rpc(stack!.localnet.rpcUrl, "localnet_advanceClock", [86_400 + 2 * 3_600]);
    await new Promise((r) => setTimeout(r, 1_000));
    const round = await stack!.runKeeperRound();
    expect(round.liquidated.map((l) => l.loan)).toContain(coreLoan.pubkey);
    expect(await coreOwner()).toBe(lenderKey.publicKey.toBase58());
    expect(decodeLoanAccount(await getAccountData(stack!.localnet.rpcUrl, coreLoan.pubkey)).status).toBe(
      "Liquidated",
    );
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
