import { LIABILITIES_SCALE, SECONDS_PER_DAY } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getValuation } from "../catalog/token-info.ts";
import { readBigInt, readNumber } from "../db/database.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Pubkey, withErrors } from "../http/schemas.ts";
import { getCollateralUsd, LOAN_COLUMNS, type LoanRow } from "../loans/loan-view.ts";
import { getUsdValue } from "../prices/usd-value.ts";
import { fetchLiquiditySummaries, LiquiditySummarySchema } from "../tx/calculator/liquidity-summary.ts";

/** /tvl, /liquidity/liabilities and /liquidity/summary. */
export function registerLiquidityRoutes(app: FastifyInstance, ctx: AppContext): void {
  getRoute<Record<string, never>, unknown>(
    app,
    "/tvl",
    {
      description:
        "Total value locked: liquidity of every bank per currency (base units) and its USD value at current prices.",
      tags: ["analytics"],
      querystring: Type.Object({}, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          tvlUsd: Type.Number(),
          byCurrency: Type.Array(
            Type.Object({
              currency: Pubkey,
              totalLiquidity: Type.String(),
              availableLiquidity: Type.String(),
              borrowedLiquidity: Type.String(),
              tvlUsd: Type.Number(),
            }),
          ),
        }),
      }),
    },
    async () => {
      const [rows, valuation] = await Promise.all([
        ctx.db.query<{ mint: string; total: unknown; available: unknown; delegated: unknown }>(
          `SELECT mint, sum(total_liquidity) AS total, sum(available_liquidity) AS available,
             sum(delegated_liquidity) AS delegated FROM banks GROUP BY mint ORDER BY mint`,
        ),
        getValuation(ctx),
      ]);
      const byCurrency = rows.map((r) => {
        const total = readBigInt(r.total);
        const available = readBigInt(r.available);
        return {
          currency: r.mint,
          totalLiquidity: total.toString(),
          availableLiquidity: available.toString(),
          borrowedLiquidity: (total - available - readBigInt(r.delegated)).toString(),
          tvlUsd: getUsdValue(total, valuation.decimals(r.mint), valuation.price(r.mint)),
        };
      });
      return { tvlUsd: byCurrency.reduce((s, c) => s + c.tvlUsd, 0), byCurrency };
    },
  );

  getRoute<{ pubkey?: string; days: number }, unknown>(
    app,
    "/liquidity/liabilities",
    {
      description:
        "Daily series over the last `days` (default 30) of a borrower's (or, without pubkey, the protocol's) " +
        "liabilities (principal of loans open at the end of the UTC day) and assets (their collateral), in USD " +
        "at current prices multiplied by 10000 (the client divides by 10000). `date` is YYYY-MM-DD.",
      tags: ["analytics"],
      querystring: Type.Object(
        {
          pubkey: Type.Optional(Pubkey),
          days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
        },
        { additionalProperties: false },
      ),
      response: withErrors({
        200: Type.Array(
          Type.Object({ date: Type.String(), liabilities: Type.Integer(), assets: Type.Integer() }),
        ),
      }),
    },
    async ({ pubkey, days }) => {
      const today = Math.floor((await ctx.chainNow()) / SECONDS_PER_DAY) * SECONDS_PER_DAY;
      const from = today - (days - 1) * SECONDS_PER_DAY;
      const [rows, valuation] = await Promise.all([
        ctx.db.query<LoanRow>(
          `SELECT ${LOAN_COLUMNS} FROM loans WHERE ($1::text IS NULL OR borrower = $1)
             AND (status = 'Ongoing' OR GREATEST(repaid_at, liquidated_at, sold_at) >= $2)`,
          [pubkey ?? null, from],
        ),
        getValuation(ctx),
      ]);
      const loans = rows.map((row) => ({
        openedAt: readNumber(row.created_at),
        closedAt: Math.max(readNumber(row.repaid_at), readNumber(row.liquidated_at), readNumber(row.sold_at)),
        liabilitiesUsd: getUsdValue(
          readBigInt(row.principal),
          valuation.decimals(row.currency),
          valuation.price(row.currency),
        ),
        assetsUsd: getCollateralUsd(row, valuation),
      }));
      return Array.from({ length: days }, (_, i) => {
        const dayStart = from + i * SECONDS_PER_DAY;
        const dayEnd = dayStart + SECONDS_PER_DAY;
        let liabilities = 0;
        let assets = 0;
        for (const loan of loans) {
          if (loan.openedAt < dayEnd && (loan.closedAt === 0 || loan.closedAt >= dayEnd)) {
            liabilities += loan.liabilitiesUsd;
            assets += loan.assetsUsd;
          }
        }
        return {
          date: new Date(dayStart * 1000).toISOString().slice(0, 10),
          liabilities: Math.round(liabilities * LIABILITIES_SCALE),
          assets: Math.round(assets * LIABILITIES_SCALE),
        };
      });
    },
  );

  getRoute<{ currency: string }, unknown>(
    app,
    "/liquidity/summary",
    {
      description:
        "Liquidity summary of a currency over its open pools of both types (the spec's \"Liquidity summary per " +
        'currency", computed like GET /defi/liquidity, which covers defi-pools): pools, average/median APR (bps, ' +
        "rounded up), lendable liquidity (base units and USD), total borrowed, utilisation, accepted collateral " +
        "ids and the pools of the three largest banks.",
      tags: ["analytics"],
      querystring: Type.Object({ currency: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: LiquiditySummarySchema }),
    },
    async ({ currency }) => (await fetchLiquiditySummaries(ctx, { currency }))[0],
  );
}
