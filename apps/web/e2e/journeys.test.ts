/**
 * @vitest-environment node
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { SOL_MINT, USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, TEST_OUTPUT_DIR } from "./harness.ts";
import { rpc, type Stack, startStack } from "./stack.ts";

let stack: Stack | undefined;
let browser: Browser | undefined;
const contexts: BrowserContext[] = [];
let lender: Page;
let borrower: Page;
const lenderKey = Keypair.generate();
const borrowerKey = Keypair.generate();
const pageErrors: string[] = [];
let faucetNfts: { mint: string; collectionId: string; name: string }[] = [];

async function openAs(keypair: Keypair): Promise<Page> {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  await context.addInitScript(
    (secret: string) => {
      localStorage.setItem("cistern-dev-wallet-secret", secret);
      localStorage.setItem("walletName", JSON.stringify("Development Wallet (localnet)"));
    },
    JSON.stringify(Array.from(keypair.secretKey)),
  );
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  return page;
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(TEST_OUTPUT_DIR, `journey-${name}.png`), fullPage: true });
}

/** Runs `act` and waits for one more "Transaction Success" toast; a failure toast throws its text. */
async function confirmed(page: Page, act: () => Promise<void>, count = 1) {
  const success = page.locator(".toast-title", { hasText: "Transaction Success" });
  const before = await success.count();
  await act();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const failed = page.locator(".toast-error .toast-title");
    if ((await failed.count()) > 0) {
      const texts = await page.locator(".toast-error").allTextContents();
      throw new Error(`transaction failed: ${texts.join(" | ")}`);
    }
    if ((await success.count()) >= before + count) return;
    await page.waitForTimeout(150);
  }
  throw new Error("no confirmation within 60 s");
}

async function tokenBalance(owner: string, mint: string): Promise<bigint> {
  const result = await rpc<{
    value: { account: { data: { parsed: { info: { tokenAmount: { amount: string } } } } } }[];
  }>(stack!.localnet.rpcUrl, "getTokenAccountsByOwner", [owner, { mint }, { encoding: "jsonParsed" }]);
  return result.value.reduce((s, a) => s + BigInt(a.account.data.parsed.info.tokenAmount.amount), 0n);
}

beforeAll(async () => {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  stack = await startStack();
  for (const key of [lenderKey, borrowerKey]) {
    const given = await stack.localnet.faucet(key.publicKey.toBase58());
    await stack.localnet.fundWallet(key.publicKey.toBase58(), { lamports: 100_000_000_000n });
    if (key === borrowerKey) faucetNfts = given.nfts;
  }
  browser = await launchChromium();
  lender = await openAs(lenderKey);
  borrower = await openAs(borrowerKey);
}, 300_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await stack?.close();
});

describe("journeys (headless Chromium, localnet, API write path)", { timeout: 180_000 }, () => {
  it("a lender creates a USDC nft-pool (bank opened by the deposit) and the bank matches the chain", async () => {
    const collection = faucetNfts[0]!.collectionId;
    await lender.goto(`${stack!.webUrl}/my-pools/new`);
    const form = lender.getByRole("form", { name: "Create pool" });
    await form.waitFor({ timeout: 30_000 });
    await lender.getByTestId("first-bank-note").waitFor({ timeout: 30_000 });
    // Bad input first: the message shows and nothing is sent.
    await form.getByRole("button", { name: "Create pool" }).click();
    await form.getByText("Enter how much to put in the pool.").waitFor();
    expect(await lender.locator(".toast-title", { hasText: /Transaction|Preparing|Waiting/ }).count()).toBe(
      0,
    );

    await form.getByLabel("Currency").selectOption(USDC_MINT);
    await form.getByLabel("Amount to lend").fill("500");
    await form.getByLabel("APY (%)").fill("36.5");
    await form.getByLabel("Maximum duration (days)").fill("7");
    await form.getByLabel("Maximum loan (USD)").fill("1000");
    await form.getByRole("button", { name: "Add collection" }).click();
    await form.getByLabel("Collection").selectOption(collection);
    await form.getByLabel("LTV (%)").fill("60");
    await shot(lender, "01-create-nft-pool");
    await confirmed(lender, () => form.getByRole("button", { name: "Create pool" }).click(), 2);
    await lender.waitForURL(/\/my-pools$/);
    const pools = lender.getByTestId("my-pools");
    await pools.waitFor({ timeout: 30_000 });
    const bank = lender.getByTestId("bank").first();
    await bank.waitFor();
    const vaultUsdc = await rpc<{ value: { amount: string } }>(
      stack!.localnet.rpcUrl,
      "getTokenAccountBalance",
      [await bankVault(lenderKey.publicKey.toBase58(), USDC_MINT)],
    );
    expect(vaultUsdc.value.amount).toBe("500000000");
    await bank.getByText("500 USDC").first().waitFor();
    await shot(lender, "02-my-pools");
  });
});

async function bankVault(owner: string, mint: string): Promise<string> {
  const banks = (await (await fetch(`${stack!.apiUrl}/bank/user?pubkey=${owner}`)).json()) as {
    mint: string;
    vault: string;
  }[];
  const bank = banks.find((b) => b.mint === mint);
  if (!bank) throw new Error(`no ${mint} bank for ${owner}`);
  return bank.vault;
}

export { SOL_MINT };
