import { computeOwedInterest, computeTotalInterest, SECONDS_PER_DAY } from "@cistern/protocol";
import { address, getRefinanceInstruction, type LoanAccount } from "@cistern/sdk";
import { type QuoteResult, quoteLoan } from "../calculator/quote-service.ts";
import { createAttestation } from "../oracle/attestation.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { currencyFlow } from "./currency-flows.ts";
import { owedAt, REPAY_MARGIN_SECONDS, randomNonce, requireNotOracle } from "./loan-builder.ts";
import { asksRuleSet, readLoanCustody } from "./nft-custody.ts";
import { requireOngoingLoan } from "./ongoing-loan.ts";
import type { BuildPlan } from "./route-kit.ts";
import { NATIVE_MINT } from "./wire-instructions.ts";

/** A cheaper home for a loan: another pool's terms for the same principal until about the same due date. */
export interface RefinanceOffer {
  quote: QuoteResult;
  /** The new loan's duration: the old loan's remaining time in whole days (at least one). */
  durationSeconds: number;
  /** Interest of keeping the loan to its due date (its full-term interest), base units. */
  keepInterest: bigint;
  /** Interest owed on the old loan now (paid off by the refinance), base units. */
  owedNow: bigint;
  /** Interest of the new loan over its term, base units. */
  newInterest: bigint;
  /** keepInterest - owedNow - newInterest: what moving saves (may be negative). */
  saving: bigint;
}

/** The old loan's remaining time in whole days, at least one. */
export function remainingDays(loan: LoanAccount, now: number): number {
  // a clock read a moment before the loan landed must not add a day to it
  const left = Number(loan.expiredAt) - Math.max(now, Number(loan.createdAt));
  return Math.max(1, Math.ceil(left / SECONDS_PER_DAY)) * SECONDS_PER_DAY;
}

/**
 * The best other pool of the loan's currency for the same principal until about the same due date, and what
 * moving there saves against keeping the loan (both on the rule-book's interest). Throws 422 when no other pool
 * can lend.
 */
export async function findRefinanceOffer(
  tx: TxContext,
  loan: LoanAccount,
  borrower: string,
  now: number,
  pool?: string,
): Promise<RefinanceOffer> {
  const durationSeconds = remainingDays(loan, now);
  const quote = await quoteLoan(
    tx,
    {
      poolType: loan.isDefi ? "defi-pool" : "nft-pool",
      collateralId: loan.collection,
      collateralAmount: loan.collateralAmount,
      durationSeconds,
      amount: loan.principal,
      currency: loan.currencyMint,
      borrower,
      excludePool: loan.pool,
      ...(pool !== undefined ? { pool } : {}),
    },
    now,
  );
  const keepInterest = computeTotalInterest({
    aprBps: loan.aprBps,
    principal: loan.principal,
    durationSeconds: loan.durationSeconds,
  });
  const owedNow = computeOwedInterest({
    aprBps: loan.aprBps,
    principal: loan.principal,
    durationSeconds: loan.durationSeconds,
    createdAt: loan.createdAt,
    now,
  });
  const newInterest = quote.offer.interest;
  return {
    quote,
    durationSeconds,
    keepInterest,
    owedNow,
    newInterest,
    saving: keepInterest - owedNow - newInterest,
  };
}

/**
 * Refinance: the loan moves to the best other pool (or `pool`) in one co-signed transaction; the old lender is
 * paid as a repay would pay, the borrower pays the interest owed on the old loan now.
 */
export async function refinancePlan(
  tx: TxContext,
  isDefi: boolean,
  input: { borrower: string; loan: string; pool?: string },
): Promise<BuildPlan> {
  requireNotOracle(tx, "borrower", input.borrower);
  const borrower = address(input.borrower);
  const loan = await requireOngoingLoan(tx, input.loan, isDefi, true);
  if (loan.borrower !== borrower)
    throw badRequest(`loan ${input.loan} belongs to ${loan.borrower}, not ${borrower}`);
  if (input.pool === loan.pool)
    throw badRequest("pool is the loan's own pool: use extend-loan to stay in it");
  const [config, now] = await Promise.all([tx.state.getConfig(), tx.clock.unixTime()]);
  if (config === null) throw unprocessable("The lending program is not initialised");
  const found = await findRefinanceOffer(tx, loan, input.borrower, now, input.pool);
  const { offer, valuation } = found.quote;
  const attestation = await createAttestation(tx, {
    offer,
    collection: loan.collection,
    borrower: input.borrower,
    valuation,
  });
  const currency = loan.currencyMint;
  const flow = await currencyFlow(
    borrower,
    currency,
    currency === NATIVE_MINT ? owedAt(loan, now + REPAY_MARGIN_SECONDS) : 0n,
  );
  const custody = await readLoanCustody(tx, loan);
  const ix = await getRefinanceInstruction({
    programAddress: tx.programId,
    borrower,
    oracle: tx.oracle.address,
    pool: address(offer.pool),
    bank: address(offer.bankAddress),
    oldLoan: address(input.loan),
    oldPool: loan.pool,
    oldBank: loan.bank,
    collateralMint: loan.collateralMint,
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    whitelist: offer.account.conditions.whitelistEnabled ? offer.account.conditions.whitelist : null,
    nonce: randomNonce(),
    principalBaseUnits: offer.amount,
    durationSeconds: BigInt(found.durationSeconds),
    collateralAmountBaseUnits: loan.collateralAmount,
    expectedAprBps: offer.account.loanAprBps,
    attestation,
    // a pNFT or Core loan's custody passes to the new loan (the rule set asked about the new pool's owner)
    custody,
    poolOwner: offer.account.owner,
  });
  return {
    feePayer: borrower,
    groups: [[...flow.before, ix, ...flow.after]],
    needsOracle: true,
    simulate: asksRuleSet(custody),
    metadata: {
      loan: ix.loan,
      oldLoan: input.loan,
      pool: offer.pool,
      saving: found.saving.toString(),
      quote: found.quote.quote,
    },
  };
}
