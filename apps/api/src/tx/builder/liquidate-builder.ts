import { computeGraceSeconds, isLiquidatable } from "@cistern/protocol";
import { getLiquidateInstruction } from "@cistern/sdk";
import { address } from "@solana/kit";
import type { TxContext } from "../tx-context.ts";
import { badRequest } from "../tx-errors.ts";
import type { BuildPlan } from "./route-kit.ts";
import { createAssociatedTokenIdempotent, findAssociatedTokenAddress } from "./wire-instructions.ts";

/** Liquidate request after parsing: the loan and the wallet that signs and pays (anyone). */
export interface LiquidateInput {
  loan: string;
  payer: string;
}

/**
 * Liquidate: for an Ongoing loan past expiry + grace (checked against the cluster clock), creates the pool
 * owner's collateral token account when missing (the payer pays its rent) and moves the collateral there.
 * The payer receives the escrow's rent. Refuses (400) unknown loans, loans of the other kind, loans that
 * are not Ongoing and loans still inside their term or grace period.
 */
export async function liquidatePlan(
  tx: TxContext,
  isDefi: boolean,
  input: LiquidateInput,
): Promise<BuildPlan> {
  const payer = address(input.payer);
  const [[loan], now] = await Promise.all([tx.state.getLoans([input.loan]), tx.clock.unixTime()]);
  if (!loan) throw badRequest(`unknown loan ${input.loan}`);
  if (loan.isDefi !== isDefi)
    throw badRequest(`loan ${input.loan} is ${loan.isDefi ? "a token" : "an NFT"} loan; use the other route`);
  if (loan.status !== "Ongoing") throw badRequest(`loan ${input.loan} is ${loan.status}, not Ongoing`);
  if (!isLiquidatable({ createdAt: loan.createdAt, durationSeconds: loan.durationSeconds, now })) {
    const liquidatableAfter = loan.expiredAt + BigInt(computeGraceSeconds(loan.durationSeconds));
    throw badRequest(
      `loan ${input.loan} cannot be liquidated yet: it expires at ${loan.expiredAt} and its grace period ends at ${liquidatableAfter} (chain time now ${now})`,
    );
  }
  const pool = await tx.state.getPool(loan.pool);
  if (pool === null) throw badRequest(`pool ${loan.pool} of loan ${input.loan} no longer exists`);
  const ownerAta = await findAssociatedTokenAddress(pool.owner, loan.collateralMint);
  const ix = await getLiquidateInstruction({
    programAddress: tx.programId,
    liquidator: payer,
    pool: loan.pool,
    bank: loan.bank,
    loan: address(input.loan),
    poolOwnerCollateralTokenAccount: ownerAta,
  });
  return {
    feePayer: payer,
    groups: [[createAssociatedTokenIdempotent(payer, ownerAta, pool.owner, loan.collateralMint), ix]],
    metadata: {
      loan: input.loan,
      pool: loan.pool,
      poolOwner: pool.owner,
      collateralMint: loan.collateralMint,
      collateralAmount: loan.collateralAmount.toString(),
      principal: loan.principal.toString(),
    },
  };
}
