/**
 * @vitest-environment node
 */
import { mkdir } from "node:fs/promises";
import { DEMO_WORLD } from "@cistern/localnet";
import { SOL_MINT, USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, TEST_OUTPUT_DIR } from "./harness.ts";
import { confirmed, createSolTokenPool, createUsdcNftPool, openAs, shot } from "./journey-helpers.ts";
import { JOURNEY_SLOT_MS, type Stack, startStack } from "./stack.ts";

// Issue #36, "actions hidden or hard to reach": a borrower with several ongoing loans reaches every row's actions at
// 1280 and 360 px, a success toast leaves the Margin form's controls uncovered, and the phone header is one row.
// Its own small world on the journeys' stack (the journey file takes about 8 minutes).

let stack: Stack | undefined;
let browser: Browser | undefined;
let lender: Page;
let borrower: Page;
const lenderKey = Keypair.generate();
const borrowerKey = Keypair.generate();
const pageErrors: string[] = [];
let nfts: { mint: string; collectionId: string; name: string }[] = [];
const JUP = DEMO_WORLD.tokens.find((t) => t.symbol === "JUP")!.mint;

beforeAll(async () => {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  stack = await startStack({ slotMs: JOURNEY_SLOT_MS });
  for (const key of [lenderKey, borrowerKey]) {
    const given = await stack.localnet.faucet(key.publicKey.toBase58());
    await stack.localnet.fundWallet(key.publicKey.toBase58(), { lamports: 100_000_000_000n });
    if (key === borrowerKey) nfts = given.nfts;
  }
  browser = await launchChromium();
  lender = await openAs(browser, lenderKey, pageErrors);
  borrower = await openAs(browser, borrowerKey, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** Rects (viewport px) of what a toast must leave uncovered: the Margin form's fields, slider, terms and button. */
async function marginControlsUnderToaster(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const toaster = document.querySelector(".toaster")!.getBoundingClientRect();
    const form = document.querySelector('section[aria-label="Margin position"]')!;
    const controls = [...form.querySelectorAll("input, select, button, dl > div")].filter((c) => {
      const r = c.getBoundingClientRect();
      return r.width > 0 && r.bottom > 0 && r.top < window.innerHeight;
    });
    if (toaster.height === 0) return ["no toast on screen"];
    if (!form.querySelector('input[type="range"]') || !form.querySelector('[data-testid="margin-principal"]'))
      return ["the terms were gone before the toast showed"];
    return controls
      .filter((c) => {
        const r = c.getBoundingClientRect();
        return (
          toaster.left < r.right && r.left < toaster.right && toaster.top < r.bottom && r.top < toaster.bottom
        );
      })
      .map((c) => `${c.tagName} "${(c.textContent ?? "").trim().slice(0, 30)}"`);
  });
}

/**
 * Every ongoing row's Repay, Extend and sell buttons, each brought into view by scrolling the page vertically only:
 * answers those not wholly inside the viewport or hidden under something else (the table's own scroll untouched).
 */
async function unreachableActions(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const missed: string[] = [];
    const rows = [...document.querySelectorAll('[data-testid="ongoing-loans"] tbody tr')];
    for (const [i, row] of rows.entries()) {
      const buttons = [...row.querySelectorAll(".pg-actions-cell button")].filter((b) =>
        /^(Repay|Extend|Instant sell|Market sell)$/.test((b.textContent ?? "").trim()),
      );
      if (buttons.length < 3) missed.push(`row ${i}: ${buttons.length} action buttons`);
      for (const button of buttons) {
        const before = button.getBoundingClientRect();
        window.scrollTo(0, window.scrollY + before.top - window.innerHeight / 2);
        await new Promise((r) => requestAnimationFrame(r));
        const r = button.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        const inside =
          r.left >= 0 && r.right <= window.innerWidth && r.top >= 0 && r.bottom <= window.innerHeight;
        if (!inside || !hit || !button.contains(hit))
          missed.push(`row ${i} ${button.textContent}: ${Math.round(r.left)}-${Math.round(r.right)} px`);
      }
    }
    const wrap = document.querySelector('[data-testid="ongoing-loans"]')!.closest(".pg-table-wrap")!;
    if (wrap.scrollLeft !== 0) missed.push("the table was scrolled sideways");
    if (document.documentElement.scrollWidth > window.innerWidth) missed.push("the page scrolls sideways");
    window.scrollTo(0, 0);
    return missed;
  });
}

describe("#36 actions within reach (headless Chromium, localnet)", { timeout: 600_000 }, () => {
  it("#36 every loan row's actions show at 1280 px and are reachable at 360 px; a toast leaves the Margin form uncovered; the phone header is one row", async () => {
    const collections = [...new Set(nfts.map((n) => n.collectionId))];
    await createUsdcNftPool(lender, stack!.webUrl, { amount: "500", collections, usdcMint: USDC_MINT });
    await createSolTokenPool(lender, stack!.webUrl, {
      name: "JUP desk",
      amount: "20",
      token: JUP,
      ltv: "50",
      apr: "20",
      maxDays: "7",
      solMint: SOL_MINT,
    });
    // four NFT loans
    for (const nft of nfts.slice(0, 4)) {
      await borrower.goto(`${stack!.webUrl}/borrow`);
      const list = borrower.getByTestId("nft-list");
      await list.waitFor({ timeout: 30_000 });
      const card = list.getByRole("button", { name: new RegExp(nft.name.replace(/[#]/g, "\\$&")) });
      await card.getByText("Best offer").waitFor({ timeout: 30_000 });
      await card.click();
      await borrower.getByLabel(/Amount \(USDC\)/).fill("20");
      await borrower.getByLabel(/Duration/).fill("7");
      await borrower.getByTestId("quote").waitFor({ timeout: 30_000 });
      await confirmed(borrower, () => borrower.getByTestId("borrow-submit").click());
    }

    // a margin position at 1280 and one at 360: the success toast covers none of the form's controls
    for (const [width, height] of [
      [1280, 900],
      [360, 740],
    ] as const) {
      await borrower.setViewportSize({ width, height });
      await borrower.goto(`${stack!.webUrl}/margin`);
      await borrower.getByLabel("Token to buy").waitFor({ timeout: 30_000 });
      await borrower.getByLabel("Token to buy").selectOption(JUP);
      await borrower.getByLabel("Pay with").selectOption(SOL_MINT);
      await borrower.getByLabel(/Down payment/).fill("0.5");
      const terms = borrower.getByTestId("margin-terms");
      await terms
        .getByTestId("margin-buys")
        .getByText(/about [\d,.]+ JUP/)
        .waitFor({ timeout: 30_000 });
      await terms.getByTestId("margin-submit").scrollIntoViewIfNeeded();
      // measured on the first toast of the transaction, while the terms (slider, "You borrow") are still shown
      let covered: string[] = ["no toast"];
      await confirmed(borrower, async () => {
        await terms.getByTestId("margin-submit").click();
        await borrower.locator(".toast:not([data-seen])").first().waitFor();
        covered = await marginControlsUnderToaster(borrower);
        await shot(borrower, `36-margin-toast-${width}`);
      });
      expect(covered).toEqual([]);
    }

    // Loans at 1280 x 900: the first row's actions on the first screen, every row's inside the viewport
    await borrower.setViewportSize({ width: 1280, height: 900 });
    await borrower.goto(`${stack!.webUrl}/loans`);
    const rows = borrower.getByTestId("ongoing-loans").locator("tbody tr");
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(6);
    const firstRepay = (await rows.first().getByRole("button", { name: "Repay" }).boundingBox())!;
    expect(firstRepay.y + firstRepay.height).toBeLessThanOrEqual(900);
    expect(firstRepay.x + firstRepay.width).toBeLessThanOrEqual(1280);
    expect(await unreachableActions(borrower)).toEqual([]);
    await shot(borrower, "36-loans-1280");

    // 360 x 740: a card per loan, every action on screen; the header one row
    await borrower.setViewportSize({ width: 360, height: 740 });
    await rows.first().getByRole("button", { name: "Repay" }).waitFor();
    expect(await unreachableActions(borrower)).toEqual([]);
    const header = (await borrower.locator(".app-header").boundingBox())!;
    expect(header.height).toBeLessThanOrEqual(64);
    const menu = borrower.getByTestId("nav-menu");
    const menuBox = (await menu.boundingBox())!;
    expect(menuBox.y + menuBox.height).toBeLessThanOrEqual(header.y + header.height);
    await shot(borrower, "36-loans-360");
    // the page menu opens below the one-row header, every link on screen
    await menu.click();
    const links = borrower.getByRole("navigation", { name: "Main" }).getByRole("link");
    for (const box of await Promise.all((await links.all()).map((l) => l.boundingBox())))
      expect(box!.x >= 0 && box!.x + box!.width <= 360 && box!.y >= header.y + header.height - 1).toBe(true);
    await shot(borrower, "36-menu-360");
    expect(pageErrors).toEqual([]);
  });
});
