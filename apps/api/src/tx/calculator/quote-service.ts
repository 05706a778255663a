import { computeAmountMicroUsd, computeOwedInterest, type TransactionCostsJson } from "@cistern/protocol";
import type { BankAccount, LoanAccount, PoolAccount, PoolType } from "@cistern/sdk";
import type { LendingSnapshot } from "../chain/lending-state.ts";
import { type BorrowerFacts, getBorrowerFacts } from "../oracle/borrower-facts.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, offerRefused } from "../tx-errors.ts";
import { readWhitelists } from "./collateral.ts";
import { evaluatePoolOffer, findPoolOffers, type LoanAsk, type PoolOffer } from "./pool-selection.ts";
import { loadTxValuation, type TxValuation } from "./valuation.ts";

/** A quote request after parsing (base units as bigint). */
export interface QuoteRequest {
  poolType: PoolType;
  collateralId: string;
  /** Collateral amount pledged: 1 for an NFT. */
  collateralAmount: bigint;
  durationSeconds: number;
  amount?: bigint;
  currency?: string;
  pool?: string;
  borrower?: string;
  /** The loan being extended. */
  extending?: LoanAccount;
  /** A margin position (MarginSwap cannot pull delegated liquidity back, so only idle liquidity counts). */
  margin?: boolean;
  /** Refinance: any pool but the loan's own (whose loan is not released: Refinance pays it off separately). */
  excludePool?: string;
  /** A mortgage of a listing at this price (its currency's base units): mortgage-enabled pools only. */
  mortgagePrice?: bigint;
}

/** The loan quote (spec section 3) as JSON: amounts are base-unit decimal strings. */
export interface QuoteJson {
  amount: string;
  duration: number;
  interest: string;
  cisternFees: string;
  apr: number;
  currency: string;
  bank: string;
  authorization: string;
  pool: string;
  poolData: {
    borrowedLiquidity: string;
    totalLiquidity: string;
    availableLiquidity: string;
    currency: string;
    conditions: {
      isEnabled: boolean;
      minAge: string;
      minLoan: string;
      minVolume: string;
      whitelistEnabled: boolean;
    };
  };
  requiredRepayment: string;
  netBorrowAmount: string;
  maxBorrowAmount: string;
  /** Least the pool lends (its minimum USD amount at the attested price). */
  minBorrowAmount: string;
  collateralValue: string;
  /** Epoch seconds, if the loan were taken now. */
  expiresAt: number;
  graceSeconds: number;
  liquidatableAfter: number;
  /**
   * What the loan's transaction takes in SOL besides the loan (fee, rent of the accounts it opens), measured on the
   * transaction the build issues; only when the quote names the NFT and the borrower (null: it could not be measured).
   */
  costs?: TransactionCostsJson | null;
  accruedInterestDue?: string;
  repaymentDue?: string;
  amountInUsd?: number;
  interestInUsd?: number;
  cisternFeesInUsd?: number;
}

/** The best offer for a request plus everything the builder and the quote answer need. */
export interface QuoteResult {
  offer: PoolOffer;
  offers: PoolOffer[];
  valuation: TxValuation;
  quote: QuoteJson;
}

/**
 * The cached snapshot with one pool and its bank read fresh from the chain: a request for one pool (every
 * builder request) is decided on the pool's current state, not on a snapshot that may predate a loan. A pool
 * never changes bank, so the snapshot's copy names the bank and both are read in one call (concurrent
 * requests share it: see LendingState.getAccounts); a pool the snapshot does not know yet is read first.
 */
async function freshPoolSnapshot(
  tx: TxContext,
  pool: string,
  cached?: LendingSnapshot,
): Promise<LendingSnapshot> {
  const snapshot = cached ?? (await tx.state.snapshot());
  const knownBank = snapshot.pools.get(pool)?.bank;
  let account: PoolAccount | null;
  let bank: BankAccount | null | undefined;
  if (knownBank !== undefined) {
    const fresh = await tx.state.getPoolAndBank(pool, knownBank);
    account = fresh.pool;
    bank = account !== null && account.bank === knownBank ? fresh.bank : undefined;
  } else account = await tx.state.getPool(pool);
  const pools = new Map(snapshot.pools);
  const banks = new Map(snapshot.banks);
  if (account === null) {
    pools.delete(pool);
    return { ...snapshot, pools };
  }
  pools.set(pool, account);
  if (bank === undefined) bank = await tx.state.getBank(account.bank);
  if (bank === null) banks.delete(account.bank);
  else banks.set(account.bank, bank);
  return { ...snapshot, pools, banks };
}

/** Collateral value function of a request. */
function valueIn(req: QuoteRequest, valuation: TxValuation): (currency: string) => bigint | null {
  if (req.poolType === "nft-pool") return (currency) => valuation.nftValue(req.collateralId, currency);
  return (currency) => valuation.convert(req.collateralAmount, req.collateralId, currency);
}

/**
 * Everything a quote is decided on besides the ask itself: pools and banks, prices, the chain's time and (with a
 * borrower) the borrower's facts and the pools' whitelists. Read once, then any number of asks of the same pool
 * type and borrower are decided on it synchronously ({@link decideQuote}, {@link offerOfPool}).
 */
export interface QuoteBasis {
  snapshot: LendingSnapshot;
  valuation: TxValuation;
  nowSeconds: number;
  facts: BorrowerFacts | null;
  whitelists: Map<string, Set<string>> | undefined;
}

/**
 * What a basis depends on: the pool type, the borrower (facts, whitelists), a named pool (read fresh) and, when
 * given, the collateral and currency (only the pools that could answer them need the borrower's facts).
 */
type BasisRequest = Pick<QuoteRequest, "poolType" | "borrower" | "pool" | "currency"> & {
  collateralId?: string;
};

/**
 * The borrower's facts and the whitelists that the pools able to answer `req` in `snapshot` need: the facts are
 * read from the chain (a few calls, once per borrower every 15 s) only when one of them has conditions.
 */
async function borrowerBasis(
  tx: TxContext,
  req: BasisRequest,
  snapshot: LendingSnapshot,
  valuation: TxValuation,
): Promise<Pick<QuoteBasis, "facts" | "whitelists">> {
  if (req.borrower === undefined) return { facts: null, whitelists: undefined };
  const relevant = [...snapshot.pools]
    .filter(
      ([address, p]) =>
        p.poolType === req.poolType &&
        (req.pool === undefined || address === req.pool) &&
        (req.currency === undefined || p.currencyMint === req.currency) &&
        (req.collateralId === undefined || p.collections.some((c) => c.id === req.collateralId)),
    )
    .map(([, p]) => p);
  const tables = relevant
    .filter((p) => p.conditions.whitelistEnabled && p.conditions.whitelist)
    .map((p) => p.conditions.whitelist!);
  const needFacts = relevant.some((p) => p.conditions.isEnabled);
  const [facts, whitelists] = await Promise.all([
    needFacts ? getBorrowerFacts(tx, req.borrower, valuation) : Promise.resolve(null),
    readWhitelists(tx, [...new Set(tables)]),
  ]);
  return { facts, whitelists };
}

/**
 * Reads a quote basis: the cached snapshot, or with `req.pool` the snapshot with that pool and its bank fresh
 * from the chain; borrower facts and whitelists only when a borrower is given.
 */
export async function loadQuoteBasis(
  tx: TxContext,
  req: BasisRequest,
  chainNow?: number,
  pools: () => Promise<LendingSnapshot> = () => tx.state.snapshot(),
): Promise<QuoteBasis> {
  const [snapshot, valuation, nowSeconds] = await Promise.all([
    req.pool === undefined ? pools() : freshPoolSnapshot(tx, req.pool),
    loadTxValuation(tx.app),
    chainNow === undefined ? tx.clock.recentUnixTime() : Promise.resolve(chainNow),
  ]);
  return { snapshot, valuation, nowSeconds, ...(await borrowerBasis(tx, req, snapshot, valuation)) };
}

/**
 * `basis` with `pool` and its bank read fresh from the chain (prices and time kept): the builders pick the best
 * pool on the cached snapshot, then decide it again on its current state.
 */
export async function freshenQuoteBasis(
  tx: TxContext,
  basis: QuoteBasis,
  req: BasisRequest & { pool: string },
): Promise<QuoteBasis> {
  const snapshot = await freshPoolSnapshot(tx, req.pool, basis.snapshot);
  return { ...basis, snapshot, ...(await borrowerBasis(tx, req, snapshot, basis.valuation)) };
}

/** The rule-book's ask for a request on a basis. */
function askOf(req: QuoteRequest, basis: QuoteBasis): LoanAsk {
  return {
    poolType: req.poolType,
    collateralId: req.collateralId,
    collateralValueIn: valueIn(req, basis.valuation),
    durationSeconds: req.durationSeconds,
    nowSeconds: basis.nowSeconds,
    facts: basis.facts,
    ...(req.amount !== undefined ? { amount: req.amount } : {}),
    ...(req.currency !== undefined ? { currency: req.currency } : {}),
    ...(req.pool !== undefined ? { pool: req.pool } : {}),
    ...(req.excludePool !== undefined ? { excludePool: req.excludePool } : {}),
    ...(req.borrower !== undefined ? { borrower: req.borrower } : {}),
    ...(basis.whitelists ? { whitelists: basis.whitelists } : {}),
    ...(req.extending ? { extending: req.extending } : {}),
    ...(req.mortgagePrice !== undefined ? { mortgagePrice: req.mortgagePrice } : {}),
    // TakeLoan pulls delegated liquidity back from the lending venue; Extend, MarginSwap and mortgages cannot
    canPullDelegated:
      req.extending === undefined &&
      req.margin !== true &&
      req.excludePool === undefined &&
      req.mortgagePrice === undefined,
  };
}

/**
 * The best pool for a request decided on `basis` (synchronous: the reads are in the basis). Throws 422 naming
 * why no pool can lend.
 */
export function decideQuote(tx: TxContext, basis: QuoteBasis, req: QuoteRequest): QuoteResult {
  const { best, offers } = decideOffers(basis, req);
  return {
    offer: best,
    offers,
    valuation: basis.valuation,
    quote: toQuoteJson(tx, best, basis.valuation, req, basis.nowSeconds),
  };
}

/** decideQuote's offers without the quote answer (a builder's first pick, decided again on fresh state). */
function decideOffers(basis: QuoteBasis, req: QuoteRequest): { best: PoolOffer; offers: PoolOffer[] } {
  // no quote on a price the valuation service cannot vouch for (2010, naming the collateral or currency)
  const refused =
    basis.valuation.refusal(req.collateralId) ??
    (req.currency === undefined ? null : basis.valuation.refusal(req.currency));
  if (refused !== null) throw refused;
  const { offers, refusals } = findPoolOffers(askOf(req, basis), basis.snapshot, basis.valuation);
  const best = offers[0];
  if (best === undefined) {
    if (req.pool !== undefined && refusals.length === 0)
      throw badRequest(`unknown ${req.poolType} ${req.pool} for this collateral and currency`);
    throw offerRefused(refusals, req.collateralId);
  }
  return { best, offers };
}

/** The offer of one pool for a request on `basis`, or null when it does not lend (the rule-book's answer). */
export function offerOfPool(basis: QuoteBasis, req: QuoteRequest & { pool: string }): PoolOffer | null {
  const account = basis.snapshot.pools.get(req.pool);
  if (account === undefined) return null;
  const decided = evaluatePoolOffer(askOf(req, basis), req.pool, account, basis.snapshot, basis.valuation);
  return "refusal" in decided ? null : decided;
}

/**
 * Finds the best pool for a request from the cached pools/banks snapshot and prices (borrower facts and
 * whitelists are read only when a borrower is given). Throws 422 naming why no pool can lend.
 */
export async function quoteLoan(tx: TxContext, req: QuoteRequest, chainNow?: number): Promise<QuoteResult> {
  return decideQuote(tx, await loadQuoteBasis(tx, req, chainNow), req);
}

/**
 * A builder's quote: the best pool (or the one asked for) chosen on the cached snapshot, then decided again on
 * that pool's fresh state; prices, time and borrower facts are read once for both.
 */
export async function quoteLoanFresh(tx: TxContext, req: QuoteRequest): Promise<QuoteResult> {
  if (req.pool !== undefined) return quoteLoan(tx, req);
  const { basis, pool } = await pickBuilderPool(tx, req);
  return decideQuote(tx, await freshenQuoteBasis(tx, basis, { ...req, pool }), { ...req, pool });
}

/**
 * How long before a refused pick the read it is made again on may have begun: short enough that the read follows the
 * user's own write (confirmed before their next click), long enough that a burst of refused builds shares one read
 * (at most ten reads a second however many builds are refused).
 */
const REFUSED_PICK_MAX_AGE_MS = 100;

/**
 * The best pool on the cached snapshot; when no pool can lend there, the pick is made once more on pools and banks
 * read now: the cached snapshot may predate the user's own write (a repay that just gave a pool its liquidity
 * back), and a builder must not refuse on it.
 */
async function pickBuilderPool(
  tx: TxContext,
  req: QuoteRequest,
): Promise<{ basis: QuoteBasis; pool: string }> {
  const basis = await loadQuoteBasis(tx, req);
  const cachedPick = findPoolOffers(askOf(req, basis), basis.snapshot, basis.valuation).offers[0];
  if (cachedPick !== undefined) return { basis, pool: cachedPick.pool };
  const recent = await loadQuoteBasis(tx, req, basis.nowSeconds, () =>
    tx.state.recentSnapshot(REFUSED_PICK_MAX_AGE_MS),
  );
  return { basis: recent, pool: decideOffers(recent, req).best.pool };
}

/** A micro-USD figure as a display number of USD. */
function microUsdToNumber(microUsd: bigint): number {
  return Number(microUsd) / 1_000_000;
}

function toQuoteJson(
  tx: TxContext,
  offer: PoolOffer,
  valuation: TxValuation,
  req: QuoteRequest,
  now?: number,
): QuoteJson {
  const currency = offer.account.currencyMint;
  const terms = offer.offer;
  const price = valuation.priceMicroUsd(currency);
  const usd = (amount: bigint) =>
    price === undefined
      ? undefined
      : microUsdToNumber(computeAmountMicroUsd(amount, price, valuation.decimals(currency)));
  const bank = offer.bank;
  const c = offer.account.conditions;
  const json: QuoteJson = {
    amount: terms.amount.toString(),
    duration: Number(terms.durationSeconds),
    interest: terms.interest.toString(),
    cisternFees: terms.protocolFee.toString(),
    apr: terms.aprBps,
    currency,
    bank: offer.bankAddress,
    authorization: tx.oracle.address,
    pool: offer.pool,
    poolData: {
      borrowedLiquidity: (bank.totalLiquidity - bank.availableLiquidity - bank.delegatedLiquidity).toString(),
      totalLiquidity: bank.totalLiquidity.toString(),
      availableLiquidity: bank.availableLiquidity.toString(),
      currency,
      conditions: {
        isEnabled: c.isEnabled,
        minAge: c.minAgeSeconds.toString(),
        minLoan: c.minLoanCount.toString(),
        minVolume: c.minVolumeMicroUsd.toString(),
        whitelistEnabled: c.whitelistEnabled,
      },
    },
    requiredRepayment: terms.owedAtExpiry.toString(),
    netBorrowAmount: terms.amount.toString(),
    maxBorrowAmount: terms.maxAmount.toString(),
    minBorrowAmount: terms.minAmount.toString(),
    collateralValue: offer.collateralValue.toString(),
    expiresAt: Number(terms.expiresAt),
    graceSeconds: Number(terms.graceSeconds),
    liquidatableAfter: Number(terms.liquidatableAfter),
  };
  const amountInUsd = usd(terms.amount);
  if (amountInUsd !== undefined) {
    json.amountInUsd = amountInUsd;
    json.interestInUsd = usd(terms.interest)!;
    json.cisternFeesInUsd = usd(terms.protocolFee)!;
  }
  if (req.extending !== undefined && now !== undefined) {
    const old = req.extending;
    const owed = computeOwedInterest({
      aprBps: old.aprBps,
      principal: old.principal,
      durationSeconds: old.durationSeconds,
      createdAt: old.createdAt,
      now,
    });
    json.accruedInterestDue = owed.toString();
    // Netted settlement: the borrower pays the owed interest and any principal decrease, receives any increase.
    json.repaymentDue = (
      owed + (old.principal > offer.amount ? old.principal - offer.amount : 0n)
    ).toString();
    json.netBorrowAmount = (offer.amount > old.principal ? offer.amount - old.principal : 0n).toString();
  }
  return json;
}
