import { describe, expect, it } from "vitest";
import { describeErrorForUser } from "../error-sentences.ts";
import { ERROR_CODES } from "../errors.ts";
import { checkRequestFill, type FillableRequest } from "../loan-requests.ts";
import { evaluateLoanOfferWithoutPull, type OfferInput } from "../offer-rules.ts";

const USDC = 1_000_000n;
const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const DAY = 86_400n;

/** A USDC pool lending up to 500 USDC against a 1,000 USDC collateral, its bank holding `idle` USDC idle. */
function input(idle: bigint, amount: bigint): OfferInput {
  return {
    protocolPaused: false,
    pool: {
      poolType: "defi-pool",
      isOpen: true,
      loanAprBps: 2000,
      maxDurationSeconds: 30n * DAY,
      minAmountMicroUsd: 1_000_000n,
      maxAmountMicroUsd: 100_000_000_000n,
      conditions: {
        isEnabled: false,
        minAgeSeconds: 0n,
        minLoanCount: 0n,
        minVolumeMicroUsd: 0n,
        whitelistEnabled: false,
      },
      collections: [{ id: "JTO", ltvBps: 5000, exposureBps: 10_000, borrowedAmount: 0n }],
    },
    currencyMint: USDC_MINT,
    bank: { totalLiquidity: 1_000n * USDC, availableLiquidity: idle, decimals: 6 },
    collateralId: "JTO",
    collateralValue: 1_000n * USDC,
    currencyPriceMicroUsd: 1_000_000n,
    borrower: { walletAgeSeconds: 0n, pastLoans: 0n, volumeMicroUsd: 0n },
    isWhitelisted: false,
    durationSeconds: 7n * DAY,
    nowSeconds: 1_700_000_000n,
    amount,
  };
}

const format = { amount: (a: bigint) => `${Number(a) / 1e6} USDC` };

describe("loans that cannot pull delegated liquidity back", () => {
  it("more than idle but within idle + delegated: LOAN_LIQUIDITY_DELEGATED with what the pool lends now", () => {
    const d = evaluateLoanOfferWithoutPull(input(100n * USDC, 300n * USDC), 900n * USDC);
    expect(d.ok).toBe(false);
    if (d.ok) return;
    expect(d.refusal).toEqual({
      code: ERROR_CODES.LOAN_LIQUIDITY_DELEGATED,
      name: "LOAN_LIQUIDITY_DELEGATED",
      params: {
        mint: USDC_MINT,
        maxAmount: String(100n * USDC),
        delegatedAmount: String(900n * USDC),
        viewer: "borrower",
      },
    });
    expect(describeErrorForUser({ ...d.refusal, message: "" }, format)).toBe(
      "Most of this pool's funds are delegated to a lending venue, which this transaction cannot pull them back from, so the pool can lend 100 USDC right now: ask for at most that, or choose another pool.",
    );
  });

  it("nothing idle: the sentence says to choose another pool or take a new loan", () => {
    const d = evaluateLoanOfferWithoutPull(input(0n, 300n * USDC), 900n * USDC);
    expect(!d.ok && d.refusal.params.maxAmount).toBe("0");
    if (!d.ok)
      expect(describeErrorForUser({ ...d.refusal, message: "" }, format)).toMatch(
        /choose another pool, or repay and take a new loan, which pulls them back\.$/,
      );
  });

  it("nothing delegated, or more than idle + delegated, or another limit binding: the rule-book's own refusal", () => {
    const none = evaluateLoanOfferWithoutPull(input(100n * USDC, 300n * USDC), 0n);
    expect(!none.ok && none.refusal.name).toBe("InsufficientLiquidity");
    const beyond = evaluateLoanOfferWithoutPull(input(100n * USDC, 300n * USDC), 199n * USDC);
    expect(!beyond.ok && beyond.refusal.name).toBe("InsufficientLiquidity");
    // 600 USDC is above the 50% LTV whatever is delegated
    const ltv = evaluateLoanOfferWithoutPull(input(100n * USDC, 600n * USDC), 900n * USDC);
    expect(!ltv.ok && ltv.refusal.name).toBe("LtvExceeded");
    // within the idle liquidity the offer stands
    expect(evaluateLoanOfferWithoutPull(input(100n * USDC, 100n * USDC), 900n * USDC).ok).toBe(true);
  });

  it("a request fill from a bank whose idle funds are delegated tells the lender to withdraw them first", () => {
    const request: FillableRequest = {
      status: "Open",
      borrower: "borrower",
      isDefi: true,
      currency: USDC_MINT,
      principal: 80n * USDC,
      durationSeconds: 7 * 86_400,
      maxAprBps: 4000,
    };
    const source = {
      lender: "lender",
      poolOwner: "lender",
      poolType: "defi-pool" as const,
      bankCurrency: USDC_MINT,
      bankAvailable: 50n * USDC,
    };
    const delegated = checkRequestFill(request, { ...source, bankDelegated: 30n * USDC }, 3000);
    expect(delegated).toMatchObject({ code: 2011, params: { viewer: "lender", maxAmount: "50000000" } });
    expect(describeErrorForUser({ ...delegated!, message: "" }, format)).toBe(
      "Your bank's idle funds are delegated to the lending venue, and filling a request cannot pull them back: withdraw delegated funds on My pools, then fill the request.",
    );
    expect(checkRequestFill(request, { ...source, bankDelegated: 29n * USDC }, 3000)?.name).toBe(
      "InsufficientLiquidity",
    );
    expect(checkRequestFill(request, source, 3000)?.name).toBe("InsufficientLiquidity");
    expect(checkRequestFill(request, { ...source, bankAvailable: 80n * USDC }, 3000)).toBeNull();
  });
});
