/**
 * @vitest-environment node
 */
import { mkdir, readFile } from "node:fs/promises";
import { DEMO_WORLD } from "@cistern/localnet";
import { formatUnits, JITO_TIP_ACCOUNTS, parseUnits, SOL_MINT, USDC_MINT } from "@cistern/protocol";
import {
  decodeBankAccount,
  decodeLoanAccount,
  decodeMetadata,
  decodePoolAccount,
  findMetadataPda,
} from "@cistern/sdk";
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAssociatedTokenIdempotent,
  findAssociatedTokenAddress,
} from "../../api/src/tx/builder/wire-instructions.ts";
import { type SwapInstructionsResponse, toKitInstruction } from "../../api/src/venues/swap/swap-venue.ts";
import { formatAmount } from "../src/kit/format.ts";
import { getAccountData, getTokenBalance, parseShownUsdc } from "./chain-reads.ts";
import { launchChromium, TEST_OUTPUT_DIR } from "./harness.ts";
import {
  confirmed,
  createSolTokenPool,
  createUsdcNftPool,
  findSeriousA11yViolations,
  openAs,
  shot,
} from "./journey-helpers.ts";
import { JOURNEY_SLOT_MS, rpc, type Stack, startStack } from "./stack.ts";

let stack: Stack | undefined;
let browser: Browser | undefined;
let lender: Page;
let borrower: Page;
const lenderKey = Keypair.generate();
const borrowerKey = Keypair.generate();
const pageErrors: string[] = [];
const JUP_TOKEN = DEMO_WORLD.tokens.find((t) => t.symbol === "JUP")!;
const JUP = JUP_TOKEN.mint;
const JUP_DECIMALS = JUP_TOKEN.decimals;
let faucetNfts: { mint: string; collectionId: string; name: string }[] = [];
/** The borrower's JUP once 1,000 are locked in the token loan (a full market sell returns none of them). */
let jupAfterBorrow = 0n;

const tokenBalance = (owner: string, mint: string) => getTokenBalance(stack!.localnet.rpcUrl, owner, mint);

beforeAll(async () => {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  stack = await startStack({ slotMs: JOURNEY_SLOT_MS });
  for (const key of [lenderKey, borrowerKey]) {
    const given = await stack.localnet.faucet(key.publicKey.toBase58());
    await stack.localnet.fundWallet(key.publicKey.toBase58(), { lamports: 100_000_000_000n });
    if (key === borrowerKey) faucetNfts = given.nfts;
  }
  browser = await launchChromium();
  lender = await openAs(browser, lenderKey, pageErrors);
  borrower = await openAs(browser, borrowerKey, pageErrors);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("journeys (headless Chromium, localnet, API write path)", { timeout: 180_000 }, () => {
  it("a lender creates a USDC nft-pool (bank opened by the deposit) and the bank matches the chain", async () => {
    const collections = [...new Set(faucetNfts.map((n) => n.collectionId))].slice(0, 4);
    await lender.goto(`${stack!.webUrl}/my-pools/new`);
    const form = lender.getByRole("form", { name: "Create pool" });
    await form.waitFor({ timeout: 30_000 });
    await lender.getByTestId("first-bank-note").waitFor({ timeout: 30_000 });
    // Bad input first: the message shows and nothing is sent.
    await form.getByRole("button", { name: "Create pool" }).click();
    await form.getByText("Enter how much to put in the pool.").waitFor();
    await form.getByText("Give the pool a name.").waitFor();
    expect(await lender.locator(".toast-title", { hasText: /Transaction|Preparing|Waiting/ }).count()).toBe(
      0,
    );

    await shot(lender, "01-create-nft-pool-error");
    await createUsdcNftPool(lender, stack!.webUrl, { amount: "500", collections, usdcMint: USDC_MINT });
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

  it("a lender creates a SOL defi-pool accepting JUP", async () => {
    await lender.goto(`${stack!.webUrl}/my-pools/new`);
    const form = lender.getByRole("form", { name: "Create pool" });
    await form.waitFor({ timeout: 30_000 });
    await form.getByText("Token collateral").click();
    await form.getByLabel("Currency").selectOption(SOL_MINT);
    await lender.getByTestId("first-bank-note").waitFor({ timeout: 30_000 });
    await form.getByLabel("Pool name").fill("JUP desk");
    // required fields are marked
    expect(await form.getByText("(required)").count()).toBeGreaterThanOrEqual(4);
    // a negative amount says so before anything is signed
    await form.getByLabel("Amount to lend").fill("-5");
    await form.getByRole("button", { name: "Create pool" }).click();
    await form.getByText("The amount must be positive.").waitFor();
    await form.getByLabel("Amount to lend").fill("20");
    await form.getByLabel("APR (%)").fill("20");
    await form.getByLabel("Maximum duration (days)").fill("7");
    await form.getByLabel("Maximum loan (USD)").fill("100000");
    await form.getByRole("button", { name: "Add token" }).click();
    await form.getByLabel("Token", { exact: true }).selectOption(JUP);
    await form.getByLabel("LTV (%)").fill("50");
    await confirmed(lender, () => form.getByRole("button", { name: "Create pool" }).click(), 2);
    await lender.waitForURL(/\/my-pools$/);
    await lender.getByTestId("my-pools").getByText("Token").waitFor({ timeout: 30_000 });
    // the name given at creation is saved (the wallet signed it once the pool existed)
    await lender.getByTestId("my-pools").getByText("JUP desk").first().waitFor({ timeout: 30_000 });
    const vault = await rpc<{ value: { amount: string } }>(stack!.localnet.rpcUrl, "getTokenAccountBalance", [
      await bankVault(lenderKey.publicKey.toBase58(), SOL_MINT),
    ]);
    expect(vault.value.amount).toBe("20000000000");
    await shot(lender, "03-my-pools-two");
    // another user's first visit lists the new pool at once (the list cache is bounded, not stale), with what it accepts
    const visitor = await openAs(browser!, Keypair.generate(), pageErrors);
    await visitor.goto(`${stack!.webUrl}/pools`);
    const currencyFilter = visitor.getByRole("form", { name: "Filter pools" }).getByLabel("Currency");
    await currencyFilter.waitFor({ timeout: 30_000 });
    expect(await currencyFilter.inputValue()).toBe(""); // "All" currencies by default
    await visitor
      .getByTestId("pool-accepts")
      .filter({ hasText: "Accepts JUP at 50% LTV" })
      .first()
      .waitFor({ timeout: 5_000 });
    // a wallet without loans sees an empty state on the Dashboard, not $0 axes
    await visitor.goto(`${stack!.webUrl}/dashboard`);
    await visitor
      .getByText("No loans in the last 30 days: borrow to see your liabilities and collateral here.")
      .waitFor({ timeout: 30_000 });
    await visitor.context().close();
  });

  it("a borrower borrows USDC against an NFT: the quote shows before signing, the chain pays exactly it", async () => {
    const me = borrowerKey.publicKey.toBase58();
    const before = await tokenBalance(me, USDC_MINT);
    await borrowNft(faucetNfts[0]!.name, "50", "7");
    expect(await tokenBalance(me, USDC_MINT)).toBe(before + 50_000_000n);
    // a fresh 7-day loan is Active, with no "due soon" note (that is for its last day)
    await borrower.goto(`${stack!.webUrl}/loans`);
    await borrower
      .getByTestId("ongoing-loans")
      .locator("tbody tr")
      .first()
      .getByText("Active")
      .waitFor({ timeout: 30_000 });
    expect(await borrower.getByTestId("near-expiry").count()).toBe(0);
    // the loan's due date and grace end as a calendar file
    const first = borrower.getByTestId("ongoing-loans").locator("tbody tr").first();
    const [download] = await Promise.all([
      borrower.waitForEvent("download"),
      first.getByTestId("loan-calendar").click(),
    ]);
    const ics = await readFile((await download.path())!, "utf8");
    const listed = (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}`)).json()) as {
      loans: { pubkey: string; expiredAt: number }[];
    };
    const firstLoan = await first.getAttribute("data-loan");
    const due = listed.loans.find((l) => l.pubkey === firstLoan)!.expiredAt;
    expect(ics).toContain(`DTSTART:${new Date(due * 1000).toISOString().replace(/[-:]/g, "").slice(0, 15)}Z`);
    expect(ics).toContain("SUMMARY:Cistern loan due: 50 USDC against");
    // and every loan's dates as a private feed a calendar app subscribes to (the wallet signs once)
    await borrower.getByRole("button", { name: "Subscribe to your loan dates in a calendar app" }).click();
    const feedUrl = (await borrower.getByTestId("calendar-feed-url").textContent({ timeout: 30_000 }))!;
    const feed = await (await fetch(feedUrl)).text();
    expect(feed).toContain(
      `DTSTART:${new Date(due * 1000).toISOString().replace(/[-:]/g, "").slice(0, 15)}Z`,
    );
    await expectShownBalance(borrower, me, USDC_MINT, 6);
  });

  it("the borrower and the lender chat in the loan's room in real time after signing in; a third wallet cannot read it", async () => {
    await borrower.goto(`${stack!.webUrl}/loans`);
    const row = borrower.getByTestId("ongoing-loans").locator("tbody tr").first();
    await row.waitFor({ timeout: 30_000 });
    const loan = (await row.getAttribute("data-loan"))!;
    await row.getByRole("button", { name: "Message lender" }).click();
    const panel = borrower.getByTestId("chat-panel");
    await panel.getByRole("button", { name: "Sign in to chat" }).click();
    // the room is the loan's timeline as well as its conversation
    await panel
      .getByTestId("chat-system-message")
      .filter({ hasText: /^Loan taken: 50 USDC for 7d at [\d.]+% APR\. Due / })
      .waitFor({ timeout: 20_000 });
    const box = panel.getByRole("textbox", { name: "Message" });
    await box.fill("Hello! Could I extend this loan next week?");
    await box.press("Enter");
    await panel
      .getByTestId("chat-message")
      .filter({ hasText: "Could I extend" })
      .waitFor({ timeout: 10_000 });
    // too long: the plain sentence, nothing sent
    await box.fill("x".repeat(1001));
    await panel.getByRole("button", { name: "Send" }).click();
    expect(await panel.getByTestId("chat-send-error").textContent()).toBe(
      "A message can have at most 1000 characters.",
    );
    await box.fill("");

    // The lender signs in from the loan's row on their side and answers; the borrower sees it without reloading.
    await lender.goto(`${stack!.webUrl}/loans`);
    await lender.getByRole("tab", { name: "Loans on my pools" }).click();
    const lent = lender.getByTestId("lender-loans").locator(`tbody tr[data-loan="${loan}"]`);
    await lent.getByRole("button", { name: "Message borrower" }).click();
    const lenderPanel = lender.getByTestId("chat-panel");
    await lenderPanel.getByRole("button", { name: "Sign in to chat" }).click();
    await lenderPanel
      .getByTestId("chat-message")
      .filter({ hasText: "Could I extend" })
      .waitFor({ timeout: 10_000 });
    const reply = lenderPanel.getByRole("textbox", { name: "Message" });
    await reply.fill("Yes, <b>extend</b> from the Loans page.");
    await reply.press("Enter");
    const arrived = panel.getByTestId("chat-message").filter({ hasText: "from the Loans page" });
    await arrived.waitFor({ timeout: 10_000 });
    // text, never HTML
    expect(await arrived.locator(".chat-text").textContent()).toBe("Yes, <b>extend</b> from the Loans page.");
    expect(await arrived.locator("b").count()).toBe(0);
    expect(await panel.getByTestId("chat-status").textContent()).toBe("Online");
    await shot(borrower, "04c-chat");

    // The API drops every socket (as a restart does): what was sent meanwhile shows once the socket is back.
    stack!.api.chat.dropConnections();
    await panel
      .getByTestId("chat-status")
      .filter({ hasText: "Offline: reconnecting…" })
      .waitFor({ timeout: 10_000 });
    await reply.fill("Sent while you were offline.");
    await reply.press("Enter");
    await lenderPanel.getByTestId("chat-message").filter({ hasText: "while you were offline" }).waitFor();
    await panel.getByTestId("chat-status").filter({ hasText: "Online" }).waitFor({ timeout: 20_000 });
    await panel
      .getByTestId("chat-message")
      .filter({ hasText: "while you were offline" })
      .waitFor({ timeout: 10_000 });

    // Unread: with the lender's panel closed, a new message shows as a count on the chat button.
    await lenderPanel.getByRole("button", { name: "Close chat" }).click();
    await box.fill("Thanks!");
    await box.press("Enter");
    await lender.getByTestId("chat-unread").filter({ hasText: "1" }).waitFor({ timeout: 10_000 });

    // At 360 px the panel stays on screen.
    await borrower.setViewportSize({ width: 360, height: 740 });
    const frame = (await panel.boundingBox())!;
    expect(frame.x).toBeGreaterThanOrEqual(0);
    expect(frame.x + frame.width).toBeLessThanOrEqual(360);
    await borrower.screenshot({ path: `${TEST_OUTPUT_DIR}/journey-04d-chat-360.png` });
    await borrower.setViewportSize({ width: 1280, height: 900 });

    // Stored: after a reload the conversation is still there (the credential is cached too).
    await borrower.reload();
    await borrower.getByTestId("chat-button").click();
    await panel.locator(`[data-room="loan:${loan}"]`).click();
    await panel.getByTestId("chat-message").filter({ hasText: "Thanks!" }).waitFor({ timeout: 10_000 });
    await panel.getByRole("button", { name: "Close chat" }).click();

    // A third wallet that opens the room's link is refused in plain words and reads nothing.
    const stranger = await openAs(browser!, Keypair.generate(), pageErrors);
    await stranger.goto(`${stack!.webUrl}/loans?chat=loan:${loan}`);
    const strangerPanel = stranger.getByTestId("chat-panel");
    await strangerPanel.getByRole("button", { name: "Sign in to chat" }).click();
    await strangerPanel
      .getByTestId("chat-error")
      .filter({ hasText: "Only the two people in this conversation can read it." })
      .waitFor({ timeout: 10_000 });
    expect(await strangerPanel.getByTestId("chat-message").count()).toBe(0);
    await stranger.context().close();
  });

  it("a borrower borrows SOL against JUP tokens", async () => {
    const me = borrowerKey.publicKey.toBase58();
    const jupBefore = await tokenBalance(me, JUP);
    await borrower.goto(`${stack!.webUrl}/borrow?tab=token`);
    await borrower.getByLabel("Collateral token").waitFor({ timeout: 30_000 });
    await borrower.getByLabel("Collateral token").selectOption(JUP);
    await borrower.getByLabel("Collateral amount").fill("1000");
    const amount = borrower.getByLabel(/Amount \(SOL\)/);
    await amount.waitFor({ timeout: 30_000 });
    // Bad input: the message shows and nothing is sent.
    await amount.fill("0.001");
    await borrower.getByText(/^This pool's loans start at [\d.]+ SOL\.$/).waitFor();
    await borrower.getByTestId("borrow-submit").click();
    expect(await borrower.locator(".toast-title", { hasText: /Transaction|Preparing/ }).count()).toBe(0);
    await amount.fill("0.1");
    await borrower.getByTestId("quote").waitFor();
    await shot(borrower, "05-borrow-token-quote");
    await confirmed(borrower, () => borrower.getByTestId("borrow-submit").click());
    const jupAfter = await tokenBalance(me, JUP);
    expect(jupBefore - jupAfter).toBe(1000n * 10n ** BigInt(JUP_DECIMALS));
    jupAfterBorrow = jupAfter;
    // the Dashboard's figures agree: "Collateral locked" is today's point of the 30-day chart
    await borrower.goto(`${stack!.webUrl}/dashboard`);
    const locked = borrower.getByTestId("collateral-total");
    await locked.waitFor({ timeout: 30_000 });
    const latest = borrower.getByTestId("latest-collateral");
    await latest.waitFor({ timeout: 30_000 });
    const usd = (text: string | null) => Number((text ?? "").split("$")[1]!.replace(/,/g, ""));
    const [total, today] = [usd(await locked.textContent()), usd(await latest.textContent())];
    expect(total).toBeGreaterThan(0);
    expect(Math.abs(total - today) / total).toBeLessThan(0.01); // prices drift slightly between the two reads
  });

  it("repays one loan, then two at once; the USDC paid is the amount shown", async () => {
    const me = borrowerKey.publicKey.toBase58();
    await borrowNft(faucetNfts[1]!.name, "30", "7");
    await borrowNft(faucetNfts[2]!.name, "25", "7");
    await borrower.goto(`${stack!.webUrl}/loans`);
    const ongoing = borrower.getByTestId("ongoing-loans");
    await ongoing.locator("tbody tr").nth(3).waitFor({ timeout: 30_000 });
    await shot(borrower, "06-loans");
    const row = ongoing.locator("tbody tr", { hasText: "50 USDC" }).first();
    const owed = parseShownUsdc((await row.getByTestId("owed-now").textContent()) ?? "");
    // owed amounts carry their USD value (about 50 USD: USDC's local price drifts around 1 USD)
    const owedUsd = Number((await row.getByTestId("owed-usd").textContent())!.split("$")[1]);
    expect(Math.abs(owedUsd - 50)).toBeLessThan(1.5);
    const before = await tokenBalance(me, USDC_MINT);
    await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
    // the shown amount is rounded up to the cent: the chain takes at most it, less than a cent below
    const paid = before - (await tokenBalance(me, USDC_MINT));
    expect(paid).toBeLessThanOrEqual(owed);
    expect(owed - paid).toBeLessThan(10_000n);
    const closed = borrower.getByTestId("loan-history").locator("tbody tr").first();
    await closed.waitFor({ timeout: 30_000 });
    // History says when it closed, what was paid and the interest it earned
    expect(await closed.getByTestId("paid").textContent()).toMatch(/^50\.\d+ USDC$/);
    expect(await closed.getByTestId("interest-earned").textContent()).toMatch(/^0\.\d+ USDC$/);

    // ongoing loans are listed soonest due first
    const mine = (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}`)).json()) as {
      loans: { pubkey: string; status: string; createdAt: number; duration: number }[];
    };
    const byDue = mine.loans
      .filter((l) => l.status === "ongoing")
      .sort((a, b) => a.createdAt + a.duration - (b.createdAt + b.duration))
      .map((l) => l.pubkey);
    const shown = await ongoing
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-loan")));
    expect(shown).toEqual(byDue);
    // a disabled action says why
    expect(await borrower.getByTestId("repay-selected-why").textContent()).toBe(
      "Tick two or more loans to repay them together.",
    );
    const two = ["30 USDC", "25 USDC"].map((text) => ongoing.locator("tbody tr", { hasText: text }).first());
    let total = 0n;
    for (const r of two) {
      total += parseShownUsdc((await r.getByTestId("owed-now").textContent()) ?? "");
      await r.getByRole("checkbox").check();
    }
    const repayAll = borrower.getByTestId("repay-selected");
    expect(await repayAll.textContent()).toContain("Repay selected (2)");
    expect(await borrower.getByTestId("repay-selected-why").count()).toBe(0);
    const before2 = await tokenBalance(me, USDC_MINT);
    await confirmed(borrower, () => repayAll.click());
    const paid2 = before2 - (await tokenBalance(me, USDC_MINT));
    expect(paid2).toBeLessThanOrEqual(total);
    expect(total - paid2).toBeLessThan(20_000n);
    await borrower.getByTestId("loan-history").locator("tbody tr").nth(2).waitFor({ timeout: 30_000 });
    await expectShownBalance(borrower, me, USDC_MINT, 6);
  });

  it("extends a loan with a fresh quote, warns near expiry; the lender liquidates it past grace and gets the NFT", async () => {
    await borrowNft(faucetNfts[3]!.name, "40", "7");
    await borrower.goto(`${stack!.webUrl}/loans`);
    const ongoing = borrower.getByTestId("ongoing-loans");
    const row = ongoing.locator("tbody tr", { hasText: "40 USDC" }).first();
    await row.waitFor({ timeout: 30_000 });
    await row.getByRole("button", { name: "Extend" }).click();
    const panel = borrower.getByTestId("extend-panel");
    await panel.getByLabel(/New duration/).fill("3");
    // an extension reads as one: what is paid now, the new term and due date; nothing is "received"
    const terms = panel.getByTestId("extend-terms");
    await terms.waitFor();
    expect(await terms.getByTestId("extend-principal").textContent()).toContain(
      "40 USDC stays borrowed; nothing is paid out again",
    );
    expect(await terms.getByTestId("extend-new-term").textContent()).toContain(
      "counted from when the extension lands",
    );
    expect(await panel.getByText("You receive").count()).toBe(0);
    await shot(borrower, "07-extend-quote");
    const historyBefore = await borrower.getByTestId("loan-history").locator("tbody tr").count();
    await confirmed(borrower, () => panel.getByTestId("extend-submit").click());
    const extended = ongoing
      .locator("tbody tr", { hasText: "40 USDC" })
      .filter({ hasText: "Active" })
      .first();
    await extended
      .getByTestId("loan-chain")
      .getByText(/^ extended once · first taken /)
      .waitFor({ timeout: 30_000 });
    // the loan the extension closed is not in History as a repayment the borrower never made
    expect(await borrower.getByTestId("loan-history").locator("tbody tr").count()).toBe(historyBefore);

    // 2.5 days later the extended loan (3 days) is near expiry.
    await rpc(stack!.localnet.rpcUrl, "localnet_advanceClock", [Math.round(2.5 * 86_400)]);
    await borrower.reload();
    await borrower.getByTestId("near-expiry").waitFor({ timeout: 30_000 });
    await shot(borrower, "08-near-expiry");
    // the notification centre says so too, with a count on the bell until it is opened
    await borrower.getByTestId("notifications-count").waitFor({ timeout: 30_000 });
    await borrower.getByTestId("notifications-button").click();
    const centre = borrower.getByTestId("notifications-panel");
    await centre.locator('[data-kind="due-soon"]').waitFor({ timeout: 30_000 });
    expect(await centre.locator('[data-kind="due-soon"]').first().textContent()).toMatch(
      /^A loan is due soon[\d.,]+ USDC loan on \S.*Repay [\d.,]+ USDC by .+ UTC \(in \d+h \d+m\) to keep your collateral\.$/,
    );
    // the loan the extension closed reads as an extension, never as a repayment with the collateral back
    const extendedNote =
      /^Loan extended40 USDC loan on \S.*Your 40 USDC loan was extended: you paid the interest so far and it continues as a new loan at [\d.]+% APR, due .+ UTC\. Your collateral stays locked until you repay it\.$/;
    expect(await centre.locator('[data-kind="extended"]').first().textContent()).toMatch(extendedNote);
    expect(await centre.textContent()).not.toMatch(/40 USDC loan is repaid/);
    await shot(borrower, "08b-notifications");
    await centre.getByRole("button", { name: "Close notifications" }).click();
    expect(await borrower.getByTestId("notifications-count").count()).toBe(0);
    // the loan's due date and grace end as a calendar file, downloaded from its row
    const nearRow = ongoing
      .locator("tbody tr", { hasText: "40 USDC" })
      .filter({ hasText: "Expires soon" })
      .first();
    const [nearDownload] = await Promise.all([
      borrower.waitForEvent("download"),
      nearRow.getByTestId("loan-calendar").click(),
    ]);
    expect(nearDownload.suggestedFilename()).toMatch(/^cistern-loan-\w{8}\.ics$/);
    const nearIcs = await readFile((await nearDownload.path())!, "utf8");
    expect(nearIcs).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(nearIcs).toMatch(/\r\nSUMMARY:Cistern loan due: 40 USDC against \S.*\r\n/);
    expect(nearIcs).toContain("SUMMARY:Cistern grace ends:");

    // Past expiry and its 3 h grace: the lender sees it as past grace.
    await rpc(stack!.localnet.rpcUrl, "localnet_advanceClock", [86_400]);
    await lender.goto(`${stack!.webUrl}/loans`);
    await lender.getByRole("tab", { name: "Loans on my pools" }).click();
    const lent = lender.getByTestId("lender-loans");
    const due = lent.locator("tbody tr", { hasText: "40 USDC" }).filter({ hasText: "Past grace" }).first();
    await due.waitFor({ timeout: 30_000 });
    await shot(lender, "09-lender-loans");

    // The borrower sees the page's loudest warning with its Repay, and why Extend is off.
    await borrower.goto(`${stack!.webUrl}/loans`);
    const pastDue = borrower.getByTestId("past-due");
    await pastDue
      .getByText(/The lender can claim your collateral at any moment\./)
      .waitFor({ timeout: 30_000 });
    expect(await pastDue.getByRole("button", { name: /^Repay [\d.]+ USDC$/ }).count()).toBe(1);
    await borrower.getByTestId("extend-why").first().waitFor();
    await shot(borrower, "08b-past-due");
    await borrower.setViewportSize({ width: 360, height: 740 });
    // every cell of the stacked loan cards stays on screen, long texts wrap
    const rights = await borrower
      .getByTestId("ongoing-loans")
      .locator("tbody th, tbody td, tbody .pg-why")
      .evaluateAll((els) =>
        els.map(
          (e) =>
            [Math.round(e.getBoundingClientRect().right), e.tagName, e.textContent?.slice(0, 30)] as const,
        ),
      );
    expect(rights.filter(([right]) => right > 360)).toEqual([]);
    await shot(borrower, "08c-past-due-360");
    // and the bell at 360 px says the same of the extension
    await borrower.getByTestId("notifications-button").click();
    const phoneCentre = borrower.getByTestId("notifications-panel");
    await phoneCentre.locator('[data-kind="extended"]').first().waitFor({ timeout: 30_000 });
    expect(await phoneCentre.locator('[data-kind="extended"]').first().textContent()).toMatch(extendedNote);
    await phoneCentre.getByRole("button", { name: "Close notifications" }).click();
    await borrower.setViewportSize({ width: 1280, height: 900 });

    // The liquidation keeper (on by default on the localnet) ends it while the lender has Loans on my pools open,
    // at 1280 px, and on a phone whose RPC socket dropped (360 px): the first shows the ending without a reload;
    // on the second, the stale Liquidate is refused in one plain sentence from the error's code.
    const nftMint = faucetNfts[3]!.mint;
    const owner = lenderKey.publicKey.toBase58();
    expect(await tokenBalance(owner, nftMint)).toBe(0n);
    const loanId = (await due.getAttribute("data-loan"))!;
    const phone = await openAs(browser!, lenderKey, pageErrors);
    await phone.routeWebSocket(/.*/, () => undefined); // no socket reaches a server
    await phone.setViewportSize({ width: 360, height: 740 });
    await phone.goto(`${stack!.webUrl}/loans`);
    await phone.getByRole("tab", { name: "Loans on my pools" }).click();
    const stale = phone.getByTestId("lender-loans").locator(`tr[data-loan="${loanId}"]`);
    await stale.getByTestId("liquidate").waitFor({ timeout: 30_000 });
    expect((await stack!.runKeeperRound()).liquidated.map((l) => l.loan)).toContain(loanId);
    // the chain: the NFT is in the pool owner's wallet, the loan Liquidated
    expect(await tokenBalance(owner, nftMint)).toBe(1n);
    expect(await tokenBalance(borrowerKey.publicKey.toBase58(), nftMint)).toBe(0n);
    expect(decodeLoanAccount(await accountData(loanId)).status).toBe("Liquidated");
    // 1280 px: the loan leaves Ongoing for History as Liquidated within seconds (the lists poll every 30 s)
    await lender
      .getByTestId("lender-loan-history")
      .locator(`tr[data-loan="${loanId}"]`, { hasText: "Liquidated" })
      .waitFor({ timeout: 8_000 });
    expect(await lent.locator(`tr[data-loan="${loanId}"]`).count()).toBe(0);
    expect(await lender.getByTestId("liquidate").count()).toBe(0);
    await shot(lender, "09b-liquidated-by-keeper");
    // 360 px, no socket: Liquidate is still offered; the click reads how the loan ended, never an address
    await phone.evaluate(
      "document.querySelectorAll('.toast').forEach((t) => t.setAttribute('data-seen', ''))",
    );
    await stale.getByTestId("liquidate").click();
    const refusal = phone.locator(".toast-error:not([data-seen])");
    await refusal.waitFor({ timeout: 30_000 });
    expect(await refusal.locator(".toast-title").textContent()).toBe(
      "Error in Liquidate Loan: This loan was already liquidated: the NFT is in your wallet.",
    );
    const refusalText = (await refusal.textContent()) ?? "";
    expect(refusalText).not.toMatch(/[1-9A-HJ-NP-Za-km-z]{32,44}/);
    // nothing invented: with no SUPPORT_URL configured, the support sentence has no link, the footer none
    expect(refusalText).toContain("Please reach out to us on Discord if you need assistance.");
    expect(await refusal.locator("a").count()).toBe(0);
    expect(await phone.locator(".app-footer a").count()).toBe(0);
    await shot(phone, "09c-liquidate-refused-360");
    // and the list shows the ending
    await phone
      .getByTestId("lender-loan-history")
      .locator(`tr[data-loan="${loanId}"]`, { hasText: "Liquidated" })
      .waitFor({ timeout: 10_000 });
    expect(await phone.getByTestId("liquidate").count()).toBe(0);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await phone.context().close();
  });

  it("a lender's profile name shows on the borrower's loan; a loan in Jito mode lands and tips Jito", async () => {
    // The lender saves a display name on the Dashboard (the wallet signs the link message).
    await lender.goto(`${stack!.webUrl}/dashboard`);
    const profile = lender.getByRole("form", { name: "Your profile" });
    await profile.waitFor({ timeout: 30_000 });
    await profile.getByTestId("profile-submit").click();
    await profile.getByText("Enter a display name.").waitFor();
    await profile.getByLabel("Display name").fill("Otter Lender");
    await profile.getByTestId("profile-submit").click();
    await lender.locator(".toast-title", { hasText: "Profile saved" }).waitFor({ timeout: 30_000 });
    // droplets state how they are earned (apps/api/src/users/droplets.ts), at 1280 and 360 px
    const droplets = lender.getByTestId("droplets");
    await droplets.getByTestId("droplets-rule").waitFor({ timeout: 30_000 });
    expect(await droplets.getByTestId("droplets-rule").textContent()).toMatch(
      /^How droplets are earned: 1 droplet for every USD-day of principal you had outstanding, as a borrower and as a lender .*a \$1,000 loan open for 3 days earns 3,000\./,
    );
    await shot(lender, "10-profile-rewards");
    await lender.setViewportSize({ width: 360, height: 740 });
    await droplets.getByTestId("droplets-rule").scrollIntoViewIfNeeded();
    const ruleBox = (await droplets.getByTestId("droplets-rule").boundingBox())!;
    expect(ruleBox.x + ruleBox.width).toBeLessThanOrEqual(360);
    await shot(lender, "10-profile-rewards-360");
    await lender.setViewportSize({ width: 1280, height: 900 });

    // The borrower chooses Jito in Settings and borrows: the loan lands and one tip account gets the tip.
    const tipBalances = async () => {
      const { value } = await rpc<{ value: ({ lamports: number } | null)[] }>(
        stack!.localnet.rpcUrl,
        "getMultipleAccounts",
        [[...JITO_TIP_ACCOUNTS], { encoding: "base64" }],
      );
      return value.reduce((sum, a) => sum + BigInt(a?.lamports ?? 0), 0n);
    };
    const tipsBefore = await tipBalances();
    await borrower.goto(`${stack!.webUrl}/`);
    await borrower.getByTestId("open-settings").click();
    await borrower.getByLabel("Broadcast mode").selectOption("jito");
    await borrower.keyboard.press("Escape");
    // 15 USDC: well above the pool's 10 USD minimum whatever the local price drift
    await borrowNft(faucetNfts[0]!.name, "15", "7");
    expect((await tipBalances()) - tipsBefore).toBe(500_000n); // the spec's default amount, 0.0005 SOL

    // Its row names the lender by profile name; repaying (still in Jito mode) lands too.
    await borrower.goto(`${stack!.webUrl}/loans`);
    const row = borrower.getByTestId("ongoing-loans").locator("tbody tr", { hasText: "15 USDC" }).first();
    await row.getByTestId("loan-party").getByText("Otter Lender").waitFor({ timeout: 30_000 });
    await shot(borrower, "10b-loan-lender-profile");
    await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
    expect((await tipBalances()) - tipsBefore).toBe(1_000_000n);
    await borrower.getByTestId("open-settings").click();
    await borrower.getByLabel("Broadcast mode").selectOption("priorityFees");
    await borrower.keyboard.press("Escape");
  });

  it("market-sells the token loan: the terms show before signing, the loan ends Sold, the borrower keeps the rest", async () => {
    const me = borrowerKey.publicKey.toBase58();
    await borrower.goto(`${stack!.webUrl}/loans`);
    const row = borrower.getByTestId("ongoing-loans").locator("tbody tr", { hasText: "0.1 SOL" }).first();
    await row.waitFor({ timeout: 30_000 });
    const loanId = (await row.getAttribute("data-loan"))!;
    // the amount locked shows once the currency list has loaded (until then the row says "token")
    await row.locator("th", { hasText: "1,000 JUP locked" }).waitFor({ timeout: 30_000 });
    await row.getByTestId("market-sell").click();
    const panel = borrower.getByTestId("market-sell-panel");
    const keep = panel.getByTestId("market-sell-keep");
    await keep.waitFor({ timeout: 30_000 });
    // 1,000 JUP at 0.8 USD against SOL at 150 USD: about 5.3 SOL, of which 0.1 SOL and its interest repay the loan
    expect(await panel.getByTestId("market-sell-quote").textContent()).toMatch(/You sell1,000 JUP/);
    expect(await keep.textContent()).toMatch(/about 5\.\d+ SOL/);
    await shot(borrower, "10c-market-sell-quote");
    const solBefore = BigInt(
      (await rpc<{ value: number }>(stack!.localnet.rpcUrl, "getBalance", [me])).value,
    );
    await confirmed(borrower, () => panel.getByTestId("market-sell-submit").click());
    const solAfter = BigInt((await rpc<{ value: number }>(stack!.localnet.rpcUrl, "getBalance", [me])).value);
    expect(solAfter - solBefore).toBeGreaterThan(5_000_000_000n); // the proceeds above what was owed, unwrapped
    expect(await tokenBalance(me, JUP)).toBe(jupAfterBorrow);
    await borrower
      .getByTestId("loan-history")
      .locator(`tr[data-loan="${loanId}"]`)
      .waitFor({ timeout: 30_000 });
    const loans = (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}`)).json()) as {
      loans: { pubkey: string; status: string }[];
    };
    expect(loans.loans.find((l) => l.pubkey === loanId)?.status.toLowerCase()).toBe("sold");
  });

  it("opens a 2x-LTV margin position in JUP with SOL on the Margin page, then repays it from Loans and gets the JUP", async () => {
    const me = borrowerKey.publicKey.toBase58();
    await borrower.goto(`${stack!.webUrl}/margin`);
    await borrower.getByLabel("Token to buy").waitFor({ timeout: 30_000 });
    await borrower.getByLabel("Token to buy").selectOption(JUP);
    await borrower.getByLabel("Pay with").selectOption(SOL_MINT);
    // bad input first: the message shows and no terms are offered
    await borrower.getByLabel(/Down payment/).fill("1000000");
    await borrower
      .getByTestId("down-payment-error")
      .getByText(/^You hold [\d,.]+ SOL\.$/)
      .waitFor();
    expect(await borrower.getByTestId("margin-terms").count()).toBe(0);
    await borrower.getByLabel(/Down payment/).fill("1");
    const terms = borrower.getByTestId("margin-terms");
    await terms
      .getByTestId("margin-buys")
      .getByText(/about [\d,.]+ JUP/)
      .waitFor({ timeout: 30_000 });
    // the pool lends 50% LTV against JUP: at most 2x, a little less after price impact and slippage
    // (the oracle's drifting price may value JUP a little above the venue's, which allows the full 2x)
    expect(await terms.getByTestId("margin-leverage").textContent()).toMatch(/^(1\.9\d|2\.00)x$/);
    expect(await terms.getByTestId("margin-plain").textContent()).toMatch(
      /^Your 1 SOL and a (0\.9\d+|1) SOL loan buy JUP, locked in the loan's escrow\./,
    );
    await shot(borrower, "10e-margin-terms");
    await borrower.setViewportSize({ width: 360, height: 740 });
    const box = await terms.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    await shot(borrower, "10f-margin-terms-360");
    await borrower.setViewportSize({ width: 1280, height: 900 });
    const solBefore = BigInt(
      (await rpc<{ value: number }>(stack!.localnet.rpcUrl, "getBalance", [me])).value,
    );
    const jupBefore = await tokenBalance(me, JUP);
    await confirmed(borrower, () => terms.getByTestId("margin-submit").click());
    const solAfter = BigInt((await rpc<{ value: number }>(stack!.localnet.rpcUrl, "getBalance", [me])).value);
    // the down payment (1 SOL) plus network fee and rent left the wallet; no JUP reached it (it is locked)
    expect(solBefore - solAfter).toBeGreaterThanOrEqual(1_000_000_000n);
    expect(solBefore - solAfter).toBeLessThan(1_010_000_000n);
    expect(await tokenBalance(me, JUP)).toBe(jupBefore);
    const listed = (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}`)).json()) as {
      loans: { pubkey: string; status: string; kind: Record<string, unknown>; collateralAmount: string }[];
    };
    const position = listed.loans.find((l) => l.status === "ongoing" && "marginSwapLoan" in l.kind)!;
    expect(position).toBeDefined();
    // repay it from the Loans page: the locked JUP comes to the wallet
    await borrower.goto(`${stack!.webUrl}/loans`);
    const row = borrower.getByTestId("ongoing-loans").locator(`tr[data-loan="${position.pubkey}"]`);
    await row.getByText(/margin position/).waitFor({ timeout: 30_000 });
    await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
    expect((await tokenBalance(me, JUP)) - jupBefore).toBe(BigInt(position.collateralAmount));
    await borrower
      .getByTestId("loan-history")
      .locator(`tr[data-loan="${position.pubkey}"]`)
      .waitFor({ timeout: 30_000 });
  });

  it("swaps USDC into JUP with the swap widget: the amount received is within the quote shown", async () => {
    const me = borrowerKey.publicKey.toBase58();
    await borrower.goto(`${stack!.webUrl}/margin`);
    const widget = borrower.getByTestId("swap-widget");
    await widget.getByLabel("From", { exact: true }).waitFor({ timeout: 30_000 });
    await widget.getByLabel("From", { exact: true }).selectOption(USDC_MINT);
    await widget.getByLabel("To", { exact: true }).selectOption(JUP);
    await widget.getByLabel(/Amount/).fill("99999999");
    await widget
      .getByTestId("swap-amount-error")
      .getByText(/^You hold [\d,.]+ USDC\.$/)
      .waitFor();
    expect(await widget.getByTestId("swap-submit").isDisabled()).toBe(true);
    await widget.getByLabel(/Amount/).fill("8");
    const quote = widget.getByTestId("swap-quote");
    await quote.getByText(/about [\d,.]+ JUP/).waitFor({ timeout: 30_000 });
    // 8 USDC at 0.8 USD per JUP: about 10 JUP less the venue's fee and impact
    const least = parseUnits(
      (await quote.textContent())!.match(/at least ([\d,.]+) JUP/)![1]!.replace(/,/g, ""),
      JUP_DECIMALS,
    );
    const [usdcBefore, jupBefore] = [await tokenBalance(me, USDC_MINT), await tokenBalance(me, JUP)];
    // on a phone the success toast drops in at the top, clear of the form the user is working in
    await borrower.setViewportSize({ width: 360, height: 740 });
    await widget.getByTestId("swap-submit").scrollIntoViewIfNeeded();
    await confirmed(borrower, () => widget.getByTestId("swap-submit").click());
    const toast = (await borrower.locator(".toaster").boundingBox())!;
    const field = (await widget.getByLabel(/Amount/).boundingBox())!;
    expect(toast.y + toast.height <= field.y || field.y + field.height <= toast.y).toBe(true);
    await borrower.setViewportSize({ width: 1280, height: 900 });
    expect(usdcBefore - (await tokenBalance(me, USDC_MINT))).toBe(8_000_000n);
    const received = (await tokenBalance(me, JUP)) - jupBefore;
    expect(received).toBeGreaterThanOrEqual(least);
    expect(received).toBeLessThan(10n * 10n ** BigInt(JUP_DECIMALS));
    await borrower.setViewportSize({ width: 360, height: 740 });
    const box = await widget.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    await shot(borrower, "10g-swap-widget-360");
    await borrower.setViewportSize({ width: 1280, height: 900 });
  });

  it("a market sell that could no longer repay the loan (the price fell) says so in plain words and cannot be signed", async () => {
    // a new 0.1 SOL loan against 1,000 JUP
    await borrower.goto(`${stack!.webUrl}/borrow?tab=token`);
    await borrower.getByLabel("Collateral token").waitFor({ timeout: 30_000 });
    await borrower.getByLabel("Collateral token").selectOption(JUP);
    await borrower.getByLabel("Collateral amount").fill("1000");
    await borrower.getByLabel(/Amount \(SOL\)/).fill("0.1");
    await borrower.getByTestId("quote").waitFor({ timeout: 30_000 });
    await confirmed(borrower, () => borrower.getByTestId("borrow-submit").click());
    // a whale dumps 50 million JUP into the venue: 1,000 JUP now fetch far less than 0.1 SOL
    await dumpOnVenue(JUP, SOL_MINT, 50_000_000n * 10n ** BigInt(JUP_DECIMALS));
    await borrower.goto(`${stack!.webUrl}/loans`);
    const row = borrower.getByTestId("ongoing-loans").locator("tbody tr", { hasText: "0.1 SOL" }).first();
    await row.waitFor({ timeout: 30_000 });
    await row.getByTestId("market-sell").click();
    const panel = borrower.getByTestId("market-sell-panel");
    const error = panel.getByTestId("market-sell-error");
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toBe(
      "The sale would not bring enough to repay this loan, so nothing was sold. Repay the loan instead, or sell when the price recovers.",
    );
    expect(await panel.getByTestId("market-sell-submit").isDisabled()).toBe(true);
    await borrower.setViewportSize({ width: 360, height: 740 });
    await shot(borrower, "10d-market-sell-refused-360");
    await borrower.setViewportSize({ width: 1280, height: 900 });
    // the loan is untouched; the borrower repays it the usual way
    await panel.getByRole("button", { name: "Cancel" }).click();
    await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
  });

  it("a lender renames and updates a pool, deposits, withdraws, and closes an unused pool", async () => {
    const owner = lenderKey.publicKey.toBase58();
    const mine = (await (await fetch(`${stack!.apiUrl}/pool/get-by-owner?owner=${owner}`)).json()) as {
      pools: { pubkey: string; type: string; currency: string }[];
    };
    const usdcPool = mine.pools.find((p) => p.type === "nft-pool" && p.currency === USDC_MINT)!;
    await lender.goto(`${stack!.webUrl}/my-pools/${usdcPool.pubkey}`);
    const meta = lender.getByRole("form", { name: "Pool name and image" });
    await meta.waitFor({ timeout: 30_000 });
    await meta.getByLabel("Pool name").fill("Otter desk");
    await meta.getByTestId("metadata-submit").click();
    await lender.getByText("Name and image saved.").waitFor({ timeout: 30_000 });
    const terms = lender.getByRole("form", { name: "Update pool" });
    await terms.getByLabel("APR (%)").fill("abc");
    await terms.getByRole("button", { name: "Update pool" }).click();
    await terms.getByText("APR must be a number.").waitFor();
    await terms.getByLabel("APR (%)").fill("30");
    await shot(lender, "10-edit-pool");
    await confirmed(lender, () => terms.getByRole("button", { name: "Update pool" }).click());
    await lender.waitForURL(/\/my-pools$/);
    await lender.goto(`${stack!.webUrl}/pools/${usdcPool.pubkey}`);
    await lender.getByRole("heading", { name: "Otter desk" }).waitFor({ timeout: 30_000 });
    await lender.getByTestId("pool-terms").getByText("30%").waitFor({ timeout: 30_000 });

    // Bank: deposit 5 USDC, withdraw 10 USDC; the wallet's USDC moves by exactly that.
    await lender.goto(`${stack!.webUrl}/my-pools`);
    const bank = lender.getByTestId("bank").filter({ hasText: "USDC bank" });
    await bank.waitFor({ timeout: 30_000 });
    const start = await tokenBalance(owner, USDC_MINT);
    await bank.getByLabel("Withdraw (USDC)").fill("100000");
    await bank.getByTestId("bank-withdraw").click();
    await bank.getByText(/can be withdrawn/).waitFor();
    await bank.getByLabel("Deposit (USDC)").fill("5");
    await confirmed(lender, () => bank.getByTestId("bank-deposit").click());
    expect(await tokenBalance(owner, USDC_MINT)).toBe(start - 5_000_000n);
    await bank.getByLabel("Withdraw (USDC)").fill("10");
    await confirmed(lender, () => bank.getByTestId("bank-withdraw").click());
    expect(await tokenBalance(owner, USDC_MINT)).toBe(start + 5_000_000n);

    // A pool without loans closes.
    await lender.goto(`${stack!.webUrl}/my-pools/new`);
    const form = lender.getByRole("form", { name: "Create pool" });
    await form.waitFor({ timeout: 30_000 });
    await form.getByLabel("Currency").selectOption(USDC_MINT);
    await form.getByLabel("Pool name").fill("JUP desk");
    await form.getByLabel("Amount to lend").fill("20");
    await form.getByLabel("APR (%)").fill("10");
    await form.getByLabel("Maximum loan (USD)").fill("100");
    await form.getByRole("button", { name: "Add collection" }).click();
    await form.getByLabel("Collection").selectOption(faucetNfts[0]!.collectionId);
    await confirmed(lender, () => form.getByRole("button", { name: "Create pool" }).click());
    await lender.waitForURL(/\/my-pools$/);
    // My pools opens at its top, not at the form's scroll position
    expect(await lender.evaluate(() => window.scrollY)).toBe(0);
    const fresh = lender
      .getByTestId("my-pools")
      .locator("li", { hasText: "Ongoing loans0" })
      .filter({ hasText: "Open" });
    await fresh.first().waitFor({ timeout: 30_000 });
    const count = await fresh.count();
    await fresh.first().getByRole("button", { name: "Close" }).click();
    await confirmed(lender, () => fresh.first().getByRole("button", { name: "Confirm close" }).click());
    await lender
      .getByTestId("my-pools")
      .locator("li", { hasText: "Closed" })
      .first()
      .waitFor({ timeout: 30_000 });
    expect(await fresh.count()).toBe(count - 1);
  });

  it("an offer that disappears before signing fails with one toast in plain words, and the offer list refreshes", async () => {
    // the NFT borrowed against and repaid earlier is back in the borrower's wallet
    const nft = faucetNfts[1];
    expect(nft).toBeDefined();
    // The borrower picks the lender's pool ("Otter desk") and sees the full quote.
    await borrower.goto(`${stack!.webUrl}/borrow`);
    const list = borrower.getByTestId("nft-list");
    await list.waitFor({ timeout: 30_000 });
    await list.getByRole("button", { name: new RegExp(nft!.name.replace(/[#]/g, "\\$&")) }).click();
    const offers = borrower.getByRole("group", { name: /Offers/ });
    const otter = offers.locator("label", { hasText: "Otter desk" });
    await otter.waitFor({ timeout: 30_000 });
    await otter.click();
    await borrower.getByLabel(/Amount \(USDC\)/).fill("20");
    await borrower.getByLabel(/Duration/).fill("3");
    await borrower.getByTestId("quote").waitFor();

    // Meanwhile the lender withdraws everything the bank has available.
    const owner = lenderKey.publicKey.toBase58();
    // what the bank can lend now, from the chain (its account), not from the indexer that may trail a repayment
    // (its vault also holds the protocol fees owed to the treasury, which are not the lender's to withdraw)
    const available = decodeBankAccount(
      await accountData((await bankListing(owner, USDC_MINT)).pubkey),
    ).availableLiquidity;
    await lender.goto(`${stack!.webUrl}/my-pools`);
    const bank = lender.getByTestId("bank").filter({ hasText: "USDC bank" });
    await bank.waitFor({ timeout: 30_000 });
    await bank.getByLabel("Withdraw (USDC)").fill(formatUnits(available, 6));
    await confirmed(lender, () => bank.getByTestId("bank-withdraw").click());

    // The borrower signs the stale offer: the builder decides on the pool's chain state and refuses.
    await borrower.evaluate(
      "document.querySelectorAll('.toast').forEach((t) => t.setAttribute('data-seen', ''))",
    );
    await borrower.getByTestId("borrow-submit").click();
    const failure = borrower.locator(".toast-error:not([data-seen])");
    await failure.first().waitFor({ timeout: 30_000 });
    await borrower.waitForTimeout(500);
    expect(await borrower.locator(".toast:not([data-seen])").count()).toBe(1);
    const title = (await failure.locator(".toast-title").textContent()) ?? "";
    expect(title).toMatch(/^Error in Borrow NFT: This pool .*USDC/);
    expect(title).not.toMatch(/\d{7,}/); // no base units
    expect(title).not.toMatch(/[1-9A-HJ-NP-Za-km-z]{32,}/); // no address
    await failure.getByRole("button", { name: "Copy full error" }).waitFor();
    await shot(borrower, "16-offer-gone-toast");
    await borrower.setViewportSize({ width: 360, height: 740 });
    await shot(borrower, "16b-offer-gone-toast-360");
    await borrower.setViewportSize({ width: 1280, height: 900 });
    // The lists refresh after the failure: the emptied pool is no longer offered.
    await expect.poll(async () => otter.count(), { timeout: 30_000 }).toBe(0);
    const loans = (await (
      await fetch(`${stack!.apiUrl}/loan/user?pubkey=${borrowerKey.publicKey.toBase58()}`)
    ).json()) as {
      loans: { collateral?: string; status?: string }[];
    };
    expect(loans.loans.some((l) => l.collateral === nft!.mint && l.status === "ongoing")).toBe(false);
  });

  it("shows the market, pools, a pool, the dashboard, and fits a 360 px screen", async () => {
    // the home page leads with the market and the two actions, not with chain status
    await borrower.goto(`${stack!.webUrl}/`);
    const market = borrower.getByTestId("home-market");
    await market.getByTestId("home-apr-range").getByText(/%/).waitFor({ timeout: 30_000 });
    expect(Number(await market.getByTestId("home-open-pools").textContent())).toBeGreaterThan(0);
    expect(await borrower.locator(".cards > .card").first().getAttribute("data-testid")).toBe("home-market");
    await market.getByRole("link", { name: "Borrow" }).click();
    await borrower.waitForURL(/\/borrow$/);
    for (const [path, name, ready] of [
      ["/lend", "10-lend", "market-summary"],
      ["/pools", "11-pools", "pool-cards"],
      ["/dashboard", "12-dashboard", "top-users"],
    ] as const) {
      await borrower.goto(`${stack!.webUrl}${path}`);
      await borrower.getByTestId(ready).waitFor({ timeout: 30_000 });
      await shot(borrower, name);
    }
    await borrower.goto(`${stack!.webUrl}/pools`);
    await borrower.getByTestId("pool-cards").locator("a").first().click();
    await borrower.getByTestId("pool-terms").waitFor({ timeout: 30_000 });
    await borrower.getByTestId("pool-loans").waitFor({ timeout: 30_000 });
    await shot(borrower, "13-pool");
    await borrower.setViewportSize({ width: 360, height: 780 });
    for (const [path, name] of [
      ["/borrow", "14-borrow-360"],
      ["/loans", "15-loans-360"],
    ] as const) {
      await borrower.goto(`${stack!.webUrl}${path}`);
      await borrower.locator("main h1").waitFor();
      await borrower.waitForTimeout(1500);
      const overflow = await borrower.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      if (overflow > 0) {
        const wide = await borrower.evaluate(
          "[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 12).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))",
        );
        console.log(path, wide);
      }
      expect(overflow, path).toBeLessThanOrEqual(0);
      await shot(borrower, name);
    }
    // pools come first on a phone: the filters fold behind one button
    await borrower.goto(`${stack!.webUrl}/pools`);
    const cards = borrower.getByTestId("pool-cards");
    await cards.waitFor({ timeout: 30_000 });
    expect((await cards.boundingBox())!.y).toBeLessThan(740);
    expect(await borrower.getByRole("form", { name: "Filter pools" }).isVisible()).toBe(false);
    await borrower.getByTestId("filters-toggle").click();
    await borrower.getByRole("form", { name: "Filter pools" }).getByLabel("Currency").waitFor();
    // chart labels keep a readable size on a phone
    await borrower.goto(`${stack!.webUrl}/dashboard`);
    const axis = borrower.locator(".pg-axis").first();
    await axis.waitFor({ timeout: 30_000 });
    expect((await axis.boundingBox())!.height).toBeGreaterThanOrEqual(10);
    await shot(borrower, "15b-dashboard-360");
    await borrower.goto(`${stack!.webUrl}/loans`);
    await borrower.getByTestId("loan-history").waitFor({ timeout: 30_000 });
    // loans stack as cards on a phone: every column of a row is on screen, labelled
    const status = borrower
      .getByTestId("loan-history")
      .locator("tbody tr")
      .first()
      .locator('td[data-label="Status"]');
    const statusBox = await status.boundingBox();
    expect(statusBox!.x + statusBox!.width).toBeLessThanOrEqual(360);
    // the navigation folds into a menu: every page is reachable on a phone, and the menu closes on navigation
    const menu = borrower.getByTestId("nav-menu");
    expect((await menu.textContent())?.trim()).toBe("☰ Loans");
    await menu.click();
    const links = borrower.getByRole("navigation", { name: "Main" }).getByRole("link");
    expect(await links.allTextContents()).toEqual([
      "Borrow",
      "Margin",
      "Buy NFTs",
      "Lend",
      "Pools",
      "My pools",
      "Loans",
      "Dashboard",
    ]);
    for (const box of await Promise.all((await links.all()).map((l) => l.boundingBox())))
      expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    await shot(borrower, "16-menu-360");
    await links.filter({ hasText: "Dashboard" }).click();
    await borrower.waitForURL(/\/dashboard$/);
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect((await menu.textContent())?.trim()).toBe("☰ Dashboard");
    expect(pageErrors).toEqual([]);
  });

  it("has no serious or critical accessibility violations on any page (axe-core, 1280 and 360 px)", async () => {
    const pools = (await (await fetch(`${stack!.apiUrl}/dirty/pools?limit=1`)).json()) as {
      pools: { pubkey: string }[];
    };
    const paths = [
      "/",
      "/borrow",
      "/borrow?tab=token",
      "/margin",
      "/lend",
      "/pools",
      `/pools/${pools.pools[0]!.pubkey}`,
      "/my-pools",
      "/my-pools/new",
      "/loans",
      "/dashboard",
    ];
    const found: Record<string, unknown> = {};
    for (const width of [1280, 360]) {
      await lender.setViewportSize({ width, height: width === 360 ? 740 : 900 });
      for (const path of paths) {
        await lender.goto(`${stack!.webUrl}${path}`);
        await lender.locator("main h1").first().waitFor({ timeout: 30_000 });
        await lender.waitForTimeout(800);
        const violations = await findSeriousA11yViolations(lender);
        if (violations.length > 0) found[`${width} ${path}`] = violations;
      }
    }
    await lender.setViewportSize({ width: 1280, height: 900 });
    expect(found).toEqual({});
  });
  it("a lender delegates idle USDC to the lending venue, a loan that needs it pulls it back, and 30 days later the lender withdraws it with yield", async () => {
    const me = lenderKey.publicKey.toBase58();
    const banks = (await (await fetch(`${stack!.apiUrl}/bank/user?pubkey=${me}`)).json()) as {
      pubkey: string;
      mint: string;
    }[];
    const bank = banks.find((b) => b.mint === USDC_MINT)!.pubkey;
    const onChain = async () => {
      const r = await rpc<{ value: { data: [string, string] } }>(stack!.localnet.rpcUrl, "getAccountInfo", [
        bank,
        { encoding: "base64", commitment: "confirmed" },
      ]);
      return decodeBankAccount(new Uint8Array(Buffer.from(r.value.data[0], "base64")));
    };
    await lender.goto(`${stack!.webUrl}/my-pools`);
    const card = lender.getByTestId("bank").filter({ hasText: "USDC bank" });
    const panel = card.getByTestId("delegation");
    await panel.waitFor({ timeout: 30_000 });
    // earlier journeys lent or withdrew this bank's funds: the lender tops it up first
    await card.getByLabel("Deposit (USDC)").fill("200");
    await confirmed(lender, () => card.getByTestId("bank-deposit").click());
    const before = await onChain();
    const idle = 5_000_000n;
    const amount = before.availableLiquidity - idle;
    expect(amount).toBeGreaterThan(20_000_000n);
    // bad input first: more than is idle says so, nothing is sent
    await panel.getByLabel(/Delegate idle funds/).fill(formatUnits(before.availableLiquidity + 1n, 6));
    await panel.getByTestId("delegate-submit").click();
    expect(await panel.getByRole("alert").textContent()).toMatch(/is not lent out and can be delegated/);
    await panel.getByLabel(/Delegate idle funds/).fill(formatUnits(amount, 6));
    expect(await panel.getByTestId("delegate-preview").textContent()).toContain("→");
    await panel.getByLabel(/Re-delegate idle funds every hour/).check();
    await confirmed(lender, () => panel.getByTestId("delegate-submit").click());
    let now = await onChain();
    expect(now.delegatedLiquidity).toBe(amount);
    expect(now.availableLiquidity).toBe(idle);
    expect(now.delegationKeeper).not.toBe("11111111111111111111111111111111");
    await shot(lender, "15-delegated");
    // the Lend page labels what delegation adds to pool interest
    await lender.goto(`${stack!.webUrl}/lend`);
    await lender.getByRole("tab", { name: "USDC" }).click();
    const combined = lender.getByTestId("combined-yield");
    await combined.waitFor({ timeout: 30_000 });
    expect(await combined.textContent()).toMatch(
      /^Idle funds can earn 6\.5% a year in the local lending venue/,
    );

    // the borrower asks for more than the bank holds idle: the offer counts delegated funds and the loan lands
    const accepted = [...new Set(faucetNfts.map((n) => n.collectionId))].slice(0, 4);
    const me2 = borrowerKey.publicKey.toBase58();
    let free: (typeof faucetNfts)[number] | undefined;
    for (const n of faucetNfts.filter((n) => accepted.includes(n.collectionId)))
      if ((await tokenBalance(me2, n.mint)) === 1n) {
        free = n;
        break;
      }
    await borrowNft(free!.name, "20", "7");
    now = await onChain();
    expect(now.delegatedLiquidity).toBeLessThan(amount);
    expect(now.delegatedLiquidity).toBeGreaterThan(amount - 20_000_000n);

    // 30 days on, the position has earned the venue's rate for the bank; withdrawing brings it all back
    await rpc(stack!.localnet.rpcUrl, "localnet_advanceClock", [30 * 86_400]);
    // (the API re-reads the chain's clock within seconds: reload until the page shows the jump)
    await expect
      .poll(
        async () => {
          await lender.goto(`${stack!.webUrl}/my-pools`);
          return (await panel.getByTestId("earned-yield").textContent({ timeout: 30_000 }))?.trim();
        },
        { timeout: 60_000, interval: 2000 },
      )
      .not.toBe("0 USDC");
    await lender.setViewportSize({ width: 360, height: 740 });
    await panel.scrollIntoViewIfNeeded();
    await lender.screenshot({ path: `${TEST_OUTPUT_DIR}/journey-15b-delegation-360.png` });
    const box = (await panel.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    await lender.setViewportSize({ width: 1280, height: 900 });
    const delegatedBefore = now.delegatedLiquidity;
    await confirmed(lender, () => panel.getByTestId("withdraw-delegated").click());
    const after = await onChain();
    expect(after.delegatedLiquidity).toBe(0n);
    // the yield went to the bank's total: more than the principal that came back
    expect(after.totalLiquidity - now.totalLiquidity).toBeGreaterThan(0n);
    expect(after.availableLiquidity - now.availableLiquidity).toBeGreaterThan(delegatedBefore);
  });

  it("a borrower posts a loan request, another wallet fills it from the Lend page, and a cheaper pool that would save cents is not offered", async () => {
    const me = borrowerKey.publicKey.toBase58();
    const fresh = await stack!.localnet.faucet(me);
    const nft = fresh.nfts[0]!;
    const usdcBefore = await tokenBalance(me, USDC_MINT);

    // The borrower asks for their own terms under the NFT's offers; the terms read in plain words first.
    await borrower.goto(`${stack!.webUrl}/borrow`);
    const list = borrower.getByTestId("nft-list");
    await list.waitFor({ timeout: 30_000 });
    await list.getByRole("button", { name: new RegExp(nft.name.replace(/[#]/g, "\\$&")) }).click();
    const form = borrower.getByTestId("request-form");
    await form.getByText("No offer fits? Post a loan request").click();
    await form.getByLabel("Currency").selectOption(USDC_MINT);
    await form.getByLabel("Days").fill("0");
    await form.getByLabel("Amount").fill("20");
    expect(await form.getByTestId("request-error").textContent()).toBe(
      "Choose a duration between 1 and 365 days.",
    );
    await form.getByLabel("Days").fill("5");
    await form.getByLabel("Highest APR (%)").fill("20");
    expect(await form.getByTestId("request-summary").textContent()).toMatch(
      /^You ask for 20 USDC for 5 days at up to 20% APR: at most 0\.05\d* USDC interest, so at most 20\.05\d* USDC to repay by the due date\./,
    );
    await shot(borrower, "16-request-form");
    await confirmed(borrower, () => form.getByTestId("post-request").click());
    expect(await tokenBalance(me, nft.mint)).toBe(0n); // locked in the request's escrow

    // The lender sees it on the Lend page (also at 360 px) and fills it.
    await lender.goto(`${stack!.webUrl}/lend`);
    await lender.getByRole("tab", { name: "USDC" }).click();
    const card = lender.getByTestId("request-row").filter({ hasText: "asks for 20 USDC for 5 days" }).first();
    await card.waitFor({ timeout: 30_000 });
    expect(await card.getByTestId("request-ltv").textContent()).toMatch(
      /^LTV [\d.]+% of a [\d.,]+ USDC valuation/,
    );
    await lender.setViewportSize({ width: 360, height: 740 });
    await card.scrollIntoViewIfNeeded();
    await shot(lender, "16b-open-requests-360");
    const box = (await card.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    await lender.setViewportSize({ width: 1280, height: 900 });
    await confirmed(lender, () => card.getByTestId("fill-request").click());
    expect((await tokenBalance(me, USDC_MINT)) - usdcBefore).toBe(20_000_000n);

    // The borrower's bell says so; the loan runs at the borrower's 20%.
    await borrower.goto(`${stack!.webUrl}/loans`);
    await borrower.getByTestId("notifications-button").click();
    const centre = borrower.getByTestId("notifications-panel");
    await centre.locator('[data-kind="request-filled"]').waitFor({ timeout: 30_000 });
    expect(await centre.locator('[data-kind="request-filled"]').first().textContent()).toMatch(
      /^Your loan request was filled20 USDC loan on \S.*A lender filled your request: 20 USDC is in your wallet, repay by .+\.$/,
    );
    await centre.getByRole("button", { name: "Close notifications" }).click();
    const row = borrower
      .getByTestId("ongoing-loans")
      .locator("tbody tr", { hasText: "20 USDC" })
      .filter({ hasText: "20%" })
      .first();
    await row.waitFor({ timeout: 30_000 });
    const oldLoan = (await row.getAttribute("data-loan"))!;
    const readLoan = async (loan: string) => {
      const r = await rpc<{ value: { data: [string, string] } }>(stack!.localnet.rpcUrl, "getAccountInfo", [
        loan,
        { encoding: "base64", commitment: "confirmed" },
      ]);
      return decodeLoanAccount(new Uint8Array(Buffer.from(r.value.data[0], "base64")));
    };
    expect((await readLoan(oldLoan)).kind).toBe("RequestLoan");

    // A third wallet opens a cheaper pool for the collection: the loan row says what moving saves, and moves.
    const rivalKey = Keypair.generate();
    await stack!.localnet.faucet(rivalKey.publicKey.toBase58());
    await stack!.localnet.fundWallet(rivalKey.publicKey.toBase58(), { lamports: 10_000_000_000n });
    const rival = await openAs(browser!, rivalKey, pageErrors);
    await createUsdcNftPool(rival, stack!.webUrl, {
      amount: "200",
      collections: [nft.collectionId],
      usdcMint: USDC_MINT,
      apr: "5",
    });
    await rival.context().close();
    // the API finds the cheaper pool, but moving a 20 USDC, 5-day loan saves cents: less than the move costs in
    // fees and rent, so the row does not offer it (#36; the move itself is the "#36 the screens say..." journey)
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${stack!.apiUrl}/loan/refinance-offer?loan=${oldLoan}`)).json()) as {
              saving?: string;
            } | null
          )?.saving,
        { timeout: 60_000, interval: 2000 },
      )
      .toMatch(/^\d+$/);
    const offer = (await (await fetch(`${stack!.apiUrl}/loan/refinance-offer?loan=${oldLoan}`)).json()) as {
      saving: string;
    };
    expect(BigInt(offer.saving)).toBeLessThan(100_000n);
    await borrower.goto(`${stack!.webUrl}/loans`);
    await row.waitFor({ timeout: 30_000 });
    await borrower.waitForTimeout(1000);
    expect(await row.getByTestId("refinance-hint").count()).toBe(0);
    await shot(borrower, "17-refinance-hint");
  });

  it("buys NFTs now and pays later: the lender turns mortgages on, the borrower buys one and repays it, leaves another unpaid and loses it after the clock jump, then instant-sells an NFT loan to the best bid", async () => {
    const me = borrowerKey.publicKey.toBase58();
    const owner = lenderKey.publicKey.toBase58();
    const dragons = DEMO_WORLD.collections.find((c) => c.symbol === "DRIP")!;
    const frogs = DEMO_WORLD.collections.find((c) => c.symbol === "RFROG")!;
    // the lender opens a pool for dragons and frogs and turns mortgages on at 15% in My pools
    await createUsdcNftPool(lender, stack!.webUrl, {
      amount: "450",
      collections: [dragons.collectionId, frogs.collectionId],
      usdcMint: USDC_MINT,
      apr: "20",
      hasBank: true,
    });
    const mine = (await (await fetch(`${stack!.apiUrl}/pool/get-by-owner?owner=${owner}`)).json()) as {
      pools: { pubkey: string; collections: { collection: string }[] }[];
    };
    const desk = mine.pools.find(
      (p) => p.collections.length === 2 && p.collections.some((c) => c.collection === frogs.collectionId),
    )!;
    await lender.goto(`${stack!.webUrl}/my-pools/${desk.pubkey}`);
    const terms = lender.getByRole("form", { name: "Update pool" });
    await terms.waitFor({ timeout: 30_000 });
    await terms.getByLabel("Mortgages").check();
    await terms.getByLabel("Mortgage APR (%)").fill("15");
    await shot(lender, "20-mortgage-toggle");
    await confirmed(lender, () => terms.getByRole("button", { name: "Update pool" }).click());
    const pool = decodePoolAccount(await accountData(desk.pubkey));
    expect([pool.flags.mortgage, pool.mortgageAprBps]).toEqual([true, 1500]);

    // the borrower finds the dragon listed in USDC on Buy NFTs and reads the terms before signing
    type Listed = {
      listing: { mint: string; collection: string; currency: string; price: string };
      pools: { pool: string }[];
    };
    let listings: Listed[] = [];
    const listed = (collection: string) =>
      listings.find(
        (l) =>
          l.listing.collection === collection &&
          l.listing.currency === USDC_MINT &&
          l.pools.some((p) => p.pool === desk.pubkey),
      )?.listing;
    // the pool's new terms reach the API's snapshot within a second
    await expect
      .poll(
        async () => {
          listings = (await (await fetch(`${stack!.apiUrl}/nft/mortgage-listings`)).json()) as Listed[];
          return listed(dragons.collectionId);
        },
        { timeout: 30_000 },
      )
      .toBeDefined();
    const dragon = listed(dragons.collectionId)!;
    await borrower.goto(`${stack!.webUrl}/buy`);
    const cards = borrower.getByTestId("mortgage-listing");
    const dragonCard = cards.filter({ hasText: "Drip Dragons" }).filter({ hasText: "USDC" }).first();
    await dragonCard.waitFor({ timeout: 30_000 });
    // the card names the NFT itself (its on-chain name, with its image) and says what the transaction will take
    // as the down payment (checked against the chain after signing), at 1280 and at 360 px
    const dragonNft = decodeMetadata(await accountData((await findMetadataPda(address(dragon.mint)))[0]));
    const cardDown = async () => {
      await dragonCard.getByTestId("listing-name").getByText(dragonNft.name, { exact: true }).waitFor();
      await expect
        .poll(() => dragonCard.getByTestId("nft-image").evaluate((img: HTMLImageElement) => img.naturalWidth))
        .toBeGreaterThan(0);
      const down = dragonCard.getByTestId("mortgage-card-down");
      await down.getByText(/ USDC down, /).waitFor({ timeout: 30_000 });
      return parseUnits((await down.textContent())!.split(" USDC down")[0]!.replace(/,/g, ""), 6);
    };
    const downShown = await cardDown();
    // the page fits a 360 px screen
    await borrower.setViewportSize({ width: 360, height: 740 });
    expect(await borrower.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(
      false,
    );
    expect(await cardDown()).toBe(downShown);
    await shot(borrower, "23-buy-360");
    await borrower.setViewportSize({ width: 1280, height: 900 });
    await dragonCard.getByTestId("mortgage-choose").click();
    const panel = dragonCard.getByTestId("mortgage-panel");
    await panel.getByTestId("mortgage-apr").getByText("15%").waitFor({ timeout: 30_000 });
    expect(await panel.getByTestId("mortgage-price").textContent()).toContain(
      `${formatUnits(BigInt(dragon.price), 6)} USDC`,
    );
    expect(await panel.getByTestId("mortgage-sentence").textContent()).toMatch(
      /^You pay [\d.,]+ USDC now and [\d.,]+ USDC by .+ UTC at the latest\. Until you repay, the NFT stays locked/,
    );
    await shot(borrower, "21-mortgage-terms");
    const before = await tokenBalance(me, USDC_MINT);
    await confirmed(borrower, () => panel.getByTestId("mortgage-submit").click());
    // the chain: the down payment left the wallet, the NFT is in the loan's escrow, a Mortgage at 15%
    const paid = before - (await tokenBalance(me, USDC_MINT));
    expect(await tokenBalance(me, dragon.mint)).toBe(0n);
    const loans = async () =>
      (
        (await (await fetch(`${stack!.apiUrl}/loan/user?pubkey=${me}`)).json()) as {
          loans: { pubkey: string; collateral?: string; nftMint?: string }[];
        }
      ).loans;
    /** The borrower's ongoing loan against `mint` (a mortgage or any loan). */
    const mortgageOf = async (mint: string) => {
      for (const l of await loans()) {
        const account = decodeLoanAccount(await accountData(l.pubkey));
        if (account.collateralMint === mint && account.status === "Ongoing")
          return { address: l.pubkey, account };
      }
      return null;
    };
    await expect.poll(() => mortgageOf(dragon.mint), { timeout: 30_000 }).not.toBeNull();
    const dragonLoan = (await mortgageOf(dragon.mint))!;
    expect([dragonLoan.account.kind, dragonLoan.account.aprBps]).toEqual(["Mortgage", 1500]);
    expect(paid).toBe(BigInt(dragon.price) - dragonLoan.account.principal);
    // what the card said before signing is what left the wallet (the card rounds up to the cent at most)
    expect(downShown >= paid && downShown - paid < 10_000n).toBe(true);

    // repaid from Loans, the dragon is the borrower's
    await borrower.goto(`${stack!.webUrl}/loans`);
    const row = borrower.locator(`tr[data-loan="${dragonLoan.address}"]`);
    await row.waitFor({ timeout: 30_000 });
    // the mortgage's row names the NFT bought, never its mint
    await row.getByText(dragonNft.name).first().waitFor({ timeout: 30_000 });
    expect(await row.textContent()).not.toContain(dragon.mint.slice(0, 6));
    await confirmed(borrower, () => row.getByRole("button", { name: "Repay" }).click());
    expect(await tokenBalance(me, dragon.mint)).toBe(1n);
    // History reads "Paid off" and the bell says the mortgage is paid off (the NFT was never "back": it is new)
    await borrower
      .getByTestId("loan-history")
      .locator(`tr[data-loan="${dragonLoan.address}"]`)
      .getByText("Paid off", { exact: true })
      .waitFor({ timeout: 30_000 });
    for (const [width, height] of [
      [1280, 900],
      [360, 740],
    ] as const) {
      await borrower.setViewportSize({ width, height });
      await borrower.getByTestId("notifications-button").click();
      const paidOff = borrower.getByTestId("notifications-panel").locator('[data-kind="paid-off"]').first();
      await paidOff.waitFor({ timeout: 30_000 });
      expect(await paidOff.textContent()).toMatch(
        /^Mortgage paid off.*Your [\d.,]+ USDC mortgage is paid off: the NFT you bought with it is now in your wallet\.$/,
      );
      await borrower.getByRole("button", { name: "Close notifications" }).click();
    }
    await borrower.setViewportSize({ width: 1280, height: 900 });

    // a frog on a mortgage, left unpaid: after expiry and grace the lender takes it, the down payment is lost
    const frog = listed(frogs.collectionId)!;
    await borrower.goto(`${stack!.webUrl}/buy`);
    const frogCard = borrower
      .getByTestId("mortgage-listing")
      .filter({ hasText: "Rain Frogs" })
      .filter({ hasText: "USDC" })
      .first();
    await frogCard.getByTestId("mortgage-choose").click();
    await frogCard
      .getByTestId("mortgage-panel")
      .getByTestId("mortgage-total-cost")
      .waitFor({ timeout: 30_000 });
    await confirmed(borrower, () => frogCard.getByTestId("mortgage-submit").click());
    await expect.poll(() => mortgageOf(frog.mint), { timeout: 30_000 }).not.toBeNull();
    const frogLoan = (await mortgageOf(frog.mint))!;
    await rpc(stack!.localnet.rpcUrl, "localnet_advanceClock", [8 * 86_400]);
    await lender.goto(`${stack!.webUrl}/loans`);
    await lender.getByRole("tab", { name: "Loans on my pools" }).click();
    const due = lender.locator(`tr[data-loan="${frogLoan.address}"]`).filter({ hasText: "Past grace" });
    await due.waitFor({ timeout: 30_000 });
    await confirmed(lender, () => due.getByRole("button", { name: /Liquidate/ }).click());
    expect(await tokenBalance(owner, frog.mint)).toBe(1n);
    expect(await tokenBalance(me, frog.mint)).toBe(0n);
    expect(decodeLoanAccount(await accountData(frogLoan.address)).status).toBe("Liquidated");
    // the pool's page counts its mortgages (the indexer's view of the chain's counters)
    await lender.goto(`${stack!.webUrl}/pools/${desk.pubkey}`);
    await lender
      .getByTestId("pool-mortgages")
      .getByText(/^Mortgages: on at 15% APR \("Buy NFTs"\); 2 taken, the last on .+ UTC\.$/)
      .waitFor({ timeout: 30_000 });

    // instant sell: a loan against a fresh dragon goes to the best dragon bid in USDC
    const fresh = await stack!.localnet.faucet(me);
    const newDragon = fresh.nfts.find((n) => n.collectionId === dragons.collectionId)!;
    await borrowNft(newDragon.name, "20", "7");
    await borrower.goto(`${stack!.webUrl}/loans`);
    await expect.poll(() => mortgageOf(newDragon.mint), { timeout: 30_000 }).not.toBeNull();
    const soldLoan = (await mortgageOf(newDragon.mint))!.address;
    const loanRow = borrower.locator(`tr[data-loan="${soldLoan}"]`);
    await loanRow.waitFor({ timeout: 30_000 });
    await loanRow.getByTestId("instant-sell").click();
    const sell = borrower.getByTestId("instant-sell-panel");
    // the best bid is 90% of the dragons' 180 USD floor
    await sell
      .getByTestId("instant-sell-quote")
      .or(sell.getByTestId("instant-sell-error"))
      .waitFor({ timeout: 30_000 });
    expect(await sell.textContent()).toContain("Best offer162 USDC");
    await shot(borrower, "22-instant-sell");
    const beforeSale = await tokenBalance(me, USDC_MINT);
    await confirmed(borrower, () => sell.getByTestId("instant-sell-submit").click());
    const sold = decodeLoanAccount(await accountData(soldLoan));
    expect(sold.status).toBe("Sold");
    expect(await tokenBalance(me, USDC_MINT)).toBe(beforeSale + 162_000_000n - sold.repaidAmount);
    expect(await tokenBalance(me, newDragon.mint)).toBe(0n);
    await borrower
      .getByTestId("loan-history")
      .locator(`tr[data-loan="${soldLoan}"]`)
      .waitFor({ timeout: 30_000 });
  });

  it("a pool left at the account layout before the program's upgrade: its owner sees why and upgrades it (1280 and 360 px)", async () => {
    const ownerKey = Keypair.generate();
    const owner = ownerKey.publicKey.toBase58();
    await stack!.localnet.faucet(owner);
    await stack!.localnet.fundWallet(owner, { lamports: 10_000_000_000n });
    const page = await openAs(browser!, ownerKey, pageErrors);
    await createUsdcNftPool(page, stack!.webUrl, {
      amount: "50",
      collections: [faucetNfts[0]!.collectionId],
      usdcMint: USDC_MINT,
    });
    const mine = (await (await fetch(`${stack!.apiUrl}/pool/get-by-owner?owner=${owner}`)).json()) as {
      pools: { pubkey: string }[];
    };
    const pool = mine.pools[0]!.pubkey;
    // Test set-up, as the chain holds a pool written by program 1.7: the same bytes at the 768-byte layout v1
    const current = await rpc<{ value: { lamports: number; owner: string } }>(
      stack!.localnet.rpcUrl,
      "getAccountInfo",
      [pool, { encoding: "base64" }],
    );
    const v1 = (await accountData(pool)).slice(0, 768);
    v1[1] = 1;
    await rpc(stack!.localnet.rpcUrl, "localnet_setAccount", [
      pool,
      {
        lamports: current.value.lamports,
        owner: current.value.owner,
        data: Buffer.from(v1).toString("base64"),
      },
    ]);

    await page.setViewportSize({ width: 360, height: 740 });
    const card = page
      .getByTestId("my-pools")
      .locator("li")
      .filter({ has: page.getByTestId("upgrade-pool") });
    for (let i = 0; i < 30 && (await card.count()) === 0; i++) {
      await page.goto(`${stack!.webUrl}/my-pools`);
      await page.getByTestId("my-pools").waitFor({ timeout: 30_000 });
      await page.waitForTimeout(500);
    }
    await card.getByText("written before the lending program's last upgrade").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, "31-upgrade-pool-360");
    await page.setViewportSize({ width: 1280, height: 900 });
    await confirmed(page, () => card.getByRole("button", { name: "Upgrade pool" }).click());

    // the chain holds the pool at the current layout, every earlier byte kept; the notice goes
    const upgraded = await accountData(pool);
    expect([upgraded.length, upgraded[1]]).toEqual([800, 2]);
    expect([...upgraded.slice(2, 768)]).toEqual([...v1.slice(2)]);
    expect(decodePoolAccount(upgraded).migratedAt).toBeGreaterThan(0n);
    await page.goto(`${stack!.webUrl}/my-pools`);
    await page.getByTestId("my-pools").waitFor({ timeout: 30_000 });
    for (let i = 0; i < 30 && (await page.getByTestId("upgrade-pool").count()) > 0; i++)
      await page.waitForTimeout(500);
    expect(await page.getByTestId("upgrade-pool").count()).toBe(0);
    await page.close();
  });

  it("borrow, token tab: a chosen offer brings its own duration and every problem shows at once (1280 and 360 px); the loan lands at that duration", async () => {
    // Two lenders lend SOL against JTO: one for up to 30 days (lends the most: offered first), one for 3 days with
    // 9.9 SOL in its bank.
    const jto = DEMO_WORLD.tokens.find((t) => t.symbol === "JTO")!.mint;
    const [longKey, shortKey, takerKey] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
    for (const key of [longKey, shortKey, takerKey]) await stack!.localnet.faucet(key.publicKey.toBase58());
    await Promise.all(
      (
        [
          [longKey, { name: "Month desk", amount: "20", ltv: "70", apr: "10", maxDays: "30" }],
          [shortKey, { name: "Weekend desk", amount: "9.9", ltv: "80", apr: "30", maxDays: "3" }],
        ] as const
      ).map(async ([key, pool]) => {
        const page = await openAs(browser!, key, pageErrors);
        await createSolTokenPool(page, stack!.webUrl, { ...pool, token: jto, solMint: SOL_MINT });
        await page.context().close();
      }),
    );
    const taker = await openAs(browser!, takerKey, pageErrors);
    await taker.goto(`${stack!.webUrl}/borrow?tab=token`);
    await taker.getByLabel("Collateral token").waitFor({ timeout: 30_000 });
    await taker.getByLabel("Collateral token").selectOption(jto);
    await taker.getByLabel("Collateral amount").fill("1000");
    const short = taker.getByRole("radio", { name: /≤ 3 days/ });
    await short.waitFor({ timeout: 30_000 });
    const days = taker.getByLabel(/Duration/);
    expect(await days.inputValue()).toBe("30"); // the first offer's longest
    await short.check();
    expect(await days.inputValue()).toBe("3"); // the chosen offer's own
    // 50 SOL for 5 days against the 3-day pool holding 9.9 SOL: both problems, each in plain words
    await taker.getByLabel(/Amount \(SOL\)/).fill("50");
    await days.fill("5");
    const amountError = taker.getByTestId("borrow-error-amount");
    const durationError = taker.getByTestId("borrow-error-duration");
    // (its exposure limit, 100% of the 9.9 SOL it holds, binds first in the program's order)
    expect(await amountError.textContent()).toBe(
      "This pool can lend at most 9.9 SOL more against this collateral right now.",
    );
    expect(await durationError.textContent()).toBe("Choose a duration between 1 and 3 days.");
    await shot(taker, "32-borrow-problems");
    await taker.setViewportSize({ width: 360, height: 740 });
    await durationError.scrollIntoViewIfNeeded();
    for (const error of [amountError, durationError]) {
      const box = (await error.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(360);
    }
    expect(await taker.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(taker, "32b-borrow-problems-360");
    await taker.setViewportSize({ width: 1280, height: 900 });
    // nothing was sent; corrected, the loan lands on the 3-day pool at 3 days
    expect(await taker.locator(".toast-title", { hasText: /Transaction|Preparing/ }).count()).toBe(0);
    await taker.getByLabel(/Amount \(SOL\)/).fill("5");
    await days.fill("3");
    await taker.getByTestId("quote").waitFor();
    await confirmed(taker, () => taker.getByTestId("borrow-submit").click());
    const shortPools = (await (
      await fetch(`${stack!.apiUrl}/pool/get-by-owner?owner=${shortKey.publicKey.toBase58()}`)
    ).json()) as { pools: { pubkey: string }[] };
    let loans: { pubkey: string }[] = [];
    for (let i = 0; i < 50 && loans.length === 0; i++) {
      const listed = (await (
        await fetch(`${stack!.apiUrl}/loan/user?pubkey=${takerKey.publicKey.toBase58()}`)
      ).json()) as { loans: { pubkey: string }[] };
      loans = listed.loans;
      if (loans.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(loans).toHaveLength(1);
    const onChain = decodeLoanAccount(await accountData(loans[0]!.pubkey));
    expect([onChain.pool, onChain.durationSeconds, onChain.principal]).toEqual([
      shortPools.pools[0]!.pubkey,
      3n * 86_400n,
      parseUnits("5", 9),
    ]);
    await taker.context().close();
  });
});

async function bankListing(owner: string, mint: string): Promise<{ pubkey: string; vault: string }> {
  const banks = (await (await fetch(`${stack!.apiUrl}/bank/user?pubkey=${owner}`)).json()) as {
    pubkey: string;
    mint: string;
    vault: string;
  }[];
  const bank = banks.find((b) => b.mint === mint);
  if (!bank) throw new Error(`no ${mint} bank for ${owner}`);
  return bank;
}

async function bankVault(owner: string, mint: string): Promise<string> {
  return (await bankListing(owner, mint)).vault;
}

/** An account's data as the chain holds it now. */
const accountData = (address: string) => getAccountData(stack!.localnet.rpcUrl, address);

/** Borrows `amount` USDC for `days` against the borrower's NFT called `name` through the borrow page. */
async function borrowNft(name: string, amount: string, days: string) {
  await borrower.goto(`${stack!.webUrl}/borrow`);
  const list = borrower.getByTestId("nft-list");
  await list.waitFor({ timeout: 30_000 });
  const nft = list.getByRole("button", { name: new RegExp(name.replace(/[#]/g, "\\$&")) });
  await nft.getByText("Best offer").waitFor({ timeout: 30_000 });
  await nft.click();
  const input = borrower.getByLabel(/Amount \(USDC\)/);
  await input.fill("5");
  await borrower.getByText(/^This pool's loans start at [\d.]+ USDC\.$/).waitFor();
  await input.fill(amount);
  await borrower.getByLabel(/Duration/).fill(days);
  await borrower.getByTestId("quote").waitFor();
  // besides the loan: the network fee and the rent of the accounts the built transaction opens, measured by the API
  // (shown once measured: wait for it)
  await borrower.getByTestId("quote-account-rent").waitFor({ timeout: 30_000 });
  expect(await borrower.getByTestId("quote-network-fee").textContent()).toMatch(
    /0\.000\d+ SOL.*paid to Solana/,
  );
  expect(await borrower.getByTestId("quote-account-rent").textContent()).toMatch(
    /0\.00\d+ SOL opens .*the loan/,
  );
  if (name === faucetNfts[0]!.name) await shot(borrower, "04-borrow-nft-quote");
  await confirmed(borrower, () => borrower.getByTestId("borrow-submit").click());
}

/** The wallet card of the home page shows exactly the chain's balance of `mint`. */
async function expectShownBalance(page: Page, owner: string, mint: string, decimals: number) {
  const onChain = formatAmount(await tokenBalance(owner, mint), decimals);
  await page.goto(`${stack!.webUrl}/`);
  const cell = page
    .getByTestId("balances")
    .locator("tr", { has: page.locator(`th[title="${mint}"]`) })
    .locator("td");
  await cell.waitFor({ timeout: 30_000 });
  await expect
    .poll(async () => (await cell.textContent())?.trim().split(" ≈ ")[0], { timeout: 30_000 })
    .toBe(onChain);
}

/** A whale sells `amount` of `fromMint` on the local swap venue (through the API's Jupiter-shaped routes). */
async function dumpOnVenue(fromMint: string, toMint: string, amount: bigint) {
  const whale = await generateKeyPairSigner();
  await rpc(stack!.localnet.rpcUrl, "localnet_fundWallet", [
    whale.address,
    { lamports: "10000000000", tokens: [{ mint: fromMint, amount: amount.toString() }] },
  ]);
  const quote = await (
    await fetch(
      `${stack!.apiUrl}/swap/v1/quote?inputMint=${fromMint}&outputMint=${toMint}&amount=${amount}&slippageBps=5000`,
    )
  ).json();
  const destination = await findAssociatedTokenAddress(whale.address, toMint as Address);
  const response = await fetch(`${stack!.apiUrl}/swap/v1/swap-instructions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      quoteResponse: quote,
      userPublicKey: whale.address,
      destinationTokenAccount: destination,
    }),
  });
  const { swapInstruction } = (await response.json()) as SwapInstructionsResponse;
  const swap = toKitInstruction(swapInstruction);
  const { value: blockhash } = await createSolanaRpc(stack!.localnet.rpcUrl).getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(whale.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) =>
      appendTransactionMessageInstructions(
        [createAssociatedTokenIdempotent(whale.address, destination, whale.address, toMint as Address), swap],
        m,
      ),
  );
  const signed = await partiallySignTransaction([whale.keyPair], compileTransaction(message));
  const signature = getSignatureFromTransaction(signed);
  await rpc(stack!.localnet.rpcUrl, "sendTransaction", [
    getBase64EncodedWireTransaction(signed),
    { encoding: "base64" },
  ]);
  for (let i = 0; i < 100; i++) {
    const { value } = await rpc<{ value: ({ confirmationStatus?: string; err: unknown } | null)[] }>(
      stack!.localnet.rpcUrl,
      "getSignatureStatuses",
      [[signature]],
    );
    if (value[0]?.err) throw new Error(`whale swap failed: ${JSON.stringify(value[0].err)}`);
    if (value[0]?.confirmationStatus === "confirmed" || value[0]?.confirmationStatus === "finalized") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // the venue's quotes reuse vault balances for at most 250 ms
  await new Promise((r) => setTimeout(r, 300));
}
