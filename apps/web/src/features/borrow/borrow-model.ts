import {
  computeGraceSeconds,
  computeLoanQuote,
  convertAtPrices,
  describeErrorForUser,
  EMPTY_WHITELIST_ADDRESS,
  evaluateLoanOffer,
  formatUnits,
  getCurrencyByMint,
  getNewLoanLiquidity,
  isCisternError,
  type LoanOffer,
  type LoanQuote,
  MICRO_USD_DECIMALS,
  MIN_LOAN_DURATION_SECONDS,
  type OfferInput,
  type ParsedPool,
  parsePriceMicroUsd,
  parseUnits,
  parseUnitsFloor,
  rankLoanOffers,
  SECONDS_PER_DAY,
} from "@cistern/protocol";
import { formatMoney } from "../../kit/format.ts";

/** Prices by mint, USD per whole unit as decimal strings. */
export type Prices = Record<string, string>;

/** Micro-USD price of a mint from the price map (the oracle's truncation), or null. */
function priceMicroUsd(mint: string, prices: Prices): bigint | null {
  const text = prices[mint];
  return text === undefined ? null : parsePriceMicroUsd(text);
}

/**
 * Value of `amount` base units of `fromMint` (decimals `fromDecimals`) in base units of `toMint`, at
 * micro-USD prices, rounded down (a borrower is never credited more than the collateral is worth).
 * Same mint: the amount itself. Null when a price is missing.
 */
export function convertValue(
  amount: bigint,
  fromMint: string,
  fromDecimals: number,
  toMint: string,
  prices: Prices,
): bigint | null {
  if (fromMint === toMint) return amount;
  const to = getCurrencyByMint(toMint);
  const fromPrice = priceMicroUsd(fromMint, prices);
  const toPrice = priceMicroUsd(toMint, prices);
  if (!to || fromPrice === null || toPrice === null) return null;
  return convertAtPrices({
    amount,
    fromDecimals,
    fromPriceMicroUsd: fromPrice,
    toDecimals: to.decimals,
    toPriceMicroUsd: toPrice,
  });
}

/** A pool's offer for one collateral, as the rule-book decides it. */
export interface Offer {
  pool: ParsedPool;
  ltvBps: number;
  exposureBps: number;
  collateralBorrowed: bigint;
  /** Collateral value in the pool currency, base units. */
  collateralValue: bigint;
  /** Most this pool lends against the collateral now, base units. */
  maxBorrow: bigint;
  /** Least this pool lends (its minimum USD amount), base units. */
  minBorrow: bigint;
  /** The rule-book's input for this pool, reused to check a typed amount and duration. */
  input: OfferInput;
}

/** The rule-book's input for `pool` (the borrower's facts are unknown here: pools with conditions refuse). */
function toOfferInput(
  pool: ParsedPool,
  collateralId: string,
  collateralValue: bigint,
  priceMicro: bigint,
  nowSeconds: bigint,
): OfferInput | null {
  const currency = getCurrencyByMint(pool.currency);
  if (!currency) return null;
  const usd = (value: number) => parseUnitsFloor(value, MICRO_USD_DECIMALS);
  return {
    protocolPaused: false,
    pool: {
      poolType: pool.type,
      isOpen: pool.status === "Open",
      loanAprBps: pool.loanCurve.apr,
      maxDurationSeconds: BigInt(pool.limits.maxDuration),
      minAmountMicroUsd: usd(pool.limits.minAmountUsd),
      maxAmountMicroUsd: usd(pool.limits.maxAmountUsd),
      conditions: {
        isEnabled: pool.conditions.isEnabled,
        minAgeSeconds: BigInt(Math.max(0, Math.floor(pool.conditions.minAge))),
        minLoanCount: BigInt(Math.max(0, Math.floor(pool.conditions.minLoan))),
        minVolumeMicroUsd: BigInt(Math.max(0, Math.floor(pool.conditions.minVolume))),
        whitelistEnabled:
          pool.conditions.whitelist !== EMPTY_WHITELIST_ADDRESS && pool.conditions.whitelist !== "",
      },
      collections: pool.collections.map((c) => ({
        id: c.collection,
        ltvBps: c.collectionLtv,
        exposureBps: c.exposure,
        borrowedAmount: c.borrowedAmount,
      })),
    },
    currencyMint: pool.currency,
    bank: {
      totalLiquidity: pool.totalLiquidity,
      // a take-loan pulls what the bank delegated to the lending venue back in its own transaction
      availableLiquidity: getNewLoanLiquidity(pool, true),
      decimals: currency.decimals,
    },
    collateralId,
    collateralValue,
    currencyPriceMicroUsd: priceMicro,
    borrower: { walletAgeSeconds: 0n, pastLoans: 0n, volumeMicroUsd: 0n },
    isWhitelisted: false,
    durationSeconds: BigInt(MIN_LOAN_DURATION_SECONDS),
    nowSeconds,
  };
}

/**
 * Offers of pools for one collateral (`collateralId` = collection id or token mint), whose value is
 * `amount` base units of `valueMint` (SOL lamports for an NFT floor; the token itself for tokens), decided
 * by the rule-book: a pool that cannot lend at least its minimum is not an offer. Ranked in USD at the
 * price the oracle would attest: the most lent first, then the lowest APR.
 */
export function findOffers(input: {
  pools: readonly ParsedPool[];
  collateralId: string;
  valueMint: string;
  valueDecimals: number;
  value: bigint;
  prices: Prices;
  nowSeconds?: number;
}): Offer[] {
  const now = BigInt(input.nowSeconds ?? Math.floor(Date.now() / 1000));
  const offers: (Offer & { offer: LoanOffer })[] = [];
  for (const pool of input.pools) {
    const entry = pool.collections.find((c) => c.collection === input.collateralId);
    const price = priceMicroUsd(pool.currency, input.prices);
    if (!entry || price === null) continue;
    const collateralValue = convertValue(
      input.value,
      input.valueMint,
      input.valueDecimals,
      pool.currency,
      input.prices,
    );
    if (collateralValue === null) continue;
    const offerInput = toOfferInput(pool, input.collateralId, collateralValue, price, now);
    if (offerInput === null) continue;
    const decision = evaluateLoanOffer(offerInput);
    if (!decision.ok) continue;
    offers.push({
      pool,
      ltvBps: entry.collectionLtv,
      exposureBps: entry.exposure,
      collateralBorrowed: entry.borrowedAmount,
      collateralValue,
      maxBorrow: decision.offer.maxAmount,
      minBorrow: decision.offer.minAmount,
      input: offerInput,
      offer: decision.offer,
    });
  }
  return rankLoanOffers(offers, "most").map(({ offer: _offer, ...rest }) => rest);
}

/** What the borrower typed. */
export interface BorrowInput {
  amountText: string;
  durationDaysText: string;
}

/** What is wrong with each field; a field without a problem is absent. */
export interface BorrowProblems {
  amount?: string;
  duration?: string;
}

/** A checked request: the amount and duration with their quote, or every problem of the form at once. */
export type BorrowCheck =
  | { ok: true; amount: bigint; durationSeconds: number; quote: LoanQuote; offer: LoanOffer }
  | { ok: false; problems: BorrowProblems };

/** Longest duration an offer's pool lends for, whole days. */
export function getOfferMaxDays(offer: Offer): number {
  return Math.floor(offer.pool.limits.maxDuration / SECONDS_PER_DAY);
}

/** True when `daysText` is a duration `offer`'s pool lends for (whole days, from 1 to its longest). */
export function isDurationValidFor(daysText: string, offer: Offer): boolean {
  const days = Number(daysText.trim());
  return daysText.trim() !== "" && Number.isInteger(days) && days >= 1 && days <= getOfferMaxDays(offer);
}

const sentenceOf = (refusal: { code: number; name: string; params: Record<string, string> }): string =>
  describeErrorForUser(
    { code: refusal.code, name: refusal.name, message: refusal.name, params: refusal.params },
    { amount: (a, mint) => formatMoney(a, mint) },
  );

/**
 * What is wrong with the amount alone (at a duration the pool lends for), worded by the rule-book. Above the most
 * the pool lends, the refusal is the one of the limit that binds (the rule-book's first refusal for one base unit
 * more than the offer's maximum), so the sentence names the most it can lend, whichever limit the program checks
 * first for the amount typed.
 */
function checkAmount(amount: bigint, offer: Offer): string | null {
  const probe = amount > offer.maxBorrow ? offer.maxBorrow + 1n : amount;
  const decision = evaluateLoanOffer({ ...offer.input, amount: probe });
  return decision.ok ? null : sentenceOf(decision.refusal);
}

/**
 * Checks what the borrower typed against an offer with the rule-book, each field on its own so that every
 * problem shows at once: the amount's format, then the rule-book's decision for that amount (at a duration the
 * pool lends for), and the duration's (at an amount the pool lends), every refusal worded in the currency's
 * units. Returns the quote when the pool would lend both.
 */
export function checkBorrow(input: BorrowInput, offer: Offer): BorrowCheck {
  const pool = offer.pool;
  const currency = getCurrencyByMint(pool.currency);
  if (!currency) return { ok: false, problems: { amount: "This pool lends an unsupported currency." } };
  const problems: BorrowProblems = {};
  let amount: bigint | null = null;
  const amountText = input.amountText.trim();
  if (amountText === "") problems.amount = "Enter an amount to borrow.";
  else if (amountText.startsWith("-")) problems.amount = "The amount must be positive.";
  else {
    try {
      amount = parseUnits(amountText, currency.decimals);
      if (amount <= 0n) problems.amount = "The amount must be greater than zero.";
    } catch (error) {
      problems.amount = isCisternError(error)
        ? `Enter a number with at most ${currency.decimals} decimals.`
        : "Enter a valid amount.";
    }
  }
  if (amount !== null && problems.amount === undefined) {
    const refused = checkAmount(amount, offer);
    if (refused !== null) problems.amount = refused;
  }
  let durationSeconds: number | null = null;
  const daysText = input.durationDaysText.trim();
  const days = Number(daysText);
  if (daysText === "" || !Number.isInteger(days) || days < 0) {
    problems.duration = "Enter the duration in whole days.";
  } else {
    durationSeconds = days * SECONDS_PER_DAY;
    // the duration at the most the pool lends (an offer is one the pool lends at its defaults)
    const decision = evaluateLoanOffer({ ...offer.input, durationSeconds: BigInt(durationSeconds) });
    if (!decision.ok && decision.refusal.name === "InvalidDuration")
      problems.duration = sentenceOf(decision.refusal);
  }
  if (amount === null || durationSeconds === null || problems.amount || problems.duration)
    return { ok: false, problems };
  const decision = evaluateLoanOffer({ ...offer.input, amount, durationSeconds: BigInt(durationSeconds) });
  if (!decision.ok) {
    const field = decision.refusal.name === "InvalidDuration" ? "duration" : "amount";
    return { ok: false, problems: { [field]: sentenceOf(decision.refusal) } };
  }
  const quote = computeLoanQuote({
    amount,
    durationSeconds,
    aprBps: pool.loanCurve.apr,
    decimals: currency.decimals,
    priceUsd: formatUnits(offer.input.currencyPriceMicroUsd, MICRO_USD_DECIMALS),
  });
  return { ok: true, amount, durationSeconds, quote, offer: decision.offer };
}

/** Dates and grace of a loan taken at `nowSeconds`. */
export function getLoanSchedule(nowSeconds: number, durationSeconds: number) {
  const expiresAt = nowSeconds + durationSeconds;
  const graceSeconds = computeGraceSeconds(durationSeconds);
  return { expiresAt, graceSeconds, liquidatableAfter: expiresAt + graceSeconds };
}
