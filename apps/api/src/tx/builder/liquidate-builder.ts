import { computeGraceSeconds, isLiquidatable } from "@cistern/protocol";
import {
  address,
  findEscrowPda,
  findVaultPda,
  getLiquidateInstruction,
  getLiquidateSellInstruction,
  type LoanAccount,
  type NftCustody,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { toKitInstruction } from "../../venues/swap/swap-venue.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, loanNotOngoing } from "../tx-errors.ts";
import { owedAt } from "./loan-builder.ts";
import { loanSaleToBid } from "./loan-sale.ts";
import { readLoanCustody, SOLD_THROUGH_MARKET } from "./nft-custody.ts";
import type { BuildPlan } from "./route-kit.ts";
import { createAssociatedTokenIdempotent, findAssociatedTokenAddress } from "./wire-instructions.ts";

/** Liquidate request after parsing: the loan and the wallet that signs and pays (anyone). */
export interface LiquidateInput {
  loan: string;
  payer: string;
  /** Hand the collateral to the pool owner even in an auto-sell pool (the fallback when a sale fails). */
  classic?: boolean;
  /** Collection bids not to sell into (the keeper's retry after a sale into one of them did not land). */
  skipBids?: readonly string[];
}

/** Slippage accepted when an auto-sell liquidation sells the collateral, basis points. */
export const AUTO_SELL_SLIPPAGE_BPS = 100;

/**
 * How far past the chain's clock a sale must still cover what is owed, seconds. A built liquidation lands within
 * its blockhash's lifetime (about 60 to 90 s on a cluster) or not at all, and the owed interest steps up by the
 * hour (protocol rules), so a sale is chosen only when it covers principal + interest owed two minutes from now.
 */
export const SALE_MARGIN_SECONDS = 120;

/**
 * Liquidate: for an Ongoing loan past expiry + grace (checked against the cluster clock), creates the pool
 * owner's collateral token account when missing (the payer pays its rent) and moves the collateral there.
 * The payer receives the escrow's rent. Refuses (400) unknown loans, loans of the other kind, loans that
 * are not Ongoing and loans still inside their term or grace period. In an auto-sell pool it sells the collateral
 * into the bank instead (LiquidateSell) when the sale covers principal + interest owed (the program refuses less):
 * tokens through the swap venue (its minimum after slippage), an NFT to the best of the NFT market's collection
 * bids that covers it, read afresh for each liquidation (a sale just before, e.g. in the same keeper round, may have
 * filled the best one); otherwise, or with `classic`, it liquidates the classic way.
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
  if (loan.status !== "Ongoing") {
    const pool = await tx.state.getPool(loan.pool);
    throw loanNotOngoing(loan, pool?.owner === input.payer ? "lender" : undefined);
  }
  if (!isLiquidatable({ createdAt: loan.createdAt, durationSeconds: loan.durationSeconds, now })) {
    const liquidatableAfter = loan.expiredAt + BigInt(computeGraceSeconds(loan.durationSeconds));
    throw badRequest(
      `loan ${input.loan} cannot be liquidated yet: it expires at ${loan.expiredAt} and its grace period ends at ${liquidatableAfter} (chain time now ${now})`,
    );
  }
  const pool = await tx.state.getPool(loan.pool);
  if (pool === null) throw badRequest(`pool ${loan.pool} of loan ${input.loan} no longer exists`);
  const custody = await readLoanCustody(tx, loan);
  // a Core asset or a compressed NFT goes to the pool owner's wallet itself
  const ownerAta =
    custody.standard === "CoreNft" || custody.standard === "CompressedNft"
      ? pool.owner
      : await findAssociatedTokenAddress(pool.owner, loan.collateralMint);
  const ownerAtaIx = createAssociatedTokenIdempotent(payer, ownerAta, pool.owner, loan.collateralMint);
  const common = {
    loan: input.loan,
    pool: loan.pool,
    poolOwner: pool.owner,
    collateralMint: loan.collateralMint,
    collateralAmount: loan.collateralAmount.toString(),
    principal: loan.principal.toString(),
    loanType: isDefi ? "Token" : custody.standard,
  };
  // LiquidateSell sells every standard's collateral (a pNFT: the loan PDA moves it out of the borrower's account into
  // its own, or a filled request's loan PDA already holds it there)
  if (pool.flags.autoSell && input.classic !== true && SOLD_THROUGH_MARKET.includes(custody.standard)) {
    const due = loan.principal + owedAt(loan, now + SALE_MARGIN_SECONDS);
    const sell = await (isDefi
      ? autoSellSwap(tx, loan, input.loan, due)
      : autoSellToBid(tx, loan, input.loan, due, payer, input.skipBids ?? [], custody)
    ).catch(() => null);
    if (sell !== null) {
      const ix = await getLiquidateSellInstruction({
        programAddress: tx.programId,
        liquidator: payer,
        pool: loan.pool,
        bank: loan.bank,
        loan: address(input.loan),
        poolOwnerCollateralTokenAccount: ownerAta,
        swap: sell.swap,
        custody,
        borrower: loan.borrower,
      });
      return {
        feePayer: payer,
        // what a classic sale leaves goes to the pool owner's token account; a pNFT, a Core asset or a leaf leaves whole
        groups: [[...(custody.standard === "Nft" ? [ownerAtaIx] : []), ...sell.setup, ix]],
        metadata: {
          ...common,
          autoSell: true,
          expectedProceeds: sell.expectedProceeds,
          owedAtSale: due.toString(),
          ...(sell.bid === undefined ? {} : { bid: sell.bid }),
        },
      };
    }
  }
  const ix = await getLiquidateInstruction({
    programAddress: tx.programId,
    liquidator: payer,
    pool: loan.pool,
    bank: loan.bank,
    loan: address(input.loan),
    poolOwnerCollateralTokenAccount: ownerAta,
    custody: { custody, borrower: loan.borrower, poolOwner: pool.owner },
  });
  return {
    feePayer: payer,
    // a programmable NFT's destination is created by Token Metadata's transfer (with its token record); a Core
    // asset needs none
    groups: [custody.standard === "Nft" ? [ownerAtaIx, ix] : [ix]],
    metadata: { ...common, autoSell: false },
  };
}

/**
 * The venue swap of an auto-sell liquidation (all the collateral, from the escrow into the bank's vault), or
 * null when the venue's minimum after slippage would not pay principal + interest owed (then: classic).
 */
async function autoSellSwap(tx: TxContext, loan: LoanAccount, loanAddress: string, due: bigint) {
  const quote = await tx.swapVenue.quote({
    inputMint: loan.collateralMint,
    outputMint: loan.currencyMint,
    amount: Number(loan.collateralAmount),
    slippageBps: AUTO_SELL_SLIPPAGE_BPS,
  });
  if (BigInt(quote.otherAmountThreshold) < due) return null;
  const [escrow] = await findEscrowPda(tx.programId, address(loanAddress));
  const [vault] = await findVaultPda(tx.programId, loan.bank);
  const swap = await tx.swapVenue.swapInstructions({
    quoteResponse: quote,
    userPublicKey: loanAddress,
    sourceTokenAccount: escrow,
    destinationTokenAccount: vault,
  });
  return {
    swap: toKitInstruction(swap.swapInstruction),
    setup: [],
    expectedProceeds: quote.outAmount,
    bid: undefined,
  };
}

/**
 * The NFT market sale of an auto-sell liquidation: the loan's NFT (in its escrow; a Core asset or a leaf the loan PDA
 * owns; a pNFT the loan PDA moves from the borrower's account into its own, or a filled request's the loan PDA holds
 * there already, which the market sells from) into
 * the best collection bid (of the loan's collection, in its currency) that pays at least `due`, paid into the bank's
 * vault. The market is read now, not
 * from a cached answer: a bid filled a moment ago (an earlier liquidation of the same round) is gone, and the next
 * one is taken. A bid whose sale cannot be built (gone between the read and the build) gives way to the next.
 * Null when no bid covers `due` (then: classic, the pool owner gets the NFT).
 */
async function autoSellToBid(
  tx: TxContext,
  loan: LoanAccount,
  loanAddress: string,
  due: bigint,
  payer: Address,
  skipBids: readonly string[],
  custody: NftCustody,
) {
  const market = await tx.nftMarket.collection({
    collection: loan.collection,
    currencyMint: loan.currencyMint,
    fresh: true,
  });
  // best first (the venue's order); the bank keeps all the proceeds, so the highest covering bid is the best
  const covering = market.bids.filter((b) => b.price >= due && !skipBids.includes(b.bid));
  const [vault] = await findVaultPda(tx.programId, loan.bank);
  for (const bid of covering) {
    const sale = await loanSaleToBid(tx, {
      bid,
      loan: address(loanAddress),
      collateralMint: loan.collateralMint,
      custody,
      proceeds: vault,
      minPrice: bid.price,
      payer,
    }).catch(() => null);
    if (sale !== null)
      return { swap: sale.sale, setup: sale.setup, expectedProceeds: bid.price.toString(), bid: bid.bid };
  }
  return null;
}
