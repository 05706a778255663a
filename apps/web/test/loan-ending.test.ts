import { computeRefinanceCostLamports, isRefinanceWorthwhile, parseLoan } from "@cistern/protocol";
import { describe, expect, it } from "vitest";
import {
  describeEndingForBorrower,
  getAutoSale,
  getHistoryFigures,
  getLoanEnding,
} from "../src/features/loans/loan-ending.ts";
import { describeChain, foldExtensions, viewLoan } from "../src/features/loans/loan-model.ts";
import { getNotifications } from "../src/notifications/notification-model.ts";
import { address, apiLoan } from "./pages/fixtures.ts";

const DAY = 86_400;
const T = 1_800_000_000;
const me = address();
const loan = (overrides: Record<string, unknown>) => parseLoan(apiLoan({ borrower: me, ...overrides }));

describe("how a closed loan ended, in words", () => {
  const pool = address();
  const next = loan({ pool, apr: 1000, createdAt: T + DAY, duration: 5 * DAY });

  it("an extension or a refinance is no repayment: the collateral stays locked in the loan that continues", () => {
    const extended = loan({
      status: "repaid",
      repaidAt: T + DAY,
      extendedTo: next.pubkey,
      closedBy: "Extended",
    });
    const refinanced = loan({
      status: "repaid",
      repaidAt: T + DAY,
      extendedTo: next.pubkey,
      closedBy: "Refinanced",
    });
    expect([getLoanEnding(extended), getLoanEnding(refinanced)]).toEqual(["extended", "refinanced"]);
    expect(describeEndingForBorrower(extended, next)).toEqual({
      title: "Loan extended",
      body: "Your 100 USDC loan was extended: you paid the interest so far and it continues as a new loan at 10% APR, due 21 Jan 2027, 08:00 UTC. Your collateral stays locked until you repay it.",
    });
    expect(describeEndingForBorrower(refinanced, next)).toEqual({
      title: "Loan moved to another pool",
      body: "Your 100 USDC loan moved to a cheaper pool: the old lender was paid off and it continues as a new loan at 10% APR, due 21 Jan 2027, 08:00 UTC. Your collateral stays locked until you repay it.",
    });
    for (const closed of [extended, refinanced])
      expect(describeEndingForBorrower(closed, next)!.body).not.toContain("is back");
    // without the API's closedBy, a continuing loan is an extension, never a repayment
    expect(getLoanEnding(loan({ status: "repaid", extendedTo: next.pubkey }))).toBe("extended");
  });

  it("the bell says so after an extension and a refinance, and 'repaid' only for a repayment", () => {
    const now = T + 2 * DAY;
    const extended = loan({
      status: "repaid",
      repaidAt: T + DAY,
      extendedTo: next.pubkey,
      closedBy: "Extended",
    });
    const repaid = loan({
      status: "repaid",
      repaidAt: T + DAY,
      repaidAmount: "100700000",
      closedBy: "Repaid",
    });
    const items = getNotifications({
      borrowed: [extended, repaid, next].map((l) => viewLoan(l, me, now)),
      lent: [],
      now,
    });
    expect(items.map((n) => [n.kind, n.title])).toEqual([
      ["extended", "Loan extended"],
      ["repaid", "Loan repaid"],
    ]);
    expect(items[1]!.body).toBe(
      "Your 100 USDC loan is repaid (100.7 USDC) and the collateral is back in your wallet.",
    );
  });

  it("a repaid mortgage is paid off: the NFT bought with it is the borrower's now", () => {
    const mortgage = loan({
      status: "repaid",
      repaidAt: T + DAY,
      kind: { mortgage: {} },
      closedBy: "Repaid",
    });
    expect(getLoanEnding(mortgage)).toBe("paid-off");
    expect(describeEndingForBorrower(mortgage)).toEqual({
      title: "Mortgage paid off",
      body: "Your 100 USDC mortgage is paid off: the NFT you bought with it is now in your wallet.",
    });
  });

  it("an auto-sale at liquidation: sold for the proceeds, what repaid the loan, the rest also the lender's", () => {
    // 300 USDC at 36.5% for 7 days, sold 8 hours after expiry (past the 7-hour grace) for 395 USDC
    const sold = loan({
      amount: "300000000",
      status: "liquidated",
      liquidatedAt: T + 7 * DAY + 8 * 3600,
      repaidAmount: "395000000",
      closedBy: "AutoSold",
    });
    expect(getLoanEnding(sold)).toBe("auto-sold");
    const sale = getAutoSale(sold)!;
    expect(sale.proceeds).toBe(395_000_000n);
    expect(sale.repaid + sale.aboveOwed).toBe(395_000_000n);
    expect(sale.earned).toBe(95_000_000n);
    expect(describeEndingForBorrower(sold)!.title).toBe("Collateral sold at liquidation");
    expect(describeEndingForBorrower(sold)!.body).toMatch(
      /^Your 300 USDC loan was not repaid by the end of its grace period: its collateral was sold for 395 USDC, all paid to the lender's bank \(30[23]\.\d+ USDC repaid the loan, the 9[23]\.\d+ USDC above that went to the lender too\)\. Nothing comes back to you\.$/,
    );
    expect(getHistoryFigures(sold)).toEqual({
      paid: "sold at liquidation for 395 USDC, all to the lender",
      interest: "95 USDC",
    });
    // a liquidation with proceeds is an auto-sale even when the API does not say closedBy
    expect(getLoanEnding(loan({ status: "liquidated", repaidAmount: "395000000" }))).toBe("auto-sold");
    // the classic liquidation: the collateral itself went to the lender
    const seized = loan({ status: "liquidated", liquidatedAt: T + 8 * DAY, closedBy: "Liquidated" });
    expect(getHistoryFigures(seized)).toEqual({ paid: "collateral to the lender", interest: "—" });
    expect(describeEndingForBorrower(seized)!.body).toContain("the collateral went to the lender");
  });

  it("a loan continued by a refinance reads refinanced, not extended", () => {
    const now = T + 2 * DAY;
    const old = loan({
      status: "repaid",
      repaidAt: T + DAY,
      extendedTo: next.pubkey,
      closedBy: "Refinanced",
    });
    const { rows, chains } = foldExtensions([old, next].map((l) => viewLoan(l, me, now)));
    expect(rows.map((r) => r.loan.pubkey)).toEqual([next.pubkey]);
    expect(describeChain(chains.get(next.pubkey)!)).toBe("refinanced once");
    expect(describeChain({ extensions: 2, refinances: 1, firstTakenAt: T })).toBe(
      "extended twice, refinanced once",
    );
  });
});

describe("refinance rule: offered only when the saving is worth the transaction", () => {
  const usd = (price: string) => BigInt(Math.round(Number(price) * 1_000_000));
  it("costs two signatures, the most priority fee the app pays and the new loan record's rent", () => {
    expect(computeRefinanceCostLamports()).toBe(10_000n + 10_000_000n + (128n + 424n) * 6960n);
  });
  it("compares the saving with that cost at USD prices, or in lamports for a SOL loan", () => {
    const usdc = {
      isSol: false,
      currencyDecimals: 6,
      currencyPriceMicroUsd: usd("1"),
      solPriceMicroUsd: usd("150"),
    };
    // the cost is 13,851,920 lamports: about 2.08 USD at 150 USD per SOL
    expect(isRefinanceWorthwhile({ ...usdc, savingBaseUnits: 10_000n })).toBe(false); // one cent
    expect(isRefinanceWorthwhile({ ...usdc, savingBaseUnits: 2_070_000n })).toBe(false);
    expect(isRefinanceWorthwhile({ ...usdc, savingBaseUnits: 2_090_000n })).toBe(true);
    expect(isRefinanceWorthwhile({ ...usdc, savingBaseUnits: 2_090_000n, solPriceMicroUsd: undefined })).toBe(
      false,
    );
    const sol = {
      isSol: true,
      currencyDecimals: 9,
      currencyPriceMicroUsd: undefined,
      solPriceMicroUsd: undefined,
    };
    expect(isRefinanceWorthwhile({ ...sol, savingBaseUnits: 13_851_920n })).toBe(false);
    expect(isRefinanceWorthwhile({ ...sol, savingBaseUnits: 13_851_921n })).toBe(true);
  });
});
