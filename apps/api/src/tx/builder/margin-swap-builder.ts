import { address, findEscrowPda, findLoanPda, getMarginSwapInstruction } from "@cistern/sdk";
import { DEFAULT_SLIPPAGE_BPS, toKitInstruction } from "../../venues/swap/swap-venue.ts";
import { type QuoteJson, quoteLoan } from "../calculator/quote-service.ts";
import { createAttestation } from "../oracle/attestation.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest } from "../tx-errors.ts";
import { currencyFlow } from "./currency-flows.ts";
import { randomNonce, requireNotOracle } from "./loan-builder.ts";
import type { BuildPlan } from "./route-kit.ts";
import { createAssociatedTokenIdempotent, findAssociatedTokenAddress } from "./wire-instructions.ts";

/** Margin swap request after parsing. */
export interface MarginSwapInput {
  borrower: string;
  /** The token bought and locked as collateral. */
  collateralMint: string;
  /** The loan currency (a pool's currency); taken from `pool` when one is named. */
  currency?: string;
  pool?: string;
  downPayment: bigint;
  /** Principal borrowed, loan currency base units. */
  amount: bigint;
  durationSeconds: number;
  slippageBps?: number;
}

/**
 * MarginSwap: quotes the swap of down payment + principal into the collateral token on the swap venue, has the
 * rule-book decide the loan on the least the swap may deliver after slippage (so the pool's LTV caps the
 * leverage), has the oracle attest that amount, and builds the program's MarginSwap with the venue's swap from
 * the borrower's currency account into the new loan's escrow. SOL down payments are wrapped first and what the
 * swap leaves unwrapped after. Kind NormalCoSigned.
 */
export async function marginSwapPlan(tx: TxContext, input: MarginSwapInput): Promise<BuildPlan> {
  requireNotOracle(tx, "borrower", input.borrower);
  const borrower = address(input.borrower);
  let currency = input.currency;
  if (input.pool !== undefined) {
    const pool = await tx.state.getPool(input.pool);
    if (pool === null) throw badRequest(`unknown pool ${input.pool}`);
    currency = pool.currencyMint;
  }
  if (currency === undefined) throw badRequest("currency or pool is required");
  if (input.downPayment <= 0n) throw badRequest("downPayment must be positive");
  const slippageBps = input.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  const swapQuote = await tx.swapVenue.quote({
    inputMint: currency,
    outputMint: input.collateralMint,
    amount: Number(input.downPayment + input.amount),
    slippageBps,
  });
  const minimum = BigInt(swapQuote.otherAmountThreshold);
  const request = {
    margin: true,
    poolType: "defi-pool" as const,
    collateralId: input.collateralMint,
    collateralAmount: minimum,
    durationSeconds: input.durationSeconds,
    amount: input.amount,
    currency,
    borrower: input.borrower,
    ...(input.pool !== undefined ? { pool: input.pool } : {}),
  };
  const pool = input.pool ?? (await quoteLoan(tx, request)).offer.pool;
  const { offer, valuation, quote } = await quoteLoan(tx, { ...request, pool });
  const attestation = await createAttestation(tx, {
    offer,
    collection: input.collateralMint,
    borrower: input.borrower,
    valuation,
  });
  const nonce = randomNonce();
  const [loan] = await findLoanPda(tx.programId, address(offer.pool), borrower, nonce);
  const [escrow] = await findEscrowPda(tx.programId, loan);
  const flow = await currencyFlow(borrower, address(currency), input.downPayment);
  const swap = await tx.swapVenue.swapInstructions({
    quoteResponse: swapQuote,
    userPublicKey: borrower,
    sourceTokenAccount: flow.tokenAccount,
    destinationTokenAccount: escrow,
  });
  const ix = await getMarginSwapInstruction({
    programAddress: tx.programId,
    borrower,
    oracle: tx.oracle.address,
    pool: address(offer.pool),
    bank: address(offer.bankAddress),
    collateralMint: address(input.collateralMint),
    borrowerCurrencyTokenAccount: flow.tokenAccount,
    downPaymentBaseUnits: input.downPayment,
    nonce,
    principalBaseUnits: offer.amount,
    durationSeconds: BigInt(input.durationSeconds),
    collateralAmountBaseUnits: minimum,
    expectedAprBps: offer.account.loanAprBps,
    attestation,
    swap: toKitInstruction(swap.swapInstruction),
  });
  const collateralAta = await findAssociatedTokenAddress(borrower, address(input.collateralMint));
  return {
    feePayer: borrower,
    groups: [
      [
        ...flow.before,
        createAssociatedTokenIdempotent(borrower, collateralAta, borrower, address(input.collateralMint)),
        ix,
        ...flow.after,
      ],
    ],
    needsOracle: true,
    metadata: {
      loan: ix.loan,
      pool: offer.pool,
      quote: quote satisfies QuoteJson,
      margin: {
        downPayment: input.downPayment.toString(),
        principal: offer.amount.toString(),
        leverage: Number(((input.downPayment + offer.amount) * 100n) / input.downPayment) / 100,
        expectedCollateral: swapQuote.outAmount,
        minimumCollateral: minimum.toString(),
        priceImpactPct: swapQuote.priceImpactPct,
        slippageBps,
      },
    },
  };
}
