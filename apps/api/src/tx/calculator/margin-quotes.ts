import type { QuoteResponse } from "../../venues/swap/swap-venue.ts";
import { DEFAULT_SLIPPAGE_BPS } from "../../venues/swap/swap-venue.ts";
import type { TxContext } from "../tx-context.ts";
import { findLeastAmount } from "./least-amount.ts";
import type { PoolOffer } from "./pool-selection.ts";
import { loadQuoteBasis, offerOfPool } from "./quote-service.ts";

/** One pool's margin terms for a down payment and principal. */
export interface MarginQuote {
  pool: string;
  currency: string;
  apr: number;
  /** Down payment + principal over down payment. */
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

/** What the margin quotes are asked: a down payment to lever up, or (reverse) a principal to find the least down payment for. */
export interface MarginAsk {
  collateralMint: string;
  durationSeconds: number;
  slippageBps?: number;
  currency?: string;
  pool?: string;
  borrower?: string;
  /** Forward: the down payment; the quote finds the largest principal each pool lends. */
  downPayment?: bigint;
  /** Reverse: the principal wanted; the quote finds the least down payment each pool lends it for. */
  principal?: bigint;
}

/** A venue fee assumed for the forward search's first guess (the rounds correct it), basis points. */
const TYPICAL_FEE_BPS = 30;
/** Rounds of "swap the total, let the rule-book lend against the least it buys" (each lends less). */
const ROUNDS = 6;
/** A reverse quote gives up when even a down payment of this many times the principal would not do. */
const MAX_DOWN_PAYMENT_MULTIPLE = 64n;

/**
 * Margin terms of every defi-pool that lends against `collateralMint` (or the one named) in `currency`. Forward
 * (`downPayment`): the largest principal such that the pool's rule-book lends it against the least the swap of
 * down payment + principal may deliver after slippage (a few decreasing rounds from the LTV's limit). Reverse
 * (`principal`): the least down payment for which it lends that principal (a binary search). Decided on the
 * cached pools and banks (a preview: the builder decides the chosen pool on fresh state), prices, time and borrower
 * facts read once for every round of every pool. Best leverage first.
 */
export async function quoteMargins(tx: TxContext, ask: MarginAsk): Promise<MarginQuote[]> {
  const slippageBps = ask.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  const basis = await loadQuoteBasis(tx, {
    poolType: "defi-pool",
    collateralId: ask.collateralMint,
    ...(ask.currency !== undefined ? { currency: ask.currency } : {}),
    ...(ask.borrower !== undefined ? { borrower: ask.borrower } : {}),
  });
  const candidates = [...basis.snapshot.pools].filter(
    ([address, p]) =>
      p.poolType === "defi-pool" &&
      p.status === "Open" &&
      (ask.pool === undefined || address === ask.pool) &&
      (ask.currency === undefined || p.currencyMint === ask.currency) &&
      p.collections.some((c) => c.id === ask.collateralMint && c.ltvBps < 10_000),
  );
  const out: MarginQuote[] = [];
  for (const [pool, account] of candidates) {
    const ltvBps = account.collections.find((c) => c.id === ask.collateralMint)!.ltvBps;
    const currency = account.currencyMint;
    const terms = (collateralAmount: bigint, amount?: bigint) =>
      offerOfPool(basis, {
        margin: true,
        poolType: "defi-pool",
        collateralId: ask.collateralMint,
        collateralAmount,
        durationSeconds: ask.durationSeconds,
        currency,
        pool,
        ...(amount !== undefined ? { amount } : {}),
        ...(ask.borrower !== undefined ? { borrower: ask.borrower } : {}),
      }) ?? undefined;
    /** The pool's offer against the least `downPayment + principal` buys (with the swap), if it lends `principal`. */
    const lends = async (downPayment: bigint, principal: bigint) => {
      const swap = await tx.swapVenue.quote({
        inputMint: currency,
        outputMint: ask.collateralMint,
        amount: Number(downPayment + principal),
        slippageBps,
      });
      const offer = terms(BigInt(swap.otherAmountThreshold));
      return { swap, offer, ok: offer !== undefined && offer.maxBorrowAmount >= principal };
    };
    const found =
      ask.principal !== undefined
        ? await leastDownPayment(lends, ask.principal)
        : await largestPrincipal(lends, ask.downPayment ?? 0n, ltvBps, slippageBps);
    if (found === null) continue;
    const { downPayment, principal } = found;
    const offer = terms(BigInt(found.swap.otherAmountThreshold), principal);
    if (offer === undefined) continue;
    out.push({
      pool,
      currency,
      apr: account.loanAprBps,
      leverage: Number(((downPayment + principal) * 100n) / downPayment) / 100,
      maxLeverage: Math.floor(1_000_000 / (10_000 - ltvBps)) / 100,
      downPayment: downPayment.toString(),
      principal: principal.toString(),
      expectedCollateral: found.swap.outAmount,
      minimumCollateral: found.swap.otherAmountThreshold,
      interest: offer.interest.toString(),
      priceImpactPct: found.swap.priceImpactPct,
      slippageBps,
    });
  }
  return out.sort((a, b) => b.leverage - a.leverage);
}

type Lends = (
  downPayment: bigint,
  principal: bigint,
) => Promise<{ swap: QuoteResponse; offer: PoolOffer | undefined; ok: boolean }>;
type Found = { downPayment: bigint; principal: bigint; swap: QuoteResponse } | null;

/** Forward: from the LTV's limit down, each round moves to where the pool's lending meets the principal. */
async function largestPrincipal(
  lends: Lends,
  downPayment: bigint,
  ltvBps: number,
  slippageBps: number,
): Promise<Found> {
  if (downPayment <= 0n) return null;
  // first guess: the LTV applied to what is left after slippage and a typical 0.3% fee (price impact aside)
  const lentBps = BigInt(
    Math.max(0, Math.floor((ltvBps * (10_000 - slippageBps - TYPICAL_FEE_BPS)) / 10_000)),
  );
  let principal = (downPayment * lentBps) / (10_000n - lentBps);
  for (let round = 0; round < ROUNDS && principal > 0n; round++) {
    const { swap, offer, ok } = await lends(downPayment, principal);
    if (offer === undefined) return null;
    if (ok) return { downPayment, principal, swap };
    // the pool lends `ltv` of each extra unit swapped, so the fixed point lies deficit / (1 - ltv) lower
    const deficit = principal - offer.maxBorrowAmount;
    principal -= (deficit * 10_000n) / BigInt(10_000 - ltvBps) + principal / 10_000n + 1n;
  }
  return null;
}

/** Reverse: the least down payment (base units) for which the pool lends `principal`. */
async function leastDownPayment(lends: Lends, principal: bigint): Promise<Found> {
  const least = await findLeastAmount(principal, MAX_DOWN_PAYMENT_MULTIPLE, async (downPayment) => {
    const r = await lends(downPayment, principal);
    return r.ok ? r.swap : null;
  });
  return least && { downPayment: least.amount, principal, swap: least.found };
}
