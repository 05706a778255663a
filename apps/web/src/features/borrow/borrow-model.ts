import {
  bigintMin,
  computeExposureCapacity,
  computeGraceSeconds,
  computeLoanQuote,
  computeMaxBorrowAmount,
  getCurrencyByMint,
  isCisternError,
  type LoanQuote,
  MIN_LOAN_DURATION_SECONDS,
  type ParsedPool,
  parseUnits,
  SECONDS_PER_DAY,
  toScaledUsdPrice,
} from "@cistern/protocol";
import { formatMoney, formatUsd } from "../../pages/format.ts";

/** Prices by mint, USD per whole unit as decimal strings. */
export type Prices = Record<string, string>;

/**
 * Value of `amount` base units of `fromMint` (decimals `fromDecimals`) in base units of `toMint`,
 * at USD prices, rounded down (a borrower is never credited more than the collateral is worth).
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
  const fromPrice = prices[fromMint];
  const toPrice = prices[toMint];
  if (!to || fromPrice === undefined || toPrice === undefined) return null;
  const toScaled = toScaledUsdPrice(toPrice);
  if (toScaled === 0n) return null;
  return (
    (amount * toScaledUsdPrice(fromPrice) * 10n ** BigInt(to.decimals)) /
    (toScaled * 10n ** BigInt(fromDecimals))
  );
}

/** A pool's offer for one collateral: how much it lends and on what terms. */
export interface Offer {
  pool: ParsedPool;
  ltvBps: number;
  exposureBps: number;
  collateralBorrowed: bigint;
  /** Collateral value in the pool currency, base units. */
  collateralValue: bigint;
  /** Most this pool lends against the collateral now, base units. */
  maxBorrow: bigint;
}

/** Most a USD limit allows in base units of `mint` at `priceUsd`, rounded down. */
function usdLimitToBaseUnits(limitUsd: number, mint: string, prices: Prices): bigint | null {
  const currency = getCurrencyByMint(mint);
  const price = prices[mint];
  if (!currency || price === undefined) return null;
  const scaled = toScaledUsdPrice(price);
  if (scaled === 0n) return null;
  return (toScaledUsdPrice(limitUsd) * 10n ** BigInt(currency.decimals)) / scaled;
}

/**
 * Offers of open pools for one collateral (`collateralId` = collection id or token mint), whose
 * value is `amount` base units of `valueMint` (SOL lamports for an NFT floor; the token itself for
 * tokens). Best first: largest max borrow, then lowest APR.
 */
export function findOffers(input: {
  pools: readonly ParsedPool[];
  collateralId: string;
  valueMint: string;
  valueDecimals: number;
  value: bigint;
  prices: Prices;
}): Offer[] {
  const offers: Offer[] = [];
  for (const pool of input.pools) {
    if (pool.status !== "Open") continue;
    const entry = pool.collections.find((c) => c.collection === input.collateralId);
    if (!entry || entry.collectionLtv <= 0) continue;
    const collateralValue = convertValue(
      input.value,
      input.valueMint,
      input.valueDecimals,
      pool.currency,
      input.prices,
    );
    if (collateralValue === null) continue;
    let maxBorrow = bigintMin(
      computeMaxBorrowAmount(collateralValue, entry.collectionLtv),
      bigintMin(
        computeExposureCapacity(pool.totalLiquidity, entry.exposure, entry.borrowedAmount),
        pool.availableLiquidity,
      ),
    );
    const maxUsd = usdLimitToBaseUnits(pool.limits.maxAmountUsd, pool.currency, input.prices);
    if (maxUsd !== null) maxBorrow = bigintMin(maxBorrow, maxUsd);
    offers.push({
      pool,
      ltvBps: entry.collectionLtv,
      exposureBps: entry.exposure,
      collateralBorrowed: entry.borrowedAmount,
      collateralValue,
      maxBorrow: maxBorrow < 0n ? 0n : maxBorrow,
    });
  }
  return offers.sort((a, b) =>
    a.maxBorrow === b.maxBorrow
      ? a.pool.loanCurve.apr - b.pool.loanCurve.apr
      : a.maxBorrow > b.maxBorrow
        ? -1
        : 1,
  );
}

/** What the borrower typed. */
export interface BorrowInput {
  amountText: string;
  durationDaysText: string;
}

/** A checked request: the amount and duration, or the first message to show. */
export type BorrowCheck =
  | { ok: true; amount: bigint; durationSeconds: number; quote: LoanQuote }
  | { ok: false; field: "amount" | "duration"; message: string };

/**
 * Checks a loan request against an offer with messages in whole units: amount format, the
 * currency minimum (NFT or token loans), the offer's maximum, the pool's USD limits and the
 * duration (1 day to the pool's maximum). Returns the quote when everything passes.
 */
export function checkBorrow(
  input: BorrowInput,
  offer: Offer,
  kind: "nft" | "token",
  prices: Prices,
): BorrowCheck {
  const pool = offer.pool;
  const currency = getCurrencyByMint(pool.currency);
  if (!currency) return { ok: false, field: "amount", message: "This pool lends an unsupported currency." };
  const amountText = input.amountText.trim();
  if (amountText === "") return { ok: false, field: "amount", message: "Enter an amount to borrow." };
  let amount: bigint;
  try {
    amount = parseUnits(amountText, currency.decimals);
  } catch (error) {
    const message = isCisternError(error)
      ? `Enter a number with at most ${currency.decimals} decimals.`
      : "Enter a valid amount.";
    return { ok: false, field: "amount", message };
  }
  if (amount <= 0n) return { ok: false, field: "amount", message: "The amount must be greater than zero." };
  const minimum = kind === "nft" ? currency.minAmountBaseUnits : currency.minDefiAmountBaseUnits;
  if (amount < minimum) {
    return {
      ok: false,
      field: "amount",
      message: `The minimum ${kind === "nft" ? "NFT" : "token"} loan is ${formatMoney(minimum, pool.currency)}.`,
    };
  }
  if (amount > offer.maxBorrow) {
    return {
      ok: false,
      field: "amount",
      message: `This pool lends at most ${formatMoney(offer.maxBorrow, pool.currency)} against this collateral.`,
    };
  }
  const minUsd = usdLimitToBaseUnits(pool.limits.minAmountUsd, pool.currency, prices);
  if (minUsd !== null && amount < minUsd) {
    return {
      ok: false,
      field: "amount",
      message: `This pool's loans start at ${formatUsd(pool.limits.minAmountUsd)} (${formatMoney(minUsd, pool.currency)}).`,
    };
  }
  const daysText = input.durationDaysText.trim();
  const days = Number(daysText);
  if (daysText === "" || !Number.isInteger(days)) {
    return { ok: false, field: "duration", message: "Enter the duration in whole days." };
  }
  const durationSeconds = days * SECONDS_PER_DAY;
  const maxDays = Math.floor(pool.limits.maxDuration / SECONDS_PER_DAY);
  if (durationSeconds < MIN_LOAN_DURATION_SECONDS || durationSeconds > pool.limits.maxDuration) {
    return { ok: false, field: "duration", message: `Choose between 1 and ${maxDays} days.` };
  }
  const quote = computeLoanQuote({
    amount,
    durationSeconds,
    aprBps: pool.loanCurve.apr,
    decimals: currency.decimals,
    ...(prices[pool.currency] !== undefined ? { priceUsd: prices[pool.currency]! } : {}),
  });
  return { ok: true, amount, durationSeconds, quote };
}

/** Dates and grace of a loan taken at `nowSeconds`. */
export function getLoanSchedule(nowSeconds: number, durationSeconds: number) {
  const expiresAt = nowSeconds + durationSeconds;
  const graceSeconds = computeGraceSeconds(durationSeconds);
  return { expiresAt, graceSeconds, liquidatableAfter: expiresAt + graceSeconds };
}
