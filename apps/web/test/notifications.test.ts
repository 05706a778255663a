import { parseLoan } from "@cistern/protocol";
import { describe, expect, it } from "vitest";
import { describeLoan, labelLoanCollateral } from "../src/features/loans/loan-label.ts";
import { viewLoan } from "../src/features/loans/loan-model.ts";
import { getNotifications } from "../src/notifications/notification-model.ts";
import { address, apiLoan } from "./pages/fixtures.ts";

const DAY = 86_400;
const T = 1_800_000_000;
const me = address();
const row = (overrides: Record<string, unknown>, now: number) =>
  viewLoan(parseLoan(apiLoan({ borrower: me, ...overrides })), me, now);

describe("notification centre", () => {
  const now = T + 7 * DAY - 3600; // an hour before a 7-day loan taken at T is due
  it("warns of a loan due soon, past due and past grace, most urgent first", () => {
    const items = getNotifications({
      borrowed: [
        row({}, now),
        row({ createdAt: T - 2 * DAY }, now), // due 2 days ago... past its 7 h grace
        row({ createdAt: T - 3 * 3600 }, now), // due 2 hours ago, in grace
        row({ createdAt: T + 3 * DAY }, now), // due in 3 days: nothing yet
      ],
      lent: [],
      now,
    });
    expect(items.map((n) => n.kind).sort()).toEqual(["due-soon", "liquidatable", "past-due"]);
    const due = items.find((n) => n.kind === "due-soon")!;
    expect(due.body).toMatch(
      /^Repay 100\.\d+ USDC by 22 Jan 2027, 08:00 UTC \(in 1h 0m\) to keep your collateral\.$/,
    );
    expect(items.every((n) => n.urgent)).toBe(true);
  });

  it("tells of loans closed in the last week only, and of a lender's loans it may liquidate", () => {
    const items = getNotifications({
      borrowed: [
        row({ status: "repaid", repaidAt: now - DAY, repaidAmount: "100500000" }, now),
        row({ status: "liquidated", liquidatedAt: now - 8 * DAY }, now),
      ],
      lent: [viewLoan(parseLoan(apiLoan({ createdAt: T - 10 * DAY })), me, now)],
      now,
    });
    expect(items.map((n) => [n.kind, n.title])).toEqual([
      ["repaid", "Loan repaid"],
      ["lender-liquidatable", "A loan on your pool can be liquidated"],
    ]);
  });

  it("tells the borrower a lender filled their loan request, with the due date of the loan it opened", () => {
    const loan = row({ createdAt: now - DAY, kind: "RequestLoan" }, now);
    const request = {
      pubkey: address(),
      borrower: me,
      currency: loan.loan.currency,
      collateralMint: address(),
      collection: address(),
      collectionName: null,
      isDefi: false,
      collateralAmount: 1n,
      principal: 100_000_000n,
      durationSeconds: 7 * DAY,
      maxAprBps: 3000,
      interestAtMaxApr: 0n,
      collateralValue: null,
      ltvBps: null,
      createdAt: now - 2 * DAY,
      loan: loan.loan.pubkey,
    };
    const items = getNotifications({
      borrowed: [loan],
      lent: [],
      requests: [
        { ...request, status: "Filled", closedAt: now - DAY },
        { ...request, pubkey: address(), status: "Filled", closedAt: now - 8 * DAY },
        { ...request, pubkey: address(), status: "Open", closedAt: 0 },
      ],
      now,
    });
    const filled = items.filter((n) => n.kind === "request-filled");
    expect(filled).toHaveLength(1);
    expect(filled[0]!.title).toBe("Your loan request was filled");
    expect(filled[0]!.body).toMatch(
      /^A lender filled your request: 100 USDC is in your wallet, repay by .+\.$/,
    );
  });

  it("says the cluster is degraded only on measured slow slots while loans run", () => {
    // an idle chain at the slot target is not slow: the old 0-transactions-a-second false alarm
    const idle = { tps: 0, source: "rpc" as const, slotMs: 400 };
    const loans = [row({ createdAt: T + 3 * DAY }, now)];
    expect(getNotifications({ borrowed: loans, lent: [], now, performance: idle })).toEqual([]);
    const unmeasured = { tps: 2000, source: "fallback" as const, slotMs: null };
    expect(getNotifications({ borrowed: loans, lent: [], now, performance: unmeasured })).toEqual([]);
    const slow = { tps: 400, source: "rpc" as const, slotMs: 1667 };
    const running = getNotifications({ borrowed: loans, lent: [], now, performance: slow });
    expect(running.map((n) => n.kind)).toEqual(["degraded"]);
    expect(running[0]!.title).toBe("Solana is running slow");
    expect(running[0]!.body).toBe(
      "Right now blocks take 1.7 s instead of 0.4 s. Repay early: the on-chain grace period does not change during an outage.",
    );
    expect(getNotifications({ borrowed: [], lent: [], now, performance: slow })).toEqual([]);
  });

  it("names the loan each one means (collateral and amount) and opens that loan, the continuing one after an extension", () => {
    const ape = { name: "Aqua Ape #12", image: "https://img.test/ape.png" };
    const due = row({}, now);
    const first = row({ status: "repaid", repaidAt: now - DAY, closedBy: "Extended" }, now);
    const second = row({ status: "repaid", repaidAt: now - DAY, closedBy: "Extended" }, now);
    const last = row({ createdAt: T + 3 * DAY }, now);
    first.loan.extendedTo = second.loan.pubkey;
    second.loan.extendedTo = last.loan.pubkey;
    const lent = viewLoan(parseLoan(apiLoan({ createdAt: T - 10 * DAY, amount: "2500000" })), me, now);
    const items = getNotifications({
      borrowed: [due, first, second, last],
      lent: [lent],
      now,
      describe: (loan) =>
        describeLoan(loan, labelLoanCollateral(loan, { nft: ape, collectionName: "Aqua Apes" })),
    });
    const soon = items.find((n) => n.kind === "due-soon")!;
    expect(soon.loan).toEqual({
      pubkey: due.loan.pubkey,
      tab: "borrowed",
      subject: "100 USDC loan on Aqua Ape #12",
    });
    // an extension notifies on the link it closed, and opens the loan that continues it now
    const extended = items.filter((n) => n.kind === "extended");
    expect(extended.length).toBeGreaterThan(0);
    for (const n of extended) expect(n.loan?.pubkey).toBe(last.loan.pubkey);
    const lender = items.find((n) => n.kind === "lender-liquidatable")!;
    expect(lender.loan).toEqual({
      pubkey: lent.loan.pubkey,
      tab: "lent",
      subject: "2.5 USDC loan on Aqua Ape #12",
    });
    // without names the amount still says which loan; no address is ever the name
    const bare = getNotifications({ borrowed: [due], lent: [], now });
    expect(bare[0]!.loan?.subject).toBe("100 USDC loan");
    // a token loan by its amount and symbol, an unknown NFT by its collection
    const jup = parseLoan(apiLoan({ collateralAmount: "1000000000", isDefi: true }));
    expect(
      labelLoanCollateral(jup, { token: { symbol: "JUP", decimals: 6 }, collectionName: "Jupiter" })
        .collateral,
    ).toBe("1,000 JUP");
    expect(labelLoanCollateral(due.loan, { collectionName: "Aqua Apes" })).toEqual({
      collateral: "Aqua Apes",
      image: "",
      nftName: "",
    });
  });
});
