import { DEFAULT_SLIPPAGE_BPS } from "../../venues/swap/swap-venue.ts";
import type { TxContext } from "../tx-context.ts";
import { quoteLoan } from "./quote-service.ts";

/** One pool's margin terms for a down payment. */
export interface MarginQuote {
  pool: string;
  currency: string;
  apr: number;
  /** Down payment + principal over down payment, at the largest principal the pool lends. */
  leverage: number;
  /** 1 / (1 - LTV): what the pool's LTV allows at the spot price, before price impact and slippage. */
  maxLeverage: number;
  downPayment: string;
  principal: string;
  expectedCollateral: string;
  minimumCollateral: string;
  interest: string;
  priceImpactPct: string;
  slippageBps: number;
}

/** Rounds of "swap the total, let the rule-book lend against the least it buys" (each lends less). */
const ROUNDS = 6;

/**
 * Margin terms of every defi-pool that lends against `collateralMint` (or the one named), for a down payment in
 * each pool's currency: the largest principal such that the pool's rule-book lends it against the least the swap
 * of down payment + principal may deliver after slippage (found by a few decreasing rounds from the LTV's
 * theoretical maximum), with the collateral it buys, the interest and the price impact. Best leverage first.
 */
export async function quoteMargins(
  tx: TxContext,
  input: {
    collateralMint: string;
    downPayment: bigint;
    durationSeconds: number;
    slippageBps?: number;
    currency?: string;
    pool?: string;
    borrower?: string;
  },
): Promise<MarginQuote[]> {
  const slippageBps = input.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  const base = {
    poolType: "defi-pool" as const,
    collateralId: input.collateralMint,
    durationSeconds: input.durationSeconds,
    ...(input.borrower !== undefined ? { borrower: input.borrower } : {}),
  };
  const swapOf = (currency: string, amount: bigint) =>
    tx.swapVenue.quote({
      inputMint: currency,
      outputMint: input.collateralMint,
      amount: Number(amount),
      slippageBps,
    });
  const snapshot = await tx.state.snapshot();
  const candidates = [...snapshot.pools].filter(
    ([address, p]) =>
      p.poolType === "defi-pool" &&
      p.status === "Open" &&
      (input.pool === undefined || address === input.pool) &&
      (input.currency === undefined || p.currencyMint === input.currency) &&
      p.collections.some((c) => c.id === input.collateralMint),
  );
  const out: MarginQuote[] = [];
  for (const [pool, account] of candidates) {
    const entry = account.collections.find((c) => c.id === input.collateralMint)!;
    if (entry.ltvBps >= 10_000) continue;
    const currency = account.currencyMint;
    let principal = (input.downPayment * BigInt(entry.ltvBps)) / BigInt(10_000 - entry.ltvBps);
    let last: { swap: Awaited<ReturnType<typeof swapOf>>; interest: string } | null = null;
    for (let round = 0; round < ROUNDS && principal > 0n; round++) {
      const swap = await swapOf(currency, input.downPayment + principal);
      const minimum = BigInt(swap.otherAmountThreshold);
      // decided on the cached pools and banks (a preview: the builder decides the chosen pool on fresh state)
      const offerOf = async (amount?: bigint) =>
        (
          await quoteLoan(tx, {
            ...base,
            collateralAmount: minimum,
            currency,
            ...(amount !== undefined ? { amount } : {}),
          }).catch(() => null)
        )?.offers.find((o) => o.pool === pool);
      const offer = await offerOf();
      if (offer === undefined) {
        principal = 0n;
        break;
      }
      const max = offer.maxBorrowAmount;
      if (max >= principal) {
        const taken = await offerOf(principal);
        if (taken !== undefined) last = { swap, interest: taken.interest.toString() };
        break;
      }
      // the pool lends `ltv` of each extra unit swapped, so the fixed point lies deficit / (1 - ltv) lower
      const deficit = principal - max;
      principal -= (deficit * 10_000n) / BigInt(10_000 - entry.ltvBps) + principal / 10_000n + 1n;
    }
    if (last === null || principal <= 0n) continue;
    out.push({
      pool,
      currency,
      apr: account.loanAprBps,
      leverage: Number(((input.downPayment + principal) * 100n) / input.downPayment) / 100,
      maxLeverage: Math.floor(1_000_000 / (10_000 - entry.ltvBps)) / 100,
      downPayment: input.downPayment.toString(),
      principal: principal.toString(),
      expectedCollateral: last.swap.outAmount,
      minimumCollateral: last.swap.otherAmountThreshold,
      interest: last.interest,
      priceImpactPct: last.swap.priceImpactPct,
      slippageBps,
    });
  }
  return out.sort((a, b) => b.leverage - a.leverage);
}
