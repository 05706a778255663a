import {
  computeLiquiditySummary,
  LIABILITIES_SCALE,
  parseBank,
  parsePool,
  SECONDS_PER_DAY,
} from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { BANK_COLUMNS, type BankRow, toBankView } from "../banks/bank-view.ts";
import { getValuation } from "../catalog/token-info.ts";
import { readBigInt, readNumber } from "../db/database.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Pubkey, withErrors } from "../http/schemas.ts";
import { getCollateralUsd, LOAN_COLUMNS, type LoanRow } from "../loans/loan-view.ts";
import { POOL_COLUMNS, POOL_FROM, type PoolRow, toPoolView } from "../pools/pool-view.ts";
import { getUsdValue } from "../prices/usd-value.ts";

/** Pools of the largest banks included in a liquidity summary. */
const LARGEST_BANKS = 3;

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
        "Liquidity summary of a currency over its open pools (computed with @cistern/protocol " +
        "computeLiquiditySummary): pools, average/median APR (bps), available liquidity (base units and USD), " +
        "total borrowed, utilisation, accepted collateral ids and the pools of the three largest banks.",
      tags: ["analytics"],
      querystring: Type.Object({ currency: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          currency: Pubkey,
          totalPools: Type.Integer(),
          averageApr: Type.Number(),
          medianApr: Type.Number(),
          availableLiquidity: Type.String(),
          availableLiquidityUsd: Type.Number(),
          totalBorrowed: Type.String(),
          utilizationRatio: Type.Number(),
          mints: Type.Array(Pubkey),
          pairsSupported: Type.Integer(),
          largestPools: Type.Array(Type.Ref("Pool")),
        }),
      }),
    },
    async ({ currency }) => {
      const [poolRows, bankRows, valuation] = await Promise.all([
        ctx.db.query<PoolRow>(
          `SELECT ${POOL_COLUMNS} FROM ${POOL_FROM} WHERE p.currency = $1 AND p.status = 'Open' ORDER BY p.pubkey`,
          [currency],
        ),
        ctx.db.query<BankRow>(`SELECT ${BANK_COLUMNS} FROM banks WHERE mint = $1`, [currency]),
        getValuation(ctx),
      ]);
      const views = poolRows.map(toPoolView);
      const summary = computeLiquiditySummary(views.map(parsePool), bankRows.map(toBankView).map(parseBank), {
        currency,
        decimals: valuation.decimals(currency),
        priceUsd: Number(valuation.price(currency) ?? "0"),
        largestBankCount: LARGEST_BANKS,
      });
      const byKey = new Map(views.map((v) => [v.pubkey, v]));
      return {
        ...summary,
        availableLiquidity: summary.availableLiquidity.toString(),
        totalBorrowed: summary.totalBorrowed.toString(),
        largestPools: summary.largestPools.map((p) => byKey.get(p.pubkey)!),
      };
    },
  );
}
