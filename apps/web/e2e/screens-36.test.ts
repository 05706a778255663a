/**
 * @vitest-environment node
 */
import { mkdir } from "node:fs/promises";
import { DEMO_WORLD } from "@cistern/localnet";
import { formatMoney, SENDER_PATH_BY_KIND, SOL_MINT, USDC_MINT } from "@cistern/protocol";
import { decodeLoanAccount, decodePoolAccount } from "@cistern/sdk";
import { Keypair } from "@solana/web3.js";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAccountData, getTokenBalance, parseShownUsdc } from "./chain-reads.ts";
import { launchChromium, TEST_OUTPUT_DIR } from "./harness.ts";
import {
  borrowNftOnPage,
  confirmed,
  createSolTokenPool,
  createUsdcNftPool,
  findSeriousA11yViolations,
  openAs,
  shot,
} from "./journey-helpers.ts";
import { JOURNEY_SLOT_MS, rpc, type Stack, startStack } from "./stack.ts";

// Issue #36 on a world of its own (the journeys' stack, two wallets; the journey file takes 5 to 15 minutes):
// "actions hidden or hard to reach": a borrower with several ongoing loans reaches every row's actions at 1280 and
// 360 px, a success toast leaves the Margin form's controls uncovered, and the phone header is one row; "things a user
// cannot tell apart": the bell names each loan (collateral and amount) and opens it, a loan's chat room is titled with
// the loan and the other party, and system messages are not counted as unread.

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
    for (const nft of nfts.slice(0, 4))
      await borrowNftOnPage(borrower, stack!.webUrl, { nftName: nft.name, amount: "20", days: "7" });

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
      // measured on the first toast of the transaction, while the terms (slider, "You borrow") are still shown: the
      // signed transaction's send is held until then (the form clears its terms once the send answers), so the
      // measurement waits for the toast and never races the confirmation
      let covered: string[] = ["no toast"];
      let release = () => {};
      const measured = new Promise<void>((resolve) => {
        release = resolve;
      });
      const isSend = (url: URL) => Object.values(SENDER_PATH_BY_KIND).includes(url.pathname);
      const holdSend = async (route: Route) => {
        await measured;
        await route.continue();
      };
      await borrower.route(isSend, holdSend);
      try {
        await confirmed(borrower, async () => {
          await terms.getByTestId("margin-submit").click();
          await borrower.locator(".toast:not([data-seen])").first().waitFor();
          covered = await marginControlsUnderToaster(borrower);
          await shot(borrower, `36-margin-toast-${width}`);
          release();
        });
      } finally {
        release();
        await borrower.unroute(isSend, holdSend);
      }
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
    // nothing in a row is hidden under the sticky actions either: every "Message lender" is wholly visible
    expect(
      await borrower.evaluate(async () => {
        const covered: string[] = [];
        const buttons = document.querySelectorAll<HTMLElement>(
          '[data-testid="ongoing-loans"] [data-testid="message-party"]',
        );
        for (const b of buttons) {
          b.scrollIntoView({ block: "center", inline: "nearest" });
          await new Promise((r) => requestAnimationFrame(r));
          const r = b.getBoundingClientRect();
          const hits = [r.left + 2, r.right - 2].map((x) =>
            document.elementFromPoint(x, r.top + r.height / 2),
          );
          if (hits.some((h) => h === null || !b.contains(h)))
            covered.push(b.closest("tr")?.dataset.loan ?? "?");
        }
        const wrap = document.querySelector('[data-testid="ongoing-loans"]')!.closest(".pg-table-wrap")!;
        if (wrap.scrollLeft !== 0) covered.push("the table was scrolled sideways");
        window.scrollTo(0, 0);
        return covered;
      }),
    ).toEqual([]);
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
    // the compact header and the sticky actions leave nothing serious for axe-core on these pages
    const found: Record<string, unknown> = {};
    for (const [width, height] of [
      [360, 740],
      [1280, 900],
    ] as const) {
      await borrower.setViewportSize({ width, height });
      for (const path of ["/loans", "/margin"]) {
        await borrower.goto(`${stack!.webUrl}${path}`);
        await borrower.locator("main h1").first().waitFor({ timeout: 30_000 });
        await borrower.waitForTimeout(800);
        const violations = await findSeriousA11yViolations(borrower);
        if (violations.length > 0) found[`${width} ${path}`] = violations;
      }
    }
    expect(found).toEqual({});
    expect(pageErrors).toEqual([]);
  });

  it("#36 the bell names each loan by its NFT and amount and opens it; a loan's chat is titled with the loan and counts only people's messages (1280 and 360 px)", async () => {
    const me = borrowerKey.publicKey.toBase58();
    const loans = (
      (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}&limit=100`)).json()) as {
        loans: { pubkey: string; collateral: string; status: string }[];
      }
    ).loans.filter((l) => l.status.toLowerCase() === "ongoing");
    const nftLoans = nfts
      .slice(0, 4)
      .map((nft) => ({ nft, loan: loans.find((l) => l.collateral === nft.mint)?.pubkey }));
    expect(nftLoans.every((l) => l.loan !== undefined)).toBe(true);
    // the 7-day loans are due within the day
    await rpc(stack!.localnet.rpcUrl, "localnet_advanceClock", [Math.round(6.6 * 86_400)]);
    for (const [width, height] of [
      [1280, 900],
      [360, 740],
    ] as const) {
      await borrower.setViewportSize({ width, height });
      await borrower.goto(`${stack!.webUrl}/borrow`);
      await borrower.getByTestId("notifications-button").click();
      const centre = borrower.getByTestId("notifications-panel");
      const due = centre.locator('[data-kind="due-soon"]');
      await expect.poll(() => due.count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(4);
      // every NFT loan's notification names its NFT and amount (the names come from the API: wait for them)
      const subjects = () => due.getByTestId("notification-loan").allTextContents();
      await expect
        .poll(async () => (await subjects()).filter((t) => / loan on .+#\d+$/.test(t)).length, {
          timeout: 30_000,
        })
        .toBeGreaterThanOrEqual(4);
      for (const { nft } of nftLoans) expect(await subjects()).toContain(`20 USDC loan on ${nft.name}`);
      expect((await centre.textContent()) ?? "").not.toContain(nftLoans[0]!.nft.mint.slice(0, 6));
      await shot(borrower, `36-bell-${width}`);
      // clicking one opens that loan on Loans, its row marked and on screen
      const target = nftLoans[width === 1280 ? 1 : 2]!;
      await due
        .filter({ has: borrower.getByText(`20 USDC loan on ${target.nft.name}`, { exact: true }) })
        .getByTestId("notification-open")
        .click();
      await borrower.waitForURL(new RegExp(`/loans\\?loan=${target.loan}$`));
      const opened = borrower.getByTestId("opened-loan");
      await opened.waitFor({ timeout: 30_000 });
      expect(await opened.getAttribute("data-loan")).toBe(target.loan);
      await expect
        .poll(async () => (await opened.boundingBox())!.y, { timeout: 5_000 })
        .toBeGreaterThanOrEqual(0);
      const box = (await opened.boundingBox())!;
      expect(box.y + Math.min(box.height, 80)).toBeLessThanOrEqual(height);
      // the row names its NFT, never its mint
      expect(await opened.getByTestId("loan-collateral").textContent()).toBe(` ${target.nft.name}`);
      expect(await opened.locator("img.pg-nft-thumb").count()).toBe(1);
      await shot(borrower, `36-opened-loan-${width}`);
    }

    // Chat: the borrower's room for a loan is titled with it and the lender; the timeline's system message counts
    // for no one; the lender's message does.
    await borrower.setViewportSize({ width: 1280, height: 900 });
    const { nft, loan } = nftLoans[0]!;
    await borrower.goto(`${stack!.webUrl}/loans`);
    const row = borrower.locator(`tr[data-loan="${loan}"]`);
    await row.getByRole("button", { name: "Message lender" }).click();
    const panel = borrower.getByTestId("chat-panel");
    await panel.getByRole("button", { name: "Sign in to chat" }).click();
    await panel.getByTestId("chat-system-message").first().waitFor({ timeout: 30_000 });
    expect(await panel.getByTestId("chat-room-title").textContent()).toBe(
      `20 USDC loan on ${nft.name} with your lender`,
    );
    await panel.getByRole("button", { name: "← All" }).click();
    const item = panel.locator(`[data-room="loan:${loan}"]`).getByTestId("chat-room-item-title");
    await expect
      .poll(() => item.textContent(), { timeout: 30_000 })
      .toBe(`20 USDC loan on ${nft.name} with your lender`);
    await panel.getByRole("button", { name: "Close chat" }).click();

    await lender.setViewportSize({ width: 360, height: 740 });
    await lender.goto(`${stack!.webUrl}/loans`);
    await lender.getByTestId("chat-button").click();
    const lenderPanel = lender.getByTestId("chat-panel");
    await lenderPanel.getByRole("button", { name: "Sign in to chat" }).click();
    const lenderItem = lenderPanel.locator(`[data-room="loan:${loan}"]`);
    await lenderItem.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => lenderItem.getByTestId("chat-room-item-title").textContent(), { timeout: 30_000 })
      .toBe(`20 USDC loan on ${nft.name} with your borrower`);
    // the loan's rooms hold system messages only: nothing unread
    expect(await lenderItem.locator(".chat-badge").count()).toBe(0);
    await lenderPanel.getByRole("button", { name: "Close chat" }).click();
    expect(await lender.getByTestId("chat-unread").count()).toBe(0);
    await shot(lender, "36-chat-rooms-360");
    // a person's message is counted
    await borrower.getByTestId("chat-button").click();
    await panel.locator(`[data-room="loan:${loan}"]`).click();
    const box = panel.getByRole("textbox", { name: "Message" });
    await box.fill("Could I extend?");
    await box.press("Enter");
    await lender.getByTestId("chat-unread").filter({ hasText: /^1$/ }).waitFor({ timeout: 20_000 });
    await lender.setViewportSize({ width: 1280, height: 900 });
    expect(pageErrors).toEqual([]);
  });

  it("#36 Margin shows the pool it uses, defaults to the cheapest for the leverage and lands in the one chosen; delegation's controls say what they do; a pool shows what it lends (1280 and 360 px)", async () => {
    const me = borrowerKey.publicKey.toBase58();
    // a second lender lends SOL against JUP at the same 50% LTV, cheaper
    const rivalKey = Keypair.generate();
    await stack!.localnet.faucet(rivalKey.publicKey.toBase58());
    await stack!.localnet.fundWallet(rivalKey.publicKey.toBase58(), { lamports: 100_000_000_000n });
    const rival = await openAs(browser!, rivalKey, pageErrors);
    await createSolTokenPool(rival, stack!.webUrl, {
      name: "Cheap JUP desk",
      amount: "20",
      token: JUP,
      ltv: "50",
      apr: "5",
      maxDays: "7",
      solMint: SOL_MINT,
    });
    await rival.context().close();
    const poolsOf = async (owner: string) =>
      (
        (await (await fetch(`${stack!.apiUrl}/pool/get-by-owner?owner=${owner}&limit=100`)).json()) as {
          pools: { pubkey: string; metadata: { name: string }; type: string }[];
        }
      ).pools;
    const dear = (await poolsOf(lenderKey.publicKey.toBase58())).find((p) => p.metadata.name === "JUP desk")!;

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
      // both pools lend about 2x: the cheaper one is used, and said
      const used = borrower.getByTestId("margin-pool");
      await expect.poll(() => used.textContent(), { timeout: 60_000 }).toBe("From Cheap JUP desk at 5% APR");
      const options = borrower.getByTestId("margin-pool-option");
      await expect.poll(() => options.count(), { timeout: 30_000 }).toBe(2);
      expect(await options.first().textContent()).toMatch(
        /Cheap JUP desk 5% APR, up to [\d.]+x · cheapest for this leverage/,
      );
      const fieldset = (await borrower.getByTestId("margin-pools").boundingBox())!;
      expect(fieldset.x >= 0 && fieldset.x + fieldset.width <= width).toBe(true);
      await shot(borrower, `36-margin-pools-${width}`);
    }
    // at 360 px the borrower chooses the dearer pool: the terms follow and the chain lands the position there
    await borrower
      .getByTestId("margin-pool-option")
      .filter({ hasText: /^\s*JUP desk/ })
      .getByRole("radio")
      .check();
    await expect
      .poll(() => borrower.getByTestId("margin-pool").textContent(), { timeout: 10_000 })
      .toBe("From JUP desk at 20% APR");
    const terms = borrower.getByTestId("margin-terms");
    expect(await terms.getByTestId("margin-principal").textContent()).toContain("at 20% APR");
    await terms
      .getByTestId("margin-buys")
      .getByText(/about [\d,.]+ JUP/)
      .waitFor({ timeout: 30_000 });
    const before = new Set(
      (
        (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}&limit=100`)).json()) as {
          loans: { pubkey: string }[];
        }
      ).loans.map((l) => l.pubkey),
    );
    await terms.getByTestId("margin-submit").scrollIntoViewIfNeeded();
    await confirmed(borrower, () => terms.getByTestId("margin-submit").click());
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}&limit=100`)).json()) as {
              loans: { pubkey: string; pool: string }[];
            }
          ).loans.find((l) => !before.has(l.pubkey))?.pool,
        { timeout: 30_000 },
      )
      .toBe(dear.pubkey);

    // My pools: the USDC pool shows the 80 USDC its four loans hold, not its bank's 500; the delegation controls
    for (const [width, height] of [
      [1280, 900],
      [360, 740],
    ] as const) {
      await lender.setViewportSize({ width, height });
      await lender.goto(`${stack!.webUrl}/my-pools`);
      const card = lender.getByTestId("my-pools").locator("li", { hasText: "Lender desk" });
      await expect
        .poll(() => card.getByTestId("pool-lent").textContent(), { timeout: 30_000 })
        .toBe("80 USDC");
      expect(await card.getByTestId("pool-funds").textContent()).toMatch(
        /^its bank: [\d,.]+ USDC available$/,
      );
      const bank = lender.getByTestId("bank").filter({ hasText: "USDC bank" });
      const panel = bank.getByTestId("delegation");
      await panel.waitFor({ timeout: 30_000 });
      const submit = panel.getByTestId("delegate-submit");
      const hourly = panel.getByLabel(/Re-delegate idle funds every hour/);
      if (width === 1280) {
        expect(await panel.getByTestId("hourly-state").textContent()).toBe(
          "Hourly re-delegation is off for this bank.",
        );
        expect(await submit.textContent()).toBe("Delegate");
        // ticking the box with no amount: the button turns hourly re-delegation on, and says so
        await hourly.check();
        expect(await submit.textContent()).toBe("Turn hourly re-delegation on");
        await confirmed(lender, () => submit.click());
        await expect
          .poll(() => panel.getByTestId("hourly-state").textContent(), { timeout: 30_000 })
          .toBe("Hourly re-delegation is on for this bank.");
        await shot(lender, "36-delegation-1280");
      } else {
        // turning it off is its own button, labelled so, on screen at 360 px
        const off = panel.getByTestId("hourly-off");
        await off.scrollIntoViewIfNeeded();
        expect(await off.textContent()).toBe("Turn off hourly re-delegation");
        const box = (await off.boundingBox())!;
        expect(box.x >= 0 && box.x + box.width <= 360).toBe(true);
        await shot(lender, "36-delegation-360");
        await confirmed(lender, () => off.click());
        await expect
          .poll(() => panel.getByTestId("hourly-state").textContent(), { timeout: 30_000 })
          .toBe("Hourly re-delegation is off for this bank.");
        expect(await panel.getByTestId("hourly-off").count()).toBe(0);
      }
    }
    await lender.setViewportSize({ width: 1280, height: 900 });
    await borrower.setViewportSize({ width: 1280, height: 900 });
    expect(pageErrors).toEqual([]);
  });

  it("#36 a loan request names its NFT with its image, for the borrower and on the Lend page (1280 and 360 px)", async () => {
    const me = borrowerKey.publicKey.toBase58();
    const nft = (await stack!.localnet.faucet(me)).nfts[0]!;
    const escaped = nft.name.replace(/[#]/g, "\\$&");
    await borrower.setViewportSize({ width: 1280, height: 900 });
    await borrower.goto(`${stack!.webUrl}/borrow`);
    const list = borrower.getByTestId("nft-list");
    await list.waitFor({ timeout: 30_000 });
    await list.getByRole("button", { name: new RegExp(escaped) }).click();
    const form = borrower.getByTestId("request-form");
    await form.getByText("No offer fits? Post a loan request").click();
    await form.getByLabel("Currency").selectOption(USDC_MINT);
    await form.getByLabel("Amount").fill("15");
    await form.getByLabel("Days").fill("3");
    await form.getByLabel("Highest APR (%)").fill("20");
    await confirmed(borrower, () => form.getByTestId("post-request").click());
    const named = new RegExp(`^${escaped} \\(.+\\)$`);
    // the borrower's own request on Loans
    await borrower.goto(`${stack!.webUrl}/loans`);
    const mine = borrower.getByTestId("my-request").getByTestId("request-collateral");
    await expect.poll(() => mine.first().textContent(), { timeout: 30_000 }).toMatch(named);
    expect(await mine.first().locator("img").count()).toBe(1);
    // the Lend page's card, at 1280 and 360 px
    for (const [width, height] of [
      [1280, 900],
      [360, 740],
    ] as const) {
      await lender.setViewportSize({ width, height });
      await lender.goto(`${stack!.webUrl}/lend`);
      await lender.getByRole("tab", { name: "USDC" }).click();
      const card = lender
        .getByTestId("request-row")
        .filter({ hasText: "asks for 15 USDC for 3 days" })
        .first();
      await card.waitFor({ timeout: 30_000 });
      const collateral = card.getByTestId("request-collateral");
      await expect.poll(() => collateral.textContent(), { timeout: 30_000 }).toMatch(named);
      expect(await collateral.locator("img").count()).toBe(1);
      expect((await card.textContent()) ?? "").not.toContain(nft.mint.slice(0, 6));
      await card.scrollIntoViewIfNeeded();
      const box = (await card.boundingBox())!;
      expect(box.x >= 0 && box.x + box.width <= width).toBe(true);
      await shot(lender, `36-request-card-${width}`);
    }
    await lender.setViewportSize({ width: 1280, height: 900 });
    expect(pageErrors).toEqual([]);
  });
  it("#36 a refinance shows its new pool, APR, due date and pay-now before signing, lands in that pool, and reads 'moved to another pool', never 'repaid' (1280 and 360 px)", async () => {
    const me = borrowerKey.publicKey.toBase58();
    const rpcUrl = stack!.localnet.rpcUrl;
    const apes = DEMO_WORLD.collections.find((c) => c.symbol === "AQUA")!;
    const ape = (await stack!.localnet.faucet(me)).nfts.find((n) => n.collectionId === apes.collectionId)!;
    const newLender = async (name: string, amount: string, apr: string) => {
      const key = Keypair.generate();
      await stack!.localnet.faucet(key.publicKey.toBase58());
      await stack!.localnet.fundWallet(key.publicKey.toBase58(), { lamports: 10_000_000_000n });
      const page = await openAs(browser!, key, pageErrors);
      await createUsdcNftPool(page, stack!.webUrl, {
        amount,
        collections: [apes.collectionId],
        usdcMint: USDC_MINT,
        apr,
        name,
      });
      await page.context().close();
    };
    const readLoan = async (loan: string) => decodeLoanAccount(await getAccountData(rpcUrl, loan));
    const loansOf = async () =>
      (
        (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}&limit=100`)).json()) as {
          loans: { pubkey: string; collateral: string; status: string; closedBy?: string }[];
        }
      ).loans;
    const ongoingOnApe = async () =>
      (await loansOf()).find((l) => l.collateral === ape.mint && l.status === "ongoing")?.pubkey;

    // a 900 USDC loan on the ape from a pool at 40%, the only one lending that much (under the pools' 1,000 USD cap
    // whatever USDC's price that second); then a rival lends at 5%
    await newLender("Dear ape desk", "1200", "40");
    await borrowNftOnPage(borrower, stack!.webUrl, { nftName: ape.name, amount: "900", days: "7" });
    await expect.poll(ongoingOnApe, { timeout: 30_000 }).toBeDefined();
    const oldLoan = (await ongoingOnApe())!;
    expect((await readLoan(oldLoan)).aprBps).toBe(4000);
    await newLender("Cheap ape desk", "1200", "5");

    // the hint opens the new terms; nothing is signed before they show
    await borrower.setViewportSize({ width: 1280, height: 900 });
    const row = borrower.locator(`tr[data-loan="${oldLoan}"]`);
    const hint = row.getByTestId("refinance-hint");
    await expect
      .poll(
        async () => {
          await borrower.goto(`${stack!.webUrl}/loans`);
          await row.waitFor({ timeout: 30_000 });
          return hint.count();
        },
        { timeout: 60_000, interval: 2000 },
      )
      .toBe(1);
    expect(await hint.textContent()).toMatch(/^A cheaper offer exists: 5% APR saves [\d.]+ USDC/);
    await hint.getByTestId("refinance").click();
    const panel = borrower.getByTestId("refinance-panel");
    const terms = panel.getByTestId("refinance-terms");
    await terms.waitFor({ timeout: 30_000 });
    expect((await readLoan(oldLoan)).status).toBe("Ongoing");
    expect(await terms.getByTestId("refinance-new-apr").textContent()).toContain("5%");
    expect(await terms.getByTestId("refinance-new-pool").textContent()).toContain("Cheap ape desk");
    expect(await terms.getByTestId("refinance-new-due-date").textContent()).toMatch(/UTC/);
    const payNow = parseShownUsdc((await terms.getByTestId("refinance-pay-now").textContent())!);
    await shot(borrower, "36-refinance-terms-1280");
    await borrower.setViewportSize({ width: 360, height: 740 });
    const submit = panel.getByTestId("refinance-submit");
    await submit.scrollIntoViewIfNeeded();
    const box = (await submit.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    await shot(borrower, "36-refinance-terms-360");
    const usdcBefore = await getTokenBalance(rpcUrl, me, USDC_MINT);
    await confirmed(borrower, () => submit.click());

    // the chain: closed by Refinance into the 5% pool; the borrower paid what was shown (to the cent, plus the
    // interest of the seconds between reading and landing)
    const old = await readLoan(oldLoan);
    expect([old.status, old.closedBy]).toEqual(["Repaid", "Refinanced"]);
    const moved = await readLoan(old.extendedTo!);
    expect([moved.status, moved.aprBps, moved.principal, moved.collateralMint]).toEqual([
      "Ongoing",
      500,
      900_000_000n,
      ape.mint,
    ]);
    const paid = usdcBefore - (await getTokenBalance(rpcUrl, me, USDC_MINT));
    expect(paid >= payNow - 10_000n && paid <= payNow + 200_000n).toBe(true);

    // the API says how it closed; the loan reads refinanced and the bell says it moved, never "repaid"
    await expect
      .poll(async () => (await loansOf()).find((l) => l.pubkey === oldLoan)?.closedBy, { timeout: 30_000 })
      .toBe("Refinanced");
    for (const [width, height] of [
      [360, 740],
      [1280, 900],
    ] as const) {
      await borrower.setViewportSize({ width, height });
      await borrower.goto(`${stack!.webUrl}/loans`);
      const movedLoan = borrower.locator(`[data-loan="${old.extendedTo}"]`).first();
      await movedLoan
        .getByTestId("loan-chain")
        .getByText(/^ ?refinanced once · first taken /)
        .waitFor({ timeout: 30_000 });
      await borrower.getByTestId("notifications-button").click();
      const centre = borrower.getByTestId("notifications-panel");
      const note = centre.locator('[data-kind="refinanced"]').first();
      await note.waitFor({ timeout: 30_000 });
      expect(await note.textContent()).toMatch(
        /^Loan moved to another pool900 USDC loan on Aqueduct Ape #\d+Your 900 USDC loan moved to a cheaper pool: the old lender was paid off and it continues as a new loan at 5% APR, due .+ UTC\. Your collateral stays locked until you repay it\./,
      );
      expect(await centre.textContent()).not.toMatch(/900 USDC loan is repaid/);
      await shot(borrower, `36-bell-refinanced-${width}`);
      await centre.getByRole("button", { name: "Close notifications" }).click();
    }
    expect(pageErrors).toEqual([]);
  });
  it("#36 a loan ended by auto-sell reads 'sold at liquidation for' its proceeds in the lender's History and the borrower's bell, never 'collateral to the lender' (1280 and 360 px)", async () => {
    const me = borrowerKey.publicKey.toBase58();
    const rpcUrl = stack!.localnet.rpcUrl;
    const dragons = DEMO_WORLD.collections.find((c) => c.symbol === "DRIP")!;
    const dragon = (await stack!.localnet.faucet(me)).nfts.find(
      (n) => n.collectionId === dragons.collectionId,
    )!;
    // a lender whose dragon pool (the cheapest, at 10%) auto-sells liquidated collateral
    const key = Keypair.generate();
    const owner = key.publicKey.toBase58();
    await stack!.localnet.faucet(owner);
    await stack!.localnet.fundWallet(owner, { lamports: 10_000_000_000n });
    const desk = await openAs(browser!, key, pageErrors);
    await createUsdcNftPool(desk, stack!.webUrl, {
      amount: "300",
      collections: [dragons.collectionId],
      usdcMint: USDC_MINT,
      apr: "10",
      name: "Auto-sell desk",
    });
    const pools = (await (await fetch(`${stack!.apiUrl}/pool/get-by-owner?owner=${owner}`)).json()) as {
      pools: { pubkey: string }[];
    };
    const pool = pools.pools[0]!.pubkey;
    await desk.goto(`${stack!.webUrl}/my-pools/${pool}`);
    const terms = desk.getByRole("form", { name: "Update pool" });
    await terms.waitFor({ timeout: 30_000 });
    await terms.getByLabel("Auto-sell liquidated collateral").check();
    await confirmed(desk, () => terms.getByRole("button", { name: "Update pool" }).click());
    expect(decodePoolAccount(await getAccountData(rpcUrl, pool)).flags.autoSell).toBe(true);

    // a 20 USDC loan for a day on a dragon, left unpaid past expiry and grace: the keeper sells it to the best bid
    await borrowNftOnPage(borrower, stack!.webUrl, { nftName: dragon.name, amount: "20", days: "1" });
    const ongoing = async () =>
      (
        (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}&limit=100`)).json()) as {
          loans: { pubkey: string; collateral: string; status: string }[];
        }
      ).loans.find((l) => l.collateral === dragon.mint && l.status === "ongoing")?.pubkey;
    await expect.poll(ongoing, { timeout: 30_000 }).toBeDefined();
    const loan = (await ongoing())!;
    expect(decodeLoanAccount(await getAccountData(rpcUrl, loan)).pool).toBe(pool);
    await rpc(rpcUrl, "localnet_advanceClock", [4 * 86_400]);
    const round = await stack!.runKeeperRound();
    expect(round.liquidated.find((l) => l.loan === loan)?.autoSold).toBe(true);
    // the chain: closed by the auto-sale, the NFT with the bidder (neither the lender nor the borrower)
    const ended = decodeLoanAccount(await getAccountData(rpcUrl, loan));
    expect(ended.closedBy).toBe("AutoSold");
    expect(await getTokenBalance(rpcUrl, owner, dragon.mint)).toBe(0n);
    expect(await getTokenBalance(rpcUrl, me, dragon.mint)).toBe(0n);
    const proceeds = formatMoney(ended.repaidAmount, USDC_MINT);

    for (const [width, height] of [
      [1280, 900],
      [360, 740],
    ] as const) {
      // the lender's History: sold at liquidation for the proceeds, not "collateral to the lender"
      await desk.setViewportSize({ width, height });
      await desk.goto(`${stack!.webUrl}/loans`);
      await desk.getByRole("tab", { name: "Loans on my pools" }).click();
      const row = desk.getByTestId("lender-loan-history").locator(`[data-loan="${loan}"]`).first();
      await row.getByText("Sold at liquidation", { exact: true }).waitFor({ timeout: 30_000 });
      expect(await row.textContent()).toContain(`sold at liquidation for ${proceeds}, all to the lender`);
      expect(await row.textContent()).not.toContain("collateral to the lender");
      await shot(desk, `36-auto-sold-history-${width}`);
      // the borrower's bell: the collateral was sold, for what, and that nothing comes back
      await borrower.setViewportSize({ width, height });
      await borrower.goto(`${stack!.webUrl}/loans`);
      await borrower.getByTestId("notifications-button").click();
      const centre = borrower.getByTestId("notifications-panel");
      const note = centre.locator('[data-kind="auto-sold"]').first();
      await note.waitFor({ timeout: 30_000 });
      expect(await note.textContent()).toMatch(
        new RegExp(
          `^Collateral sold at liquidation.*its collateral was sold for ${proceeds.replace(/[.]/g, "\\.")}, all paid to the lender's bank`,
        ),
      );
      expect(await note.textContent()).not.toContain("the collateral went to the lender");
      await shot(borrower, `36-auto-sold-bell-${width}`);
      await centre.getByRole("button", { name: "Close notifications" }).click();
    }
    await desk.context().close();
    expect(pageErrors).toEqual([]);
  });
});
