/**
 * The rule-book of loan offers: the ONE place that decides whether a pool's offer can be taken, and on
 * what terms. The calculator, the builder, the pool selection and the web app call
 * {@link evaluateLoanOffer}; the lending program's TakeLoan/Extend checks are held to it by a
 * differential test (programs/lending/test/rule-book-differential.test.ts).
 *
 * A refusal carries the program's own error code (6xxx, program-errors.ts), so a refusal off chain and
 * on chain reads the same. Checks run in the program's order: paused, pool open, duration, APR, zero
 * amount, (Extend: old loan past grace), collection in pool, minimum USD, maximum USD, LTV, exposure, conditions, whitelist, liquidity.
 *
 * Units: amounts are bigint base units of the loan currency; USD is micro-USD (1 USD = 1_000_000);
 * prices are micro-USD per whole token (what the oracle attests); times are epoch seconds.
 * Rounding favours the pool: limits round down, interest rounds up.
 */
import { bigintMin, ceilDiv, floorDiv } from "./amounts.ts";
import { BPS, MIN_LOAN_DURATION_SECONDS, PROTOCOL_FEE_BPS, U64_MAX } from "./constants.ts";
import { ERROR_CODES } from "./errors.ts";
import { computeTotalInterest } from "./interest.ts";
import { computeGraceSeconds } from "./loan-timing.ts";
import { PROGRAM_ERROR_CODE, type ProgramErrorName } from "./program-errors.ts";

const BPS_BIG = BigInt(BPS);

/** A pool's terms as the program stores them. */
export interface OfferPoolTerms {
  poolType: "nft-pool" | "defi-pool";
  isOpen: boolean;
  loanAprBps: number;
  maxDurationSeconds: bigint;
  minAmountMicroUsd: bigint;
  maxAmountMicroUsd: bigint;
  conditions: {
    isEnabled: boolean;
    minAgeSeconds: bigint;
    minLoanCount: bigint;
    minVolumeMicroUsd: bigint;
    whitelistEnabled: boolean;
  };
  /** nft-pool: collection ids; defi-pool: collateral mints. */
  collections: readonly OfferCollectionTerms[];
  /** nft-pool: whether it lends mortgages (TakeMortgage), and at what APR. */
  isMortgageEnabled?: boolean;
  mortgageAprBps?: number;
}

/** One accepted collateral of a pool. */
export interface OfferCollectionTerms {
  id: string;
  ltvBps: number;
  /** Basis points of the bank's total liquidity. */
  exposureBps: number;
  /** Outstanding principal against this collateral in this pool. */
  borrowedAmount: bigint;
}

/**
 * Liquidity a new loan may draw on: the bank's idle liquidity, plus what it delegated to the lending venue when
 * the loan pulls it back in its own transaction (TakeLoan does; Extend and MarginSwap do not). Delegated
 * principal is counted at cost: the venue position is worth at least that, less the venue's rounding.
 */
export function getNewLoanLiquidity(
  bank: { availableLiquidity: bigint; delegatedLiquidity: bigint },
  pullsDelegated: boolean,
): bigint {
  return bank.availableLiquidity + (pullsDelegated ? bank.delegatedLiquidity : 0n);
}

/** The bank a new loan draws on, as the new loan sees it (Extend: after the old loan's repayment). */
export interface OfferBankState {
  totalLiquidity: bigint;
  availableLiquidity: bigint;
  decimals: number;
}

/** Borrower facts that pool conditions need (attested by the oracle). */
export interface OfferBorrowerFacts {
  walletAgeSeconds: bigint;
  pastLoans: bigint;
  volumeMicroUsd: bigint;
}

/** Everything an offer depends on. */
export interface OfferInput {
  protocolPaused: boolean;
  pool: OfferPoolTerms;
  /** Loan currency mint (the bank's mint): named in refusal params so amounts can be formatted. */
  currencyMint: string;
  bank: OfferBankState;
  /** nft: the NFT's verified collection; defi: the collateral mint. */
  collateralId: string;
  /** Collateral value in loan-currency base units, as attested. */
  collateralValue: bigint;
  /** Loan currency price, micro-USD per whole token, as attested. */
  currencyPriceMicroUsd: bigint;
  borrower: OfferBorrowerFacts;
  /** Whether the borrower is in the pool's whitelist (ignored unless the pool has one). */
  isWhitelisted: boolean;
  durationSeconds: bigint;
  /** Wanted principal; the most the pool lends when absent. */
  amount?: bigint;
  /** The rate the borrower agreed to (the program refuses a changed rate); the pool's when absent. */
  expectedAprBps?: number;
  /** Principal of the loan being extended, released from the same collection entry (Extend). */
  releasedPrincipal?: bigint;
  /** Extend: the old loan's expiry + grace; past it the loan can be repaid or liquidated, not extended. */
  extendedLoanLiquidatableAfter?: bigint;
  /**
   * TakeMortgage: the listing's price, loan-currency base units. The pool must offer mortgages; the loan runs at
   * its mortgage APR and is at most LTV of the lower of the attested value and the price (the buyer's down
   * payment covers the rest); private pools cannot lend mortgages.
   */
  mortgagePrice?: bigint;
  nowSeconds: bigint;
  /** The config's fee share of interest; 2000 when absent. */
  protocolFeeBps?: number;
}

/** An offer that can be taken now. Amounts in loan-currency base units. */
export interface LoanOffer {
  amount: bigint;
  /** Most this pool lends against this collateral now. */
  maxAmount: bigint;
  /** Least this pool lends (its minimum USD amount at the attested price). */
  minAmount: bigint;
  aprBps: number;
  durationSeconds: bigint;
  /** Interest due at expiry (rounded up). */
  interest: bigint;
  /** Cistern's share of that interest (rounded down). */
  protocolFee: bigint;
  /** amount + interest. */
  owedAtExpiry: bigint;
  amountMicroUsd: bigint;
  maxAmountMicroUsd: bigint;
  expiresAt: bigint;
  graceSeconds: bigint;
  /** Anyone may liquidate after this instant (expiry + grace). */
  liquidatableAfter: bigint;
}

/**
 * Why an offer cannot be taken: the program's code and name (or LOAN_LIQUIDITY_DELEGATED, refused before signing),
 * with parameters for a sentence.
 */
export interface OfferRefusal {
  code: number;
  name: ProgramErrorName | "LOAN_LIQUIDITY_DELEGATED";
  /** Amounts are base-unit decimal strings of `mint`; USD figures are micro-USD strings. */
  params: Record<string, string>;
}

export type OfferDecision = { ok: true; offer: LoanOffer } | { ok: false; refusal: OfferRefusal };

/** The most and least a pool lends for one collateral, each limit separately (base units). */
export interface OfferLimits {
  byLtv: bigint;
  byExposure: bigint;
  byLiquidity: bigint;
  byMaxUsd: bigint;
  /** Smallest amount at or above the pool's minimum USD; null when no amount reaches it (no price). */
  minAmount: bigint | null;
  maxAmount: bigint;
}

/** USD value, micro-USD, of `amount` base units at `priceMicroUsd` per whole token, rounded down. */
export function computeAmountMicroUsd(amount: bigint, priceMicroUsd: bigint, decimals: number): bigint {
  return floorDiv(amount * priceMicroUsd, 10n ** BigInt(decimals));
}

/**
 * Each limit on the principal, exactly as the program checks it:
 * - LTV: `amount * 10000 <= value * ltvBps`;
 * - exposure: `(borrowed - released + amount) * 10000 <= exposureBps * bankTotal`;
 * - liquidity: `amount <= available`;
 * - USD: `min <= floor(amount * price / 10^decimals) <= max`.
 */
export function computeOfferLimits(input: OfferInput, entry: OfferCollectionTerms): OfferLimits {
  const { bank, pool } = input;
  const scale = 10n ** BigInt(bank.decimals);
  const price = input.currencyPriceMicroUsd;
  const valued =
    input.mortgagePrice !== undefined
      ? bigintMin(input.collateralValue, input.mortgagePrice)
      : input.collateralValue;
  const byLtv = floorDiv(valued * BigInt(entry.ltvBps), BPS_BIG);
  const borrowed = entry.borrowedAmount - (input.releasedPrincipal ?? 0n);
  const byExposure = floorDiv(BigInt(entry.exposureBps) * bank.totalLiquidity, BPS_BIG) - borrowed;
  const byLiquidity = bank.availableLiquidity;
  // floor(a * p / s) <= max  <=>  a * p < (max + 1) * s
  const byMaxUsd = price === 0n ? byLiquidity : floorDiv((pool.maxAmountMicroUsd + 1n) * scale - 1n, price);
  // floor(a * p / s) >= min  <=>  a * p >= min * s
  const minAmount =
    price === 0n
      ? pool.minAmountMicroUsd === 0n
        ? 1n
        : null
      : ceilDiv(pool.minAmountMicroUsd * scale, price);
  const lowest = [byLtv, byExposure, byLiquidity, byMaxUsd].reduce(bigintMin);
  return {
    byLtv,
    byExposure,
    byLiquidity,
    byMaxUsd,
    minAmount: minAmount === null ? null : minAmount > 1n ? minAmount : 1n,
    maxAmount: lowest > 0n ? lowest : 0n,
  };
}

/**
 * The refusal of a loan whose pool has too little idle liquidity (`idleBaseUnits`) while its bank's delegated
 * liquidity (`delegatedBaseUnits`) would cover it, for a transaction that cannot pull delegated funds back. `viewer`
 * says who reads the sentence: the borrower (Extend, MarginSwap, mortgages, refinancing) or the lender filling a
 * request from their own pool.
 */
export function refuseForDelegatedLiquidity(input: {
  mint: string;
  idleBaseUnits: bigint;
  delegatedBaseUnits: bigint;
  viewer: "borrower" | "lender";
}): OfferRefusal {
  return {
    code: ERROR_CODES.LOAN_LIQUIDITY_DELEGATED,
    name: "LOAN_LIQUIDITY_DELEGATED",
    params: {
      mint: input.mint,
      maxAmount: (input.idleBaseUnits > 0n ? input.idleBaseUnits : 0n).toString(),
      delegatedAmount: input.delegatedBaseUnits.toString(),
      viewer: input.viewer,
    },
  };
}

/**
 * The rule-book's decision for a loan that cannot pull delegated liquidity back (Extend, MarginSwap, mortgages,
 * refinancing): its InsufficientLiquidity becomes LOAN_LIQUIDITY_DELEGATED when the bank's `delegatedBaseUnits`
 * would have let the pool lend it, so the borrower reads why and what to do rather than a bare shortfall.
 */
export function evaluateLoanOfferWithoutPull(input: OfferInput, delegatedBaseUnits: bigint): OfferDecision {
  const decision = evaluateLoanOffer(input);
  if (decision.ok || decision.refusal.name !== "InsufficientLiquidity" || delegatedBaseUnits <= 0n)
    return decision;
  const bank = { ...input.bank, availableLiquidity: input.bank.availableLiquidity + delegatedBaseUnits };
  if (!evaluateLoanOffer({ ...input, bank }).ok) return decision;
  return {
    ok: false,
    refusal: refuseForDelegatedLiquidity({
      mint: input.currencyMint,
      idleBaseUnits: BigInt(decision.refusal.params.maxAmount ?? "0"),
      delegatedBaseUnits,
      viewer: "borrower",
    }),
  };
}

function refuse(name: ProgramErrorName, params: Record<string, string> = {}): OfferDecision {
  return { ok: false, refusal: { code: PROGRAM_ERROR_CODE[name], name, params } };
}

/** The first amount limit `amount` breaks, in the program's order (USD, LTV, exposure), or null. */
function checkAmountLimits(input: OfferInput, limits: OfferLimits, amount: bigint): OfferDecision | null {
  const mint = input.currencyMint;
  const usd = computeAmountMicroUsd(amount, input.currencyPriceMicroUsd, input.bank.decimals);
  const base = { amount: amount.toString(), mint };
  if (usd > U64_MAX) return refuse("MathOverflow", base);
  if (usd < input.pool.minAmountMicroUsd) {
    return refuse("BelowMinAmountUsd", {
      ...base,
      minAmount: String(limits.minAmount ?? ""),
      minAmountMicroUsd: input.pool.minAmountMicroUsd.toString(),
    });
  }
  if (usd > input.pool.maxAmountMicroUsd) {
    return refuse("AboveMaxAmountUsd", {
      ...base,
      maxAmount: limits.byMaxUsd.toString(),
      maxAmountMicroUsd: input.pool.maxAmountMicroUsd.toString(),
    });
  }
  if (amount > limits.byLtv) return refuse("LtvExceeded", { ...base, maxAmount: limits.byLtv.toString() });
  if (amount > limits.byExposure) {
    const capacity = limits.byExposure > 0n ? limits.byExposure : 0n;
    return refuse("ExposureExceeded", { ...base, maxAmount: capacity.toString() });
  }
  return null;
}

/** The binding upper limit when even the pool's minimum cannot be lent. */
function refuseNothingToLend(input: OfferInput, limits: OfferLimits): OfferDecision {
  const mint = input.currencyMint;
  const params = {
    mint,
    maxAmount: limits.maxAmount.toString(),
    minAmount: String(limits.minAmount ?? ""),
    minAmountMicroUsd: input.pool.minAmountMicroUsd.toString(),
  };
  if (limits.minAmount === null) return refuse("BelowMinAmountUsd", params);
  const lowest = limits.maxAmount;
  if (limits.byLtv === lowest) return refuse("LtvExceeded", params);
  if (limits.byExposure === lowest) return refuse("ExposureExceeded", params);
  if (limits.byLiquidity === lowest) return refuse("InsufficientLiquidity", params);
  return refuse("BelowMinAmountUsd", params);
}

/**
 * Decide an offer: the terms when the pool would lend, or the program's refusal. With `amount` given,
 * the answer is exactly the program's for a TakeLoan with that principal. Without it, the offer is for
 * the most the pool lends (or the refusal names the limit that leaves nothing to lend).
 */
export function evaluateLoanOffer(input: OfferInput): OfferDecision {
  const { pool } = input;
  if (input.protocolPaused) return refuse("ProtocolPaused");
  if (!pool.isOpen) return refuse("PoolNotOpen");
  if (
    input.durationSeconds < BigInt(MIN_LOAN_DURATION_SECONDS) ||
    input.durationSeconds > pool.maxDurationSeconds
  ) {
    return refuse("InvalidDuration", {
      durationSeconds: input.durationSeconds.toString(),
      minDurationSeconds: String(MIN_LOAN_DURATION_SECONDS),
      maxDurationSeconds: pool.maxDurationSeconds.toString(),
    });
  }
  const aprBps = offerAprBps(input);
  if (input.expectedAprBps !== undefined && input.expectedAprBps !== aprBps) {
    return refuse("AprMismatch", { expectedAprBps: String(input.expectedAprBps), aprBps: String(aprBps) });
  }
  if (input.amount !== undefined && input.amount <= 0n)
    return refuse("InvalidAmount", { amount: input.amount.toString() });
  if (input.mortgagePrice !== undefined) {
    if (pool.poolType !== "nft-pool") return refuse("InvalidCollateral");
    if (pool.isMortgageEnabled !== true) return refuse("MortgageDisabled");
  }
  const lastExtendable = input.extendedLoanLiquidatableAfter;
  if (lastExtendable !== undefined && input.nowSeconds > lastExtendable) {
    return refuse("LoanLiquidatable", { liquidatableAfter: lastExtendable.toString() });
  }
  const entry = pool.collections.find((c) => c.id === input.collateralId);
  if (entry === undefined) return refuse("CollectionNotInPool", { collateralId: input.collateralId });
  if ((input.releasedPrincipal ?? 0n) > entry.borrowedAmount) return refuse("MathOverflow");
  const limits = computeOfferLimits(input, entry);
  const amount = input.amount ?? limits.maxAmount;
  if (input.amount === undefined && (limits.minAmount === null || limits.maxAmount < limits.minAmount)) {
    const early = checkConditions(input);
    return early ?? refuseNothingToLend(input, limits);
  }
  const byAmount = checkAmountLimits(input, limits, amount);
  if (byAmount) return byAmount;
  const byConditions = checkConditions(input);
  if (byConditions) return byConditions;
  if (amount > limits.byLiquidity) {
    return refuse("InsufficientLiquidity", {
      amount: amount.toString(),
      mint: input.currencyMint,
      maxAmount: limits.byLiquidity.toString(),
    });
  }
  return { ok: true, offer: buildOffer(input, limits, amount) };
}

function checkConditions(input: OfferInput): OfferDecision | null {
  const c = input.pool.conditions;
  const b = input.borrower;
  if (
    c.isEnabled &&
    (b.walletAgeSeconds < c.minAgeSeconds ||
      b.pastLoans < c.minLoanCount ||
      b.volumeMicroUsd < c.minVolumeMicroUsd)
  ) {
    return refuse("ConditionsNotMet", {
      minAgeSeconds: c.minAgeSeconds.toString(),
      minLoanCount: c.minLoanCount.toString(),
      minVolumeMicroUsd: c.minVolumeMicroUsd.toString(),
    });
  }
  // a mortgage passes no whitelist account: a private pool cannot lend one
  if (c.whitelistEnabled && input.mortgagePrice !== undefined) return refuse("InvalidWhitelist");
  if (c.whitelistEnabled && !input.isWhitelisted) return refuse("NotWhitelisted");
  return null;
}

/** The APR a new loan runs at: the pool's mortgage curve for a mortgage, its loan curve otherwise. */
function offerAprBps(input: OfferInput): number {
  return input.mortgagePrice !== undefined ? (input.pool.mortgageAprBps ?? 0) : input.pool.loanAprBps;
}

function buildOffer(input: OfferInput, limits: OfferLimits, amount: bigint): LoanOffer {
  const aprBps = offerAprBps(input);
  const interest = computeTotalInterest({
    aprBps,
    principal: amount,
    durationSeconds: input.durationSeconds,
  });
  const feeBps = BigInt(input.protocolFeeBps ?? PROTOCOL_FEE_BPS);
  const expiresAt = input.nowSeconds + input.durationSeconds;
  const graceSeconds = BigInt(computeGraceSeconds(input.durationSeconds));
  const price = input.currencyPriceMicroUsd;
  return {
    amount,
    maxAmount: limits.maxAmount,
    minAmount: limits.minAmount ?? amount,
    aprBps,
    durationSeconds: input.durationSeconds,
    interest,
    protocolFee: floorDiv(interest * feeBps, BPS_BIG),
    owedAtExpiry: amount + interest,
    amountMicroUsd: computeAmountMicroUsd(amount, price, input.bank.decimals),
    maxAmountMicroUsd: computeAmountMicroUsd(limits.maxAmount, price, input.bank.decimals),
    expiresAt,
    graceSeconds,
    liquidatableAfter: expiresAt + graceSeconds,
  };
}
