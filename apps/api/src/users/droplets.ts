import type { AppContext } from "../app-context.ts";
import { getValuation } from "../catalog/token-info.ts";
import { readBigInt } from "../db/database.ts";
import { getUsdValue } from "../prices/usd-value.ts";

/** Seconds in one droplet's day. */
const DAY_SECONDS = 86_400n;

/**
 * Droplets, the points programme: 1 droplet per USD-day of principal a wallet had outstanding, as borrower or
 * as lender (a 1,000 USD loan open for 3 days earns its borrower and its lender 3,000 droplets each). Each
 * loan counts from its creation to its repayment, extension, sale or liquidation (an ongoing loan up to now),
 * from the indexed on-chain loan history; principal is valued in USD at today's prices (the chain keeps no
 * price history). Whole droplets, rounded down per role.
 */
export async function computeDroplets(ctx: AppContext, pubkey: string, nowSeconds: number) {
  const [rows, valuation] = await Promise.all([
    ctx.db.query<{ role: string; currency: string; principal_seconds: unknown }>(
      `WITH mine AS (
         SELECT 'borrower' AS role, currency, principal, created_at, status, repaid_at, liquidated_at, sold_at
           FROM loans WHERE borrower = $1
         UNION ALL
         SELECT 'lender' AS role, currency, principal, created_at, status, repaid_at, liquidated_at, sold_at
           FROM loans WHERE lender = $1)
       SELECT role, currency,
         sum(principal * GREATEST(0, CASE WHEN status = 'Ongoing' THEN $2
           ELSE GREATEST(repaid_at, liquidated_at, sold_at) END - created_at)) AS principal_seconds
       FROM mine GROUP BY role, currency`,
      [pubkey, Math.floor(nowSeconds)],
    ),
    getValuation(ctx),
  ]);
  let borrowedUsdDays = 0;
  let lentUsdDays = 0;
  for (const r of rows) {
    const principalDays = readBigInt(r.principal_seconds) / DAY_SECONDS;
    const usdDays = getUsdValue(principalDays, valuation.decimals(r.currency), valuation.price(r.currency));
    if (r.role === "borrower") borrowedUsdDays += usdDays;
    else lentUsdDays += usdDays;
  }
  return {
    pubkey,
    droplets: Math.floor(borrowedUsdDays) + Math.floor(lentUsdDays),
    borrowedUsdDays,
    lentUsdDays,
  };
}
