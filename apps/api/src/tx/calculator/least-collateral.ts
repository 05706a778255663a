import type { TxContext } from "../tx-context.ts";
import { findLeastAmount } from "./least-amount.ts";
import {
  decideQuote,
  freshenQuoteBasis,
  loadQuoteBasis,
  offerOfPool,
  type QuoteJson,
} from "./quote-service.ts";

/** Collateral amounts searched up to 2^64 base units. */
const MAX_COLLATERAL_MULTIPLE = 2n ** 64n;

/**
 * Reverse quotes: for each defi-pool lending `currency` against `collateralMint` (or the one named), the least
 * collateral (base units) its rule-book lends `principal` against, with the loan's quote at that collateral.
 * Decided on the cached pools and banks (a preview), prices, time and borrower facts read once for every probe.
 * Least collateral first.
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
  const borrower = ask.borrower !== undefined ? { borrower: ask.borrower } : {};
  const basis = await loadQuoteBasis(tx, {
    poolType: "defi-pool",
    collateralId: ask.collateralMint,
    currency: ask.currency,
    ...borrower,
  });
  const pools = [...basis.snapshot.pools].filter(
    ([address, p]) =>
      p.poolType === "defi-pool" &&
      p.status === "Open" &&
      p.currencyMint === ask.currency &&
      (ask.pool === undefined || address === ask.pool) &&
      p.collections.some((c) => c.id === ask.collateralMint),
  );
  const out: (QuoteJson & { collateralAmount: string })[] = [];
  for (const [pool] of pools) {
    const request = (collateralAmount: bigint) => ({
      poolType: "defi-pool" as const,
      collateralId: ask.collateralMint,
      collateralAmount,
      durationSeconds: ask.durationSeconds,
      currency: ask.currency,
      amount: ask.principal,
      pool,
      ...borrower,
    });
    const least = await findLeastAmount(1n, MAX_COLLATERAL_MULTIPLE, async (collateralAmount) =>
      offerOfPool(basis, request(collateralAmount)) === null ? null : collateralAmount,
    );
    if (least === null) continue;
    // the quote's JSON for this pool at that collateral, decided on the pool's fresh state
    const fresh = await freshenQuoteBasis(tx, basis, { poolType: "defi-pool", pool, ...borrower });
    const { quote } = decideQuote(tx, fresh, request(least.amount));
    out.push({ ...quote, collateralAmount: least.amount.toString() });
  }
  return out.sort((a, b) => (BigInt(a.collateralAmount) < BigInt(b.collateralAmount) ? -1 : 1));
}
