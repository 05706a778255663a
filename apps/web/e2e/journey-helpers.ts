import { createRequire } from "node:module";
import { join } from "node:path";
import { USDC_MINT } from "@cistern/protocol";
import { findBankPda } from "@cistern/sdk";
import {
  type Address,
  createKeyPairSignerFromBytes,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
} from "@solana/kit";
import type { Keypair } from "@solana/web3.js";
import type { Browser, Page } from "playwright-core";
import { TEST_OUTPUT_DIR } from "./harness.ts";
import type { Stack } from "./stack.ts";

/** A page whose development wallet is `keypair` (auto-connected on load); page errors are collected. */
export async function openAs(browser: Browser, keypair: Keypair, errors: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(
    (secret: string) => {
      localStorage.setItem("cistern-dev-wallet-secret", secret);
      localStorage.setItem("walletName", JSON.stringify("Development Wallet (localnet)"));
    },
    JSON.stringify(Array.from(keypair.secretKey)),
  );
  const page = await context.newPage();
  page.on("pageerror", (error) => errors.push(error.message));
  return page;
}

/** Full-page screenshot into test-output/journey-<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(TEST_OUTPUT_DIR, `journey-${name}.png`), fullPage: true });
}

/**
 * Runs `act` and waits for `count` new "Transaction Success" toasts (toasts already on screen are
 * marked first, so ones that expire meanwhile do not matter); a new failure toast throws its text.
 */
export async function confirmed(page: Page, act: () => Promise<void>, count = 1): Promise<void> {
  await page.evaluate("document.querySelectorAll('.toast').forEach((t) => t.setAttribute('data-seen', ''))");
  const fresh = page.locator(".toast:not([data-seen])");
  await act();
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const failed = page.locator(".toast-error:not([data-seen])");
    if ((await failed.count()) > 0)
      throw new Error(`transaction failed: ${(await failed.allTextContents()).join(" | ")}`);
    if ((await fresh.locator(".toast-title", { hasText: "Transaction Success" }).count()) >= count) {
      await expectToastsClearOfFocus(page);
      return;
    }
    await page.waitForTimeout(100);
  }
  throw new Error("no confirmation within 60 s");
}

/**
 * Creates a USDC nft-pool through the create page (the first pool of a currency also opens the
 * bank: two signatures) accepting `collections` at 60% LTV, at `apr` percent (36.5 when absent), named `name`
 * ("Lender desk" when absent).
 */
export async function createUsdcNftPool(
  page: Page,
  webUrl: string,
  input: {
    amount: string;
    collections: string[];
    usdcMint: string;
    apr?: string;
    hasBank?: boolean;
    name?: string;
  },
): Promise<void> {
  await page.goto(`${webUrl}/my-pools/new`);
  const form = page.getByRole("form", { name: "Create pool" });
  await form.waitFor({ timeout: 30_000 });
  // a lender's first pool opens its bank (the form says so)
  if (input.hasBank !== true) await page.getByTestId("first-bank-note").waitFor({ timeout: 30_000 });
  await form.getByLabel("Currency").selectOption(input.usdcMint);
  await form.getByLabel("Pool name").fill(input.name ?? "Lender desk");
  await form.getByLabel("Amount to lend").fill(input.amount);
  await form.getByLabel("APR (%)").fill(input.apr ?? "36.5");
  await form.getByLabel("Maximum duration (days)").fill("7");
  await form.getByLabel("Maximum loan (USD)").fill("1000");
  for (const [i, collection] of input.collections.entries()) {
    await form.getByRole("button", { name: "Add collection" }).click();
    await form.getByLabel("Collection").nth(i).selectOption(collection);
    await form.getByLabel("LTV (%)").nth(i).fill("60");
  }
  // with its bank opening, the deposit and the pool are two transactions
  await confirmed(
    page,
    () => form.getByRole("button", { name: "Create pool" }).click(),
    input.hasBank ? 1 : 2,
  );
  await page.waitForURL(/\/my-pools$/);
}

/**
 * Creates a SOL defi-pool through the create page accepting `token` at `ltv` percent, lending `amount` SOL for at
 * most `maxDays` days at `apr` percent. A lender's first SOL pool also opens the bank (two signatures).
 */
export async function createSolTokenPool(
  page: Page,
  webUrl: string,
  input: {
    name: string;
    amount: string;
    token: string;
    ltv: string;
    apr: string;
    maxDays: string;
    solMint: string;
  },
): Promise<void> {
  await page.goto(`${webUrl}/my-pools/new`);
  const form = page.getByRole("form", { name: "Create pool" });
  await form.waitFor({ timeout: 30_000 });
  await form.getByText("Token collateral").click();
  await form.getByLabel("Currency").selectOption(input.solMint);
  await page.getByTestId("first-bank-note").waitFor({ timeout: 30_000 });
  await form.getByLabel("Pool name").fill(input.name);
  await form.getByLabel("Amount to lend").fill(input.amount);
  await form.getByLabel("APR (%)").fill(input.apr);
  await form.getByLabel("Maximum duration (days)").fill(input.maxDays);
  await form.getByLabel("Maximum loan (USD)").fill("100000");
  await form.getByRole("button", { name: "Add token" }).click();
  await form.getByLabel("Token", { exact: true }).selectOption(input.token);
  await form.getByLabel("LTV (%)").fill(input.ltv);
  await confirmed(page, () => form.getByRole("button", { name: "Create pool" }).click(), 2);
  await page.waitForURL(/\/my-pools$/);
}

const AXE_SCRIPT = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** One accessibility violation axe-core found: its rule, impact and the first offending elements. */
export interface A11yViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe-core on the page as it is now; answers the serious and critical violations (WCAG 2 A/AA rules). */
export async function findSeriousA11yViolations(page: Page): Promise<A11yViolation[]> {
  if (!(await page.evaluate("typeof window.axe !== 'undefined'")))
    await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(o: unknown): Promise<{ violations: unknown[] }> } }).axe;
    const { violations } = await axe.run({
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21aa"] },
    });
    return (violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[])
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
      }));
  });
}

/** Toasts never cover the control in use (the focused element), at any width. */
export async function expectToastsClearOfFocus(page: Page): Promise<void> {
  const overlap = await page.evaluate(() => {
    const active = document.activeElement;
    const toaster = document.querySelector(".toaster");
    if (!active || active === document.body || !toaster || toaster.contains(active)) return null;
    const a = active.getBoundingClientRect();
    const t = toaster.getBoundingClientRect();
    const hit = t.left < a.right && a.left < t.right && t.top < a.bottom && a.top < t.bottom;
    return hit ? `${active.tagName} "${(active.textContent ?? "").trim().slice(0, 40)}"` : null;
  });
  if (overlap !== null) throw new Error(`a toast covers the focused control ${overlap}`);
}

/**
 * Borrows `amount` USDC for `days` against the wallet's NFT called `nftName` through the Borrow page, and waits for it
 * to land. With `pool`, from that pool's offer (the page opened as a pool's Borrow link opens it, and that offer chosen
 * among the NFT's offers): where several pools lend against the collection (a shared world).
 */
export async function borrowNftOnPage(
  page: Page,
  webUrl: string,
  input: { nftName: string; amount: string; days: string; pool?: string; currency?: "USDC" | "SOL" },
): Promise<void> {
  await page.goto(input.pool ? `${webUrl}/borrow?pool=${input.pool}` : `${webUrl}/borrow`);
  const list = page.getByTestId("nft-list");
  await list.waitFor({ timeout: 30_000 });
  const card = list.getByRole("button", { name: new RegExp(input.nftName.replace(/[#]/g, "\\$&")) });
  await card.getByText("Best offer").waitFor({ timeout: 30_000 });
  await card.click();
  if (input.pool) {
    const offer = page.locator(`input[type="radio"][value="${input.pool}"]`);
    await offer.waitFor({ timeout: 30_000 });
    await offer.check();
  }
  await page.getByLabel(new RegExp(`Amount \\(${input.currency ?? "USDC"}\\)`)).fill(input.amount);
  await page.getByLabel(/Duration/).fill(input.days);
  await page.getByTestId("quote").waitFor({ timeout: 30_000 });
  await confirmed(page, () => page.getByTestId("borrow-submit").click());
}

/**
 * A USDC nft-pool of `lender` lending 2,000 USDC against `collections` at 50% LTV (36.5% APR, 1 to 7 days, 1 to 1,000
 * USD), built by the API and signed with the lender's key: for journeys whose subject is the borrower (the create
 * page is the journeys' own subject). Throws when the API refuses to send it.
 */
export async function createNftPoolThroughApi(
  stack: Pick<Stack, "apiUrl" | "programId">,
  lender: Keypair,
  input: { seed: string; collections: string[]; currency?: { mint: string; amount: string } },
): Promise<void> {
  const owner = lender.publicKey.toBase58();
  const mint = input.currency?.mint ?? USDC_MINT;
  const [bank] = await findBankPda(stack.programId as Address, owner as Address, mint as Address);
  await sendThroughApi(stack, lender, "/nft/create-pool", {
    bank,
    owner,
    amount: input.currency?.amount ?? "2000000000",
    mint,
    seed: input.seed,
    param: {
      apr: 3650,
      limits: NFT_POOL_LIMITS,
      collections: input.collections.map((collection) => ({
        collection,
        collectionLtv: 5000,
        exposure: 10000,
      })),
    },
  });
}

/** The limits of createNftPoolThroughApi's pools: 1 to 7 days, 1 to 1,000 USD. */
export const NFT_POOL_LIMITS = {
  minDuration: 86_400,
  maxDuration: 7 * 86_400,
  maxAmountUsd: 1000,
  minAmountUsd: 1,
};

/**
 * Builds `path` with `body` through the API, signs every transaction with `signer`'s key and sends them (a bundle as
 * one, otherwise in order): a step of a journey whose subject is someone else. Throws when the API refuses to build
 * or send.
 */
export async function sendThroughApi(
  stack: Pick<Stack, "apiUrl">,
  signer: Keypair,
  path: string,
  body: unknown,
): Promise<void> {
  const post = async <T>(route: string, payload: unknown) =>
    (await (
      await fetch(`${stack.apiUrl}${route}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
      })
    ).json()) as T;
  const built = await post<{ transactions: string[]; lastValidBlockHeight: number; kind: string }>(
    path,
    body,
  );
  if (!Array.isArray(built.transactions)) throw new Error(`${path} refused: ${JSON.stringify(built)}`);
  const key = await createKeyPairSignerFromBytes(signer.secretKey);
  const signed = await Promise.all(
    built.transactions.map(async (b64) =>
      getBase64EncodedWireTransaction(
        await partiallySignTransaction(
          [key.keyPair],
          getTransactionDecoder().decode(Buffer.from(b64, "base64")),
        ),
      ),
    ),
  );
  // in order: a first pool opens the bank in the transaction before it
  const sent =
    built.kind === "Bundle"
      ? [
          await post<{ result?: string | null }>("/send-bundle", {
            transactions: signed,
            blockHeight: built.lastValidBlockHeight,
          }),
        ]
      : [];
  if (built.kind !== "Bundle")
    for (const transaction of signed)
      sent.push(
        await post<{ result?: string | null }>("/send-transaction", {
          transaction,
          blockHeight: built.lastValidBlockHeight,
        }),
      );
  const failed = sent.find((r) => !r.result);
  if (failed) throw new Error(`${path} was not sent: ${JSON.stringify(failed)}`);
}
