import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rankLoanOffers } from "../offer-ranking.ts";
import {
  computeAmountMicroUsd,
  computeOfferLimits,
  evaluateLoanOffer,
  type LoanOffer,
  type OfferInput,
} from "../offer-rules.ts";
import { convertAtPrices, parsePriceMicroUsd } from "../valuation.ts";

const SOL = 1_000_000_000n;
const SOL_MINT = "So11111111111111111111111111111111111111112";
const DAY = 86_400n;

function makeInput(overrides: Partial<OfferInput> = {}): OfferInput {
  return {
    protocolPaused: false,
    pool: {
      poolType: "nft-pool",
      isOpen: true,
      loanAprBps: 5000,
      maxDurationSeconds: 14n * DAY,
      minAmountMicroUsd: 10_000_000n,
      maxAmountMicroUsd: 5_000_000_000n,
      conditions: {
        isEnabled: false,
        minAgeSeconds: 0n,
        minLoanCount: 0n,
        minVolumeMicroUsd: 0n,
        whitelistEnabled: false,
      },
      collections: [{ id: "Coll", ltvBps: 5000, exposureBps: 3000, borrowedAmount: 10n * SOL }],
    },
    currencyMint: SOL_MINT,
    bank: { totalLiquidity: 100n * SOL, availableLiquidity: 60n * SOL, decimals: 9 },
    collateralId: "Coll",
    collateralValue: 20n * SOL,
    currencyPriceMicroUsd: 150_000_000n,
    borrower: { walletAgeSeconds: 0n, pastLoans: 0n, volumeMicroUsd: 0n },
    isWhitelisted: false,
    durationSeconds: 7n * DAY,
    nowSeconds: 1_700_000_000n,
    ...overrides,
  };
}

function expectRefusal(input: OfferInput, name: string) {
  const d = evaluateLoanOffer(input);
  expect(d.ok).toBe(false);
  if (!d.ok) expect(d.refusal.name).toBe(name);
  return d;
}

function offerOf(input: OfferInput): LoanOffer {
  const d = evaluateLoanOffer(input);
  if (!d.ok) throw new Error(`refused: ${d.refusal.name}`);
  return d.offer;
}

describe("evaluateLoanOffer", () => {
  it("offers the most the tightest limit allows, with interest, fee, expiry and grace", () => {
    const offer = offerOf(makeInput());
    // LTV 10 SOL; exposure 30 - 10 = 20 SOL; liquidity 60; max USD 5000/150 = 33.33 SOL
    expect(offer.maxAmount).toBe(10n * SOL);
    expect(offer.amount).toBe(10n * SOL);
    // 5000 bps x 10 SOL x 168 h / 87_600_000, rounded up
    expect(offer.interest).toBe(95_890_411n);
    expect(offer.protocolFee).toBe(19_178_082n);
    expect(offer.owedAtExpiry).toBe(10n * SOL + 95_890_411n);
    expect(offer.amountMicroUsd).toBe(1_500_000_000n);
    expect(offer.expiresAt).toBe(1_700_000_000n + 7n * DAY);
    expect(offer.graceSeconds).toBe(7n * 3600n);
    expect(offer.liquidatableAfter).toBe(offer.expiresAt + 7n * 3600n);
    // minimum 10 USD at 150 USD/SOL, rounded up to a whole lamport
    expect(offer.minAmount).toBe(66_666_667n);
  });

  it("refuses in the program's order with the program's codes", () => {
    expect(expectRefusal(makeInput({ protocolPaused: true, durationSeconds: 0n }), "ProtocolPaused")).toEqual(
      {
        ok: false,
        refusal: { code: 6020, name: "ProtocolPaused", params: {} },
      },
    );
    const base = makeInput();
    expectRefusal({ ...base, pool: { ...base.pool, isOpen: false }, durationSeconds: 0n }, "PoolNotOpen");
    expectRefusal(makeInput({ durationSeconds: DAY - 1n }), "InvalidDuration");
    expectRefusal(makeInput({ durationSeconds: 14n * DAY + 1n }), "InvalidDuration");
    expectRefusal(makeInput({ expectedAprBps: 4999 }), "AprMismatch");
    expectRefusal(makeInput({ amount: 0n, collateralId: "Other" }), "InvalidAmount");
    expectRefusal(makeInput({ collateralId: "Other" }), "CollectionNotInPool");
    expectRefusal(makeInput({ amount: 66_666_666n }), "BelowMinAmountUsd");
    expectRefusal(makeInput({ amount: 10n * SOL + 1n }), "LtvExceeded");
  });

  it("is exact at every limit: the maximum is accepted, one base unit more is refused", () => {
    const input = makeInput({ collateralValue: 1000n * SOL });
    const limits = computeOfferLimits(input, input.pool.collections[0]!);
    expect(limits.maxAmount).toBe(20n * SOL); // exposure binds
    expect(offerOf({ ...input, amount: 20n * SOL }).amount).toBe(20n * SOL);
    const refused = expectRefusal({ ...input, amount: 20n * SOL + 1n }, "ExposureExceeded");
    if (!refused.ok)
      expect(refused.refusal.params).toMatchObject({ maxAmount: String(20n * SOL), mint: SOL_MINT });
  });

  it("names the limit that leaves nothing to lend when no amount is asked", () => {
    const input = makeInput({ bank: { totalLiquidity: 100n * SOL, availableLiquidity: 0n, decimals: 9 } });
    expectRefusal(input, "InsufficientLiquidity");
    expectRefusal(makeInput({ currencyPriceMicroUsd: 0n }), "BelowMinAmountUsd");
  });

  it("checks conditions and the whitelist after the amount limits, liquidity last", () => {
    const base = makeInput();
    const gated = {
      ...base.pool,
      conditions: { ...base.pool.conditions, isEnabled: true, minLoanCount: 2n },
    };
    expectRefusal({ ...base, pool: gated }, "ConditionsNotMet");
    expect(offerOf({ ...base, pool: gated, borrower: { ...base.borrower, pastLoans: 2n } }).amount).toBe(
      10n * SOL,
    );
    const listed = { ...base.pool, conditions: { ...base.pool.conditions, whitelistEnabled: true } };
    expectRefusal({ ...base, pool: listed }, "NotWhitelisted");
    expect(offerOf({ ...base, pool: listed, isWhitelisted: true }).amount).toBe(10n * SOL);
    const dry = { totalLiquidity: 100n * SOL, availableLiquidity: SOL, decimals: 9 };
    expectRefusal({ ...base, bank: dry, amount: 2n * SOL }, "InsufficientLiquidity");
  });

  it("counts the extended loan's principal as released exposure", () => {
    const input = makeInput({ collateralValue: 1000n * SOL, releasedPrincipal: 10n * SOL });
    expect(offerOf(input).maxAmount).toBe(30n * SOL);
    expectRefusal(makeInput({ releasedPrincipal: 11n * SOL }), "MathOverflow");
    const now = 1_700_000_000n;
    expect(evaluateLoanOffer(makeInput({ extendedLoanLiquidatableAfter: now })).ok).toBe(true);
    expectRefusal(makeInput({ extendedLoanLiquidatableAfter: now - 1n }), "LoanLiquidatable");
  });

  it("property: an offer's amount lies in [minAmount, maxAmount] and the maximum is tight", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10_000n * SOL }),
        fc.bigInt({ min: 0n, max: 1_000n * SOL }),
        fc.bigInt({ min: 1n, max: 1_000_000_000n }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.bigInt({ min: 0n, max: 100_000_000_000n }),
        (value, available, price, ltv, maxUsd) => {
          const base = makeInput();
          const input = makeInput({
            collateralValue: value,
            currencyPriceMicroUsd: price,
            bank: { ...base.bank, availableLiquidity: available },
            pool: {
              ...base.pool,
              maxAmountMicroUsd: maxUsd,
              collections: [{ ...base.pool.collections[0]!, ltvBps: ltv }],
            },
          });
          const d = evaluateLoanOffer(input);
          if (!d.ok) return;
          const { offer } = d;
          expect(offer.amount).toBe(offer.maxAmount);
          expect(offer.amount >= offer.minAmount).toBe(true);
          expect(computeAmountMicroUsd(offer.amount, price, 9) <= maxUsd).toBe(true);
          expect(evaluateLoanOffer({ ...input, amount: offer.maxAmount + 1n }).ok).toBe(false);
          expect(evaluateLoanOffer({ ...input, amount: offer.minAmount }).ok).toBe(true);
          if (offer.minAmount > 1n)
            expect(evaluateLoanOffer({ ...input, amount: offer.minAmount - 1n }).ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("offer ranking", () => {
  const make = (maxAmountMicroUsd: bigint, aprBps: number) => ({
    offer: { ...offerOf(makeInput()), maxAmountMicroUsd, aprBps },
  });
  it("ranks by USD lent, then APR, without an amount; by APR, then USD, with one", () => {
    const a = make(100n, 3000);
    const b = make(200n, 4000);
    const c = make(200n, 2000);
    expect(rankLoanOffers([a, b, c], "most")).toEqual([c, b, a]);
    expect(rankLoanOffers([a, b, c], "cheapest")).toEqual([c, a, b]);
  });
});

describe("valuation", () => {
  it("parses prices to micro-USD (truncated) and converts rounding down", () => {
    expect(parsePriceMicroUsd("152.3456789")).toBe(152_345_678n);
    expect(parsePriceMicroUsd(0.5)).toBe(500_000n);
    expect(parsePriceMicroUsd("abc")).toBeNull();
    // 1 SOL at 150 USD in USDC (6 decimals) at 1 USD
    expect(
      convertAtPrices({
        amount: SOL,
        fromDecimals: 9,
        fromPriceMicroUsd: 150_000_000n,
        toDecimals: 6,
        toPriceMicroUsd: 1_000_000n,
      }),
    ).toBe(150_000_000n);
    expect(
      convertAtPrices({
        amount: 1n,
        fromDecimals: 9,
        fromPriceMicroUsd: 1n,
        toDecimals: 9,
        toPriceMicroUsd: 0n,
      }),
    ).toBeNull();
  });
});

describe("evaluateLoanOffer for a mortgage (TakeMortgage)", () => {
  const mortgagePool = (over: Partial<OfferInput["pool"]> = {}) => ({
    ...makeInput().pool,
    isMortgageEnabled: true,
    mortgageAprBps: 3000,
    ...over,
  });

  it("lends at the mortgage APR, at most LTV of the lower of value and price", () => {
    // value 20 SOL, price 16 SOL, LTV 50%: 8 SOL (the price binds)
    const offer = offerOf(makeInput({ pool: mortgagePool(), mortgagePrice: 16n * SOL }));
    expect(offer.aprBps).toBe(3000);
    expect(offer.maxAmount).toBe(8n * SOL);
    // a price above the value: the value binds (10 SOL)
    expect(offerOf(makeInput({ pool: mortgagePool(), mortgagePrice: 30n * SOL })).maxAmount).toBe(10n * SOL);
    expectRefusal(
      makeInput({ pool: mortgagePool(), mortgagePrice: 16n * SOL, amount: 8n * SOL + 1n }),
      "LtvExceeded",
    );
  });

  it("refuses a pool without the flag, a defi-pool, a private pool and the loan curve's APR", () => {
    expectRefusal(
      makeInput({ pool: mortgagePool({ isMortgageEnabled: false }), mortgagePrice: SOL }),
      "MortgageDisabled",
    );
    expectRefusal(
      makeInput({ pool: mortgagePool({ poolType: "defi-pool" }), mortgagePrice: SOL }),
      "InvalidCollateral",
    );
    const privatePool = mortgagePool({
      conditions: { ...makeInput().pool.conditions, whitelistEnabled: true },
    });
    expectRefusal(
      makeInput({ pool: privatePool, mortgagePrice: 16n * SOL, isWhitelisted: true }),
      "InvalidWhitelist",
    );
    expectRefusal(
      makeInput({ pool: mortgagePool(), mortgagePrice: 16n * SOL, expectedAprBps: 5000 }),
      "AprMismatch",
    );
    // the same pool's classic loan still runs on the loan curve
    expect(offerOf(makeInput({ pool: mortgagePool() })).aprBps).toBe(5000);
  });
});
