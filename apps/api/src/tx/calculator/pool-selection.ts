import {
  bigintMax,
  bigintMin,
  computeExposureCapacity,
  computeMaxBorrowAmount,
  computeTotalInterest,
  floorDiv,
  MIN_LOAN_DURATION_SECONDS,
} from "@cistern/protocol";
import type { BankAccount, PoolAccount, PoolCollection, PoolType } from "@cistern/sdk";
import type { LendingSnapshot } from "../chain/lending-state.ts";
import type { BorrowerFacts } from "../oracle/borrower-facts.ts";
import type { TxValuation } from "./valuation.ts";

/** What a borrower asks for. */
export interface LoanAsk {
  poolType: PoolType;
  /** nft: collection id; defi: collateral mint. */
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
  /** Borrower facts for pools with conditions (null: unknown, such pools are skipped). */
  facts: BorrowerFacts | null;
  /** Whitelisted borrowers by whitelist table (pools with a whitelist are skipped when the table is missing). */
  whitelists?: ReadonlyMap<string, ReadonlySet<string>>;
  borrower?: string;
  /** Principal released by the loan being extended (extend only): counts as free exposure and liquidity. */
  releasedPrincipal?: bigint;
}

/** A pool that can lend, with the terms it gives. */
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
}

/** Why a pool cannot lend (for the error message when none can). */
export interface PoolRefusal {
  pool: string;
  reason: string;
}

function check(
  ask: LoanAsk,
  pool: string,
  account: PoolAccount,
  snapshot: LendingSnapshot,
  valuation: TxValuation,
): PoolOffer | PoolRefusal {
  const refuse = (reason: string): PoolRefusal => ({ pool, reason });
  if (account.status !== "Open") return refuse("pool is frozen");
  const entry = account.collections.find((c) => c.id === ask.collateralId);
  if (entry === undefined) return refuse("collateral not accepted");
  const bank = snapshot.banks.get(account.bank);
  if (bank === undefined) return refuse("bank not found");
  if (
    ask.durationSeconds < MIN_LOAN_DURATION_SECONDS ||
    BigInt(ask.durationSeconds) > account.maxDurationSeconds
  )
    return refuse(`duration must be ${MIN_LOAN_DURATION_SECONDS}..${account.maxDurationSeconds} seconds`);
  const c = account.conditions;
  if (c.isEnabled) {
    if (ask.facts === null) return refuse("pool has borrower conditions; give the borrower");
    if (ask.facts.walletAgeSeconds < c.minAgeSeconds)
      return refuse("wallet younger than the pool's minimum age");
    if (ask.facts.pastLoans < c.minLoanCount) return refuse("fewer past loans than the pool requires");
    if (ask.facts.volumeMicroUsd < c.minVolumeMicroUsd) return refuse("volume below the pool's minimum");
  }
  if (c.whitelistEnabled) {
    const members = c.whitelist === null ? undefined : ask.whitelists?.get(c.whitelist);
    if (members === undefined || ask.borrower === undefined || !members.has(ask.borrower))
      return refuse("borrower is not on the pool's whitelist");
  }
  const collateralValue = ask.collateralValueIn(account.currencyMint);
  if (collateralValue === null || collateralValue === 0n)
    return refuse("collateral or currency has no price");
  const price = valuation.priceMicroUsd(account.currencyMint);
  if (price === undefined || price === 0n) return refuse("currency has no price");
  const scale = 10n ** BigInt(valuation.decimals(account.currencyMint));
  const released = ask.releasedPrincipal ?? 0n;
  const byLtv = computeMaxBorrowAmount(collateralValue, entry.ltvBps);
  // The snapshot may predate the loan being extended: never release more than is recorded.
  const byExposure = computeExposureCapacity(
    bank.totalLiquidity,
    entry.exposureBps,
    bigintMax(0n, entry.borrowedAmount - released),
  );
  const byLiquidity = bank.availableLiquidity + released;
  const byUsd = floorDiv(account.maxAmountMicroUsd * scale, price);
  const maxBorrowAmount = bigintMin(bigintMin(byLtv, byExposure), bigintMin(byLiquidity, byUsd));
  const amount = ask.amount ?? maxBorrowAmount;
  if (amount <= 0n) return refuse("nothing can be borrowed");
  if (amount > byLtv) return refuse(`amount above the LTV limit ${byLtv}`);
  if (amount > byExposure) return refuse(`amount above the exposure limit ${byExposure}`);
  if (amount > byLiquidity) return refuse(`amount above the available liquidity ${byLiquidity}`);
  if (amount > byUsd) return refuse("amount above the pool's maximum USD amount");
  if (floorDiv(amount * price, scale) < account.minAmountMicroUsd)
    return refuse("amount below the pool's minimum USD amount");
  const interest = computeTotalInterest({
    aprBps: account.loanAprBps,
    principal: amount,
    durationSeconds: ask.durationSeconds,
  });
  return {
    pool,
    account,
    bankAddress: account.bank,
    bank,
    entry,
    collateralValue,
    maxBorrowAmount,
    amount,
    interest,
  };
}

/**
 * Every pool's answer to `ask`: offers sorted best first (lowest interest for the amount, i.e. lowest
 * APR; then the largest maximum; then the address for a stable order) and the refusals.
 */
export function findPoolOffers(
  ask: LoanAsk,
  snapshot: LendingSnapshot,
  valuation: TxValuation,
): { offers: PoolOffer[]; refusals: PoolRefusal[] } {
  const offers: PoolOffer[] = [];
  const refusals: PoolRefusal[] = [];
  for (const [pool, account] of snapshot.pools) {
    if (account.poolType !== ask.poolType) continue;
    if (ask.pool !== undefined && pool !== ask.pool) continue;
    if (ask.currency !== undefined && account.currencyMint !== ask.currency) continue;
    const r = check(ask, pool, account, snapshot, valuation);
    if ("account" in r) offers.push(r);
    else refusals.push(r);
  }
  offers.sort((a, b) => {
    if (a.account.loanAprBps !== b.account.loanAprBps) return a.account.loanAprBps - b.account.loanAprBps;
    if (a.maxBorrowAmount !== b.maxBorrowAmount) return a.maxBorrowAmount > b.maxBorrowAmount ? -1 : 1;
    return a.pool < b.pool ? -1 : 1;
  });
  return { offers, refusals };
}
