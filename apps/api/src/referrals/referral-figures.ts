import { Type } from "@sinclair/typebox";
import type { AppContext } from "../app-context.ts";
import { getValuation } from "../catalog/token-info.ts";
import { readBigInt, readNumber } from "../db/database.ts";
import { BaseUnitsString, Pubkey } from "../http/schemas.ts";
import { getUsdValue } from "../prices/usd-value.ts";

export const ReferralFigures = Type.Object({
  referrer: Pubkey,
  walletsReferred: Type.Integer({ description: "distinct wallets with a referred transaction that landed" }),
  transactions: Type.Integer({
    description: "referred transactions that landed (loan taken, repaid, extended...)",
  }),
  loans: Type.Integer({ description: "loans taken through a referred transaction" }),
  volume: Type.Array(Type.Object({ currency: Pubkey, principal: BaseUnitsString, usd: Type.Number() }), {
    description: "principal of those loans per currency",
  }),
  volumeUsd: Type.Number({ description: "the volume in USD at today's prices" }),
});

/** A referrer's figures from the referrals the indexer linked to landed loan transactions. */
export async function getReferralFigures(ctx: AppContext, referrer: string) {
  const [[counts], volumes, valuation] = await Promise.all([
    ctx.db.query<{ wallets: unknown; transactions: unknown; loans: unknown }>(
      `SELECT count(DISTINCT wallet) AS wallets, count(*) AS transactions,
         count(DISTINCT loan) FILTER (WHERE kind = 'taken') AS loans
       FROM referrals WHERE referrer = $1 AND signature IS NOT NULL`,
      [referrer],
    ),
    ctx.db.query<{ currency: string; principal: unknown }>(
      `SELECT l.currency, sum(l.principal) AS principal FROM loans l
       WHERE l.pubkey IN (SELECT loan FROM referrals WHERE referrer = $1 AND signature IS NOT NULL AND kind = 'taken')
       GROUP BY l.currency ORDER BY l.currency`,
      [referrer],
    ),
    getValuation(ctx),
  ]);
  const volume = volumes.map((v) => {
    const principal = readBigInt(v.principal);
    return {
      currency: v.currency,
      principal: principal.toString(),
      usd: getUsdValue(principal, valuation.decimals(v.currency), valuation.price(v.currency)),
    };
  });
  return {
    referrer,
    walletsReferred: readNumber(counts?.wallets ?? 0),
    transactions: readNumber(counts?.transactions ?? 0),
    loans: readNumber(counts?.loans ?? 0),
    volume,
    volumeUsd: volume.reduce((sum, v) => sum + v.usd, 0),
  };
}
