import type { TxContext } from "../tx-context.ts";
import { findLeastAmount } from "./least-amount.ts";
import { type QuoteJson, quoteLoan } from "./quote-service.ts";

/** Collateral amounts searched up to 2^64 base units. */
const MAX_COLLATERAL_MULTIPLE = 2n ** 64n;

/**
 * Reverse quotes: for each defi-pool lending `currency` against `collateralMint` (or the one named), the least
 * collateral (base units) its rule-book lends `principal` against, with the loan's quote at that collateral.
 * Decided on the cached pools and banks (a preview). Least collateral first.
 */
export async function quoteLeastCollateral(
  tx: TxContext,
  ask: {
    collateralMint: string;
    currency: string;
    principal: bigint;
    durationSeconds: number;
    pool?: string;
    borrower?: string;
  },
): Promise<(QuoteJson & { collateralAmount: string })[]> {
  const snapshot = await tx.state.snapshot();
  const pools = [...snapshot.pools].filter(
    ([address, p]) =>
      p.poolType === "defi-pool" &&
      p.status === "Open" &&
      p.currencyMint === ask.currency &&
      (ask.pool === undefined || address === ask.pool) &&
      p.collections.some((c) => c.id === ask.collateralMint),
  );
  const out: (QuoteJson & { collateralAmount: string })[] = [];
  for (const [pool] of pools) {
    const least = await findLeastAmount(1n, MAX_COLLATERAL_MULTIPLE, async (collateralAmount) => {
      const r = await quoteLoan(tx, {
        poolType: "defi-pool",
        collateralId: ask.collateralMint,
        collateralAmount,
        durationSeconds: ask.durationSeconds,
        currency: ask.currency,
        amount: ask.principal,
        ...(ask.borrower !== undefined ? { borrower: ask.borrower } : {}),
      }).catch(() => null);
      const offer = r?.offers.find((o) => o.pool === pool);
      return offer === undefined ? null : collateralAmount;
    });
    if (least === null) continue;
    // the quote's JSON for this pool at that collateral (the named-pool path reads its state fresh)
    const { quote } = await quoteLoan(tx, {
      poolType: "defi-pool",
      collateralId: ask.collateralMint,
      collateralAmount: least.amount,
      durationSeconds: ask.durationSeconds,
      currency: ask.currency,
      amount: ask.principal,
      pool,
      ...(ask.borrower !== undefined ? { borrower: ask.borrower } : {}),
    });
    out.push({ ...quote, collateralAmount: least.amount.toString() });
  }
  return out.sort((a, b) => (BigInt(a.collateralAmount) < BigInt(b.collateralAmount) ? -1 : 1));
}
