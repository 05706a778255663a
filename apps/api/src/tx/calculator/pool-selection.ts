import {
  computeGraceSeconds,
  computeOwedInterest,
  evaluateLoanOffer,
  evaluateLoanOfferWithoutPull,
  floorDiv,
  getNewLoanLiquidity,
  type LoanOffer,
  type OfferInput,
  type OfferRefusal,
  PROGRAM_ERROR_CODE,
  PROTOCOL_FEE_BPS,
  rankLoanOffers,
} from "@cistern/protocol";
import type { BankAccount, LoanAccount, PoolAccount, PoolCollection, PoolType } from "@cistern/sdk";
import type { LendingSnapshot } from "../chain/lending-state.ts";
import type { BorrowerFacts } from "../oracle/borrower-facts.ts";
import type { TxValuation } from "./valuation.ts";

/** What a borrower asks for. */
export interface LoanAsk {
  poolType: PoolType;
  /** nft: the NFT's verified collection; defi: collateral mint. */
  collateralId: string;
  /** Value of the pledged collateral in base units of a loan currency (null when it cannot be valued). */
  collateralValueIn(currency: string): bigint | null;
  durationSeconds: number;
  /** Wanted principal; the most the pool allows when absent. */
  amount?: bigint;
  /** Only pools lending this currency. */
  currency?: string;
  /** Only this pool. */
  pool?: string;
  /** Any pool but this one (Refinance: the loan's own pool). */
  excludePool?: string;
  /** Borrower facts for pools with conditions (null: unknown, such pools refuse with ConditionsNotMet). */
  facts: BorrowerFacts | null;
  /** Whitelisted borrowers by whitelist table. */
  whitelists?: ReadonlyMap<string, ReadonlySet<string>>;
  borrower?: string;
  /** The loan being extended: its repayment returns liquidity first and frees its exposure (a filled request's loan
   * holds none). */
  extending?: LoanAccount;
  /** The bank's delegated liquidity counts as available: TakeLoan pulls it back from the lending venue. */
  canPullDelegated?: boolean;
  /** A mortgage of a listing at this price (loan-currency base units): the pool's mortgage terms apply. */
  mortgagePrice?: bigint;
  /** Chain time, epoch seconds. */
  nowSeconds: number;
}

/** A pool that can lend, with the rule-book's terms. */
export interface PoolOffer {
  pool: string;
  account: PoolAccount;
  bankAddress: string;
  bank: BankAccount;
  entry: PoolCollection;
  collateralValue: bigint;
  /** Most this pool lends for this collateral now. */
  maxBorrowAmount: bigint;
  amount: bigint;
  interest: bigint;
  offer: LoanOffer;
}

/** Why a pool cannot lend: the rule-book's refusal (the program's code). */
export interface PoolRefusal {
  pool: string;
  refusal: OfferRefusal;
}

const NO_FACTS: BorrowerFacts = { walletAgeSeconds: 0n, pastLoans: 0n, volumeMicroUsd: 0n };

/** The bank as the new loan sees it: for Extend, after the old loan's principal and lender share return. */
function bankForNewLoan(
  bank: BankAccount,
  ask: LoanAsk,
  feeBps: number,
): { totalLiquidity: bigint; availableLiquidity: bigint } {
  const old = ask.extending;
  if (old === undefined)
    return {
      totalLiquidity: bank.totalLiquidity,
      availableLiquidity: getNewLoanLiquidity(bank, ask.canPullDelegated === true),
    };
  const owed = computeOwedInterest({
    aprBps: old.aprBps,
    principal: old.principal,
    durationSeconds: old.durationSeconds,
    createdAt: old.createdAt,
    now: ask.nowSeconds,
  });
  const share = owed - floorDiv(owed * BigInt(feeBps), 10_000n);
  return {
    totalLiquidity: bank.totalLiquidity + share,
    availableLiquidity: bank.availableLiquidity + old.principal + share,
  };
}

/** The rule-book's input for one pool. */
export function toOfferInput(
  ask: LoanAsk,
  account: PoolAccount,
  bank: BankAccount,
  snapshot: LendingSnapshot,
  valuation: TxValuation,
): OfferInput {
  const currency = account.currencyMint;
  const c = account.conditions;
  const feeBps = snapshot.config?.protocolFeeBps ?? PROTOCOL_FEE_BPS;
  const members = c.whitelist === null ? undefined : ask.whitelists?.get(c.whitelist);
  return {
    protocolPaused: snapshot.config?.paused ?? false,
    pool: {
      poolType: account.poolType,
      isOpen: account.status === "Open",
      loanAprBps: account.loanAprBps,
      maxDurationSeconds: account.maxDurationSeconds,
      minAmountMicroUsd: account.minAmountMicroUsd,
      maxAmountMicroUsd: account.maxAmountMicroUsd,
      conditions: {
        isEnabled: c.isEnabled,
        minAgeSeconds: c.minAgeSeconds,
        minLoanCount: c.minLoanCount,
        minVolumeMicroUsd: c.minVolumeMicroUsd,
        whitelistEnabled: c.whitelistEnabled,
      },
      collections: account.collections,
      isMortgageEnabled: account.flags.mortgage,
      mortgageAprBps: account.mortgageAprBps,
    },
    currencyMint: currency,
    bank: { ...bankForNewLoan(bank, ask, feeBps), decimals: valuation.decimals(currency) },
    collateralId: ask.collateralId,
    collateralValue: ask.collateralValueIn(currency) ?? 0n,
    currencyPriceMicroUsd: valuation.priceMicroUsd(currency) ?? 0n,
    borrower: ask.facts ?? NO_FACTS,
    isWhitelisted: ask.borrower !== undefined && members?.has(ask.borrower) === true,
    durationSeconds: BigInt(ask.durationSeconds),
    ...(ask.amount !== undefined ? { amount: ask.amount } : {}),
    ...(ask.extending
      ? {
          // as the program's Extend: a filled request's loan counts in no collection entry, so it releases none
          releasedPrincipal: ask.extending.kind === "RequestLoan" ? 0n : ask.extending.principal,
          extendedLoanLiquidatableAfter:
            ask.extending.expiredAt + BigInt(computeGraceSeconds(ask.extending.durationSeconds)),
        }
      : {}),
    nowSeconds: BigInt(ask.nowSeconds),
    protocolFeeBps: feeBps,
    ...(ask.mortgagePrice !== undefined ? { mortgagePrice: ask.mortgagePrice } : {}),
  };
}

/** One pool's answer to `ask` (the caller has checked the pool type and the filters): an offer or a refusal. */
export function evaluatePoolOffer(
  ask: LoanAsk,
  pool: string,
  account: PoolAccount,
  snapshot: LendingSnapshot,
  valuation: TxValuation,
): PoolOffer | PoolRefusal {
  const bank = snapshot.banks.get(account.bank);
  const entry = account.collections.find((c) => c.id === ask.collateralId);
  if (bank === undefined || entry === undefined) {
    const name = "CollectionNotInPool";
    return {
      pool,
      refusal: { code: PROGRAM_ERROR_CODE[name], name, params: { collateralId: ask.collateralId } },
    };
  }
  const input = toOfferInput(ask, account, bank, snapshot, valuation);
  // a loan that cannot pull delegated funds back is refused, saying so, when they would have covered it
  const decision =
    ask.canPullDelegated === true
      ? evaluateLoanOffer(input)
      : evaluateLoanOfferWithoutPull(input, bank.delegatedLiquidity);
  if (!decision.ok) return { pool, refusal: decision.refusal };
  const { offer } = decision;
  return {
    pool,
    account,
    bankAddress: account.bank,
    bank,
    entry,
    collateralValue: input.collateralValue,
    maxBorrowAmount: offer.maxAmount,
    amount: offer.amount,
    interest: offer.interest,
    offer,
  };
}

/** The snapshot's pools in address order (kept per snapshot: the order decides ties between equal offers). */
const sortedPools = new WeakMap<LendingSnapshot["pools"], [string, PoolAccount][]>();
function poolsInOrder(snapshot: LendingSnapshot): [string, PoolAccount][] {
  let sorted = sortedPools.get(snapshot.pools);
  if (sorted === undefined) {
    sorted = [...snapshot.pools].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    sortedPools.set(snapshot.pools, sorted);
  }
  return sorted;
}

/**
 * Every pool's answer to `ask`, decided by the rule-book: offers best first (compared in USD at the
 * attested price: the most lent without an amount, the lowest APR with one) and the refusals.
 */
export function findPoolOffers(
  ask: LoanAsk,
  snapshot: LendingSnapshot,
  valuation: TxValuation,
): { offers: PoolOffer[]; refusals: PoolRefusal[] } {
  const offers: PoolOffer[] = [];
  const refusals: PoolRefusal[] = [];
  for (const [pool, account] of poolsInOrder(snapshot)) {
    if (account.poolType !== ask.poolType) continue;
    if (ask.pool !== undefined && pool !== ask.pool) continue;
    if (ask.excludePool !== undefined && pool === ask.excludePool) continue;
    if (ask.currency !== undefined && account.currencyMint !== ask.currency) continue;
    const decided = evaluatePoolOffer(ask, pool, account, snapshot, valuation);
    if ("refusal" in decided) refusals.push(decided);
    else offers.push(decided);
  }
  return { offers: rankLoanOffers(offers, ask.amount === undefined ? "most" : "cheapest"), refusals };
}
