import { computeLoanQuote, computeOwedInterest } from "@cistern/protocol";
import type { LoanAccount, PoolType } from "@cistern/sdk";
import { getBorrowerFacts } from "../oracle/borrower-facts.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { readWhitelists } from "./collateral.ts";
import { findPoolOffers, type LoanAsk, type PoolOffer } from "./pool-selection.ts";
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
  collateralValue: string;
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

/** Collateral value function of a request. */
function valueIn(req: QuoteRequest, valuation: TxValuation): (currency: string) => bigint | null {
  if (req.poolType === "nft-pool") return (currency) => valuation.nftValue(req.collateralId, currency);
  return (currency) => valuation.convert(req.collateralAmount, req.collateralId, currency);
}

/**
 * Finds the best pool for a request from the cached pools/banks snapshot and prices (borrower facts and
 * whitelists are read only when a borrower is given). Throws 422 naming why no pool can lend.
 */
export async function quoteLoan(tx: TxContext, req: QuoteRequest, now?: number): Promise<QuoteResult> {
  const [snapshot, valuation] = await Promise.all([tx.state.snapshot(), loadTxValuation(tx.app)]);
  let facts = null;
  let whitelists: Map<string, Set<string>> | undefined;
  if (req.borrower !== undefined) {
    const relevant = [...snapshot.pools.values()].filter((p) => p.poolType === req.poolType);
    const tables = relevant
      .filter((p) => p.conditions.whitelistEnabled && p.conditions.whitelist)
      .map((p) => p.conditions.whitelist!);
    const needFacts = relevant.some((p) => p.conditions.isEnabled);
    [facts, whitelists] = await Promise.all([
      needFacts ? getBorrowerFacts(tx, req.borrower, valuation) : Promise.resolve(null),
      readWhitelists(tx, [...new Set(tables)]),
    ]);
  }
  const ask: LoanAsk = {
    poolType: req.poolType,
    collateralId: req.collateralId,
    collateralValueIn: valueIn(req, valuation),
    durationSeconds: req.durationSeconds,
    facts,
    ...(req.amount !== undefined ? { amount: req.amount } : {}),
    ...(req.currency !== undefined ? { currency: req.currency } : {}),
    ...(req.pool !== undefined ? { pool: req.pool } : {}),
    ...(req.borrower !== undefined ? { borrower: req.borrower } : {}),
    ...(whitelists ? { whitelists } : {}),
    ...(req.extending ? { releasedPrincipal: req.extending.principal } : {}),
  };
  const { offers, refusals } = findPoolOffers(ask, snapshot, valuation);
  const best = offers[0];
  if (best === undefined) {
    if (req.pool !== undefined && refusals.length === 0)
      throw badRequest(`unknown ${req.poolType} ${req.pool} for this collateral and currency`);
    const why = refusals
      .slice(0, 5)
      .map((r) => `${r.pool}: ${r.reason}`)
      .join("; ");
    throw unprocessable(
      `No pool can lend against ${req.collateralId} on these terms${why ? ` (${why})` : ""}`,
    );
  }
  return { offer: best, offers, valuation, quote: toQuoteJson(tx, best, valuation, req, now) };
}

function toQuoteJson(
  tx: TxContext,
  offer: PoolOffer,
  valuation: TxValuation,
  req: QuoteRequest,
  now?: number,
): QuoteJson {
  const currency = offer.account.currencyMint;
  const priceUsd = valuation.priceText(currency);
  const q = computeLoanQuote({
    amount: offer.amount,
    durationSeconds: req.durationSeconds,
    aprBps: offer.account.loanAprBps,
    ...(priceUsd !== undefined ? { decimals: valuation.decimals(currency), priceUsd } : {}),
  });
  const bank = offer.bank;
  const c = offer.account.conditions;
  const json: QuoteJson = {
    amount: q.amount.toString(),
    duration: q.duration,
    interest: q.interest.toString(),
    cisternFees: q.cisternFees.toString(),
    apr: q.apr,
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
    requiredRepayment: q.requiredRepayment.toString(),
    netBorrowAmount: q.netBorrowAmount.toString(),
    maxBorrowAmount: offer.maxBorrowAmount.toString(),
    collateralValue: offer.collateralValue.toString(),
    ...(q.amountInUsd !== undefined ? { amountInUsd: q.amountInUsd } : {}),
    ...(q.interestInUsd !== undefined ? { interestInUsd: q.interestInUsd } : {}),
    ...(q.cisternFeesInUsd !== undefined ? { cisternFeesInUsd: q.cisternFeesInUsd } : {}),
  };
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
