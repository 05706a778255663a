import type { MarketSellQuote } from "@cistern/protocol";
import { PROGRAM_ERROR_CODE } from "@cistern/protocol";
import { address, findEscrowPda, getMarketSellInstruction } from "@cistern/sdk";
import { DEFAULT_SLIPPAGE_BPS, toKitInstruction } from "../../venues/swap/swap-venue.ts";
import { loadTxValuation } from "../calculator/valuation.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { currencyFlow } from "./currency-flows.ts";
import { owedAt, REPAY_MARGIN_SECONDS, requireNotOracle } from "./loan-builder.ts";
import { requireOngoingLoan } from "./ongoing-loan.ts";
import type { BuildPlan } from "./route-kit.ts";
import { createAssociatedTokenIdempotent, findAssociatedTokenAddress } from "./wire-instructions.ts";

/** Market sell request after parsing. */
export interface MarketSellInput {
  borrower: string;
  loan: string;
  /** Collateral to sell, base units (all of it when absent). */
  amount?: bigint;
  slippageBps?: number;
  /** The quote route's read: the loan as read at most the state's snapshot age ago (a build always reads fresh). */
  recentLoan?: boolean;
}

/**
 * Quotes the sale of a token loan's collateral (all, or `amount`) on the swap venue. Refuses (422, the
 * program's SaleShort code) when the least it may bring after slippage would not cover principal + the interest
 * owed by the time it lands (two hours of margin).
 */
export async function quoteMarketSell(tx: TxContext, input: MarketSellInput) {
  requireNotOracle(tx, "borrower", input.borrower);
  const borrower = address(input.borrower);
  // a quote reads the loan as read at most the snapshot's age ago; the build (marketSellPlan) reads it fresh
  const loan = await requireOngoingLoan(
    tx,
    input.loan,
    true,
    false,
    input.recentLoan === true ? "recent" : "fresh",
  );
  if (loan.borrower !== borrower)
    throw badRequest(`loan ${input.loan} belongs to ${loan.borrower}, not ${borrower}`);
  const amount = input.amount ?? loan.collateralAmount;
  if (amount <= 0n || amount > loan.collateralAmount)
    throw badRequest(
      `amount must be between 1 and the ${loan.collateralAmount} base units of collateral the loan holds`,
    );
  const slippageBps = input.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  const [now, valuation] = await Promise.all([tx.clock.recentUnixTime(), loadTxValuation(tx.app)]);
  const venueQuote = await tx.swapVenue.quote({
    inputMint: loan.collateralMint,
    outputMint: loan.currencyMint,
    amount: Number(amount),
    slippageBps,
  });
  const due = loan.principal + owedAt(loan, now + REPAY_MARGIN_SECONDS);
  const owedNow = loan.principal + owedAt(loan, now);
  const minimum = BigInt(venueQuote.otherAmountThreshold);
  const expected = BigInt(venueQuote.outAmount);
  if (minimum < due) {
    const error = unprocessable(
      `The sale would bring at least ${minimum} base units after ${slippageBps} bps slippage, less than the ${due} owed`,
    );
    throw Object.assign(error, {
      refusal: {
        code: PROGRAM_ERROR_CODE.SaleShort,
        name: "SaleShort",
        message: "the sale's proceeds would not cover principal + owed interest",
        params: { minimumProceeds: minimum.toString(), owed: due.toString(), currency: loan.currencyMint },
      },
    });
  }
  const quote: MarketSellQuote = {
    loan: input.loan,
    venue: tx.swapVenue.name,
    currency: loan.currencyMint,
    collateralMint: loan.collateralMint,
    collateralDecimals: valuation.decimals(loan.collateralMint),
    collateralSymbol: valuation.name(loan.collateralMint) ?? loan.collateralMint,
    collateralSold: amount.toString(),
    collateralReturned: (loan.collateralAmount - amount).toString(),
    expectedProceeds: expected.toString(),
    minimumProceeds: minimum.toString(),
    slippageBps,
    priceImpactPct: venueQuote.priceImpactPct,
    owedNow: owedNow.toString(),
    borrowerKeeps: (expected - owedNow).toString(),
    borrowerKeepsAtLeast: (minimum - due).toString(),
  };
  return { loan, borrower, venueQuote, quote };
}

/**
 * MarketSell: the quote above, then the venue's swap (input: the loan's escrow, signed by the loan; output: the
 * borrower's currency account) inside the program's MarketSell. The borrower keeps what the sale brings above
 * what is owed, and unsold collateral. SOL proceeds are unwrapped after.
 */
export async function marketSellPlan(tx: TxContext, input: MarketSellInput): Promise<BuildPlan> {
  const [{ loan, borrower, venueQuote, quote }, config] = await Promise.all([
    quoteMarketSell(tx, { ...input, recentLoan: false }),
    tx.state.getConfig(),
  ]);
  if (config === null) throw unprocessable("The lending program is not initialised");
  const [escrow] = await findEscrowPda(tx.programId, address(input.loan));
  const flow = await currencyFlow(borrower, loan.currencyMint);
  const swap = await tx.swapVenue.swapInstructions({
    quoteResponse: venueQuote,
    userPublicKey: input.loan,
    sourceTokenAccount: escrow,
    destinationTokenAccount: flow.tokenAccount,
  });
  const collateralAta = await findAssociatedTokenAddress(borrower, loan.collateralMint);
  const ix = await getMarketSellInstruction({
    programAddress: tx.programId,
    borrower,
    pool: loan.pool,
    bank: loan.bank,
    loan: address(input.loan),
    borrowerCollateralTokenAccount: collateralAta,
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    swap: toKitInstruction(swap.swapInstruction),
  });
  return {
    feePayer: borrower,
    groups: [
      [
        ...flow.before,
        createAssociatedTokenIdempotent(borrower, collateralAta, borrower, loan.collateralMint),
        ix,
        ...flow.after,
      ],
    ],
    metadata: { loan: input.loan, venue: tx.swapVenue.name, sale: quote },
  };
}
