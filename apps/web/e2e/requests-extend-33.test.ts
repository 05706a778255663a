/**
 * @vitest-environment node
 */
import { mkdir } from "node:fs/promises";
import { DEMO_WORLD } from "@cistern/localnet";
import { USDC_MINT } from "@cistern/protocol";
import { decodeCoreAsset, decodeLoanAccount, decodeRequestAccount, findBankPda } from "@cistern/sdk";
import {
  type Address,
  createKeyPairSignerFromBytes,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
} from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../api/src/tx/builder/protocol-lookup-table.ts";
import { dasOwner as dasOwnerAt } from "../../api/test/helpers/das-owner.ts";
import { createFixedValuationSources } from "../../api/test/helpers/fixed-valuation.ts";
import {
  ALL_STANDARDS_PRICES,
  writeCatalogWithAllStandards,
} from "../../api/test/helpers/nft-standards-catalog.ts";
import { getAccountData } from "./chain-reads.ts";
import { launchChromium, makeTempDir, removeDir, TEST_OUTPUT_DIR } from "./harness.ts";
import { borrowNftOnPage, confirmed, openAs, shot } from "./journey-helpers.ts";
import { JOURNEY_SLOT_MS, type Stack, startStack } from "./stack.ts";

// Issues #32 and #33 on a world of their own: a borrower posts a loan request against a Metaplex Core asset in the
// browser and a second wallet fills it from the Lend page (the asset passes from the request to the loan); the
// borrower borrows against a compressed NFT and extends that loan on the Loans page at 360 px (the leaf passes from the
// old loan to the new one with a proof taken at build time). The chain is read after each step: the Core asset's owner,
// the leaf's owner through the localnet's DAS getAsset.

const SHELLS = DEMO_WORLD.compressedCollections[0]!;
let stack: Stack | undefined;
let browser: Browser | undefined;
let catalogDir: string | undefined;
let borrower: Page;
let lender: Page;
const lenderKey = Keypair.generate();
const borrowerKey = Keypair.generate();
const pageErrors: string[] = [];
let core: { asset: string; name: string };
let shell: { assetId: string; name: string };

beforeAll(async () => {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  catalogDir = await makeTempDir("cistern-requests-catalog-");
  stack = await startStack({
    slotMs: JOURNEY_SLOT_MS,
    env: { CATALOG_FILE: writeCatalogWithAllStandards(catalogDir) },
    valuationSources: createFixedValuationSources({
      tokens: ALL_STANDARDS_PRICES.tokens,
      collections: { ...ALL_STANDARDS_PRICES.collections, [SHELLS.collectionId]: 10_000_000_000n },
    }),
  });
  for (const key of [lenderKey, borrowerKey]) {
    const given = await stack.localnet.faucet(key.publicKey.toBase58());
    await stack.localnet.fundWallet(key.publicKey.toBase58(), { lamports: 100_000_000_000n });
    if (key === borrowerKey) {
      core = given.coreAssets[0]!;
      shell = given.compressedNfts[0]!;
    }
  }
  // the protocol's lookup table, as `npm start` creates it (its keeper's start): a compressed NFT's take-loan needs it
  await ensureProtocolLookupTable(stack.tx, await createKeyPairSignerFromBytes(lenderKey.secretKey));
  await new Promise((r) => setTimeout(r, 500));
  stack.tx.state.invalidate();
  browser = await launchChromium();
  borrower = await openAs(browser, borrowerKey, pageErrors);
  lender = await openAs(browser, lenderKey, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await removeDir(catalogDir);
});

const me = () => borrowerKey.publicKey.toBase58();

async function coreOwner(): Promise<string | undefined> {
  return decodeCoreAsset(await getAccountData(stack!.localnet.rpcUrl, core.asset))?.owner;
}

const dasOwner = async (assetId: string) => (await dasOwnerAt(stack!.localnet.rpcUrl, assetId))!;

/** The lender's USDC pool lending against the compressed collection, built by the API and signed with its key. */
async function createPoolThroughApi(): Promise<void> {
  const owner = lenderKey.publicKey.toBase58();
  const [bank] = await findBankPda(stack!.programId as Address, owner as Address, USDC_MINT as Address);
  const api = async (path: string, body: unknown) =>
    (await fetch(`${stack!.apiUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.json())) as Record<string, unknown>;
  const built = (await api("/nft/create-pool", {
    bank,
    owner,
    amount: "2000000000",
    mint: USDC_MINT,
    seed: "33",
    param: {
      apr: 3650,
      limits: { minDuration: 86_400, maxDuration: 7 * 86_400, maxAmountUsd: 1000, minAmountUsd: 1 },
      collections: [{ collection: SHELLS.collectionId, collectionLtv: 5000, exposure: 10000 }],
    },
  })) as unknown as { transactions: string[]; lastValidBlockHeight: number; kind: string };
  const signer = await createKeyPairSignerFromBytes(lenderKey.secretKey);
  for (const b64 of built.transactions) {
    const transaction = getBase64EncodedWireTransaction(
      await partiallySignTransaction(
        [signer.keyPair],
        getTransactionDecoder().decode(Buffer.from(b64, "base64")),
      ),
    );
    const sent = await api("/send-transaction", { transaction, blockHeight: built.lastValidBlockHeight });
    expect(sent.result).not.toBeNull();
  }
}

describe("loan requests against a Core asset, Extend of a compressed NFT loan (#32, #33)", () => {
  it("the borrower posts a request against the Core asset: the request owns it", async () => {
    await createPoolThroughApi();
    await borrower.goto(`${stack!.webUrl}/borrow`);
    const list = borrower.getByTestId("nft-list");
    await list.waitFor({ timeout: 30_000 });
    await list.getByRole("button", { name: new RegExp(core.name.replace(/[#]/g, "\\$&")) }).click();
    const form = borrower.getByTestId("request-form");
    await form.waitFor({ timeout: 30_000 });
    // no pool lends against the Core collection: the request form is open from the start
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
    const request = decodeRequestAccount(await getAccountData(stack!.localnet.rpcUrl, holder));
    expect([request.status, request.nftType, request.borrower, request.escrow]).toEqual([
      "Open",
      "CoreNft",
      me(),
      core.asset,
    ]);
  }, 240_000);

  it("a second wallet fills it from the Lend page at 360 px: the loan owns the asset", async () => {
    const requestAddress = (await coreOwner())!;
    await lender.setViewportSize({ width: 360, height: 740 });
    await lender.goto(`${stack!.webUrl}/lend`);
    await lender.getByRole("tab", { name: "USDC" }).click();
    const card = lender.getByTestId("request-row").filter({ hasText: "asks for 20 USDC for 5 days" }).first();
    await card.waitFor({ timeout: 30_000 });
    await card.scrollIntoViewIfNeeded();
    const box = (await card.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    await shot(lender, "33-request-core-360");
    await confirmed(lender, () => card.getByTestId("fill-request").click());
    await lender.setViewportSize({ width: 1280, height: 900 });
    const loanAddress = (await coreOwner())!;
    expect(loanAddress).not.toBe(requestAddress);
    const loan = decodeLoanAccount(await getAccountData(stack!.localnet.rpcUrl, loanAddress));
    expect([loan.kind, loan.status, loan.nftType, loan.borrower, loan.escrow]).toEqual([
      "RequestLoan",
      "Ongoing",
      "CoreNft",
      me(),
      core.asset,
    ]);
    expect(decodeRequestAccount(await getAccountData(stack!.localnet.rpcUrl, requestAddress)).status).toBe(
      "Filled",
    );
  }, 240_000);

  it("borrows against the compressed NFT and extends the loan on the Loans page at 360 px: the new loan owns the leaf", async () => {
    await borrowNftOnPage(borrower, stack!.webUrl, { nftName: shell.name, amount: "20", days: "2" });
    const first = await dasOwner(shell.assetId);
    expect(decodeLoanAccount(await getAccountData(stack!.localnet.rpcUrl, first)).nftType).toBe(
      "CompressedNft",
    );
    // the tree changes (another wallet's faucet mints a leaf) before the extension is built
    await stack!.localnet.faucet(Keypair.generate().publicKey.toBase58());
    await borrower.setViewportSize({ width: 360, height: 740 });
    await borrower.goto(`${stack!.webUrl}/loans`);
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
    const extended = decodeLoanAccount(await getAccountData(stack!.localnet.rpcUrl, next));
    expect([extended.status, extended.nftType, extended.previousLoan]).toEqual([
      "Ongoing",
      "CompressedNft",
      first,
    ]);
    const old = decodeLoanAccount(await getAccountData(stack!.localnet.rpcUrl, first));
    expect([old.status, old.closedBy]).toEqual(["Repaid", "Extended"]);
    expect(pageErrors).toEqual([]);
  }, 300_000);
});
