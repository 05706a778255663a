import { SECONDS_PER_DAY } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getValuation } from "../catalog/token-info.ts";
import { readBigInt, readNumber } from "../db/database.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Pagination, Pubkey, StringEnum, withErrors } from "../http/schemas.ts";
import { getCollateralUsd, LOAN_COLUMNS, type LoanRow } from "../loans/loan-view.ts";
import { getUsdValue } from "../prices/usd-value.ts";
import { ACTIVITY_COLUMNS, type ActivityRow, ActivitySchema, toActivityView } from "./activity-view.ts";

const Days = (fallback: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: fallback, description: "window in days" }));

/** /dirty/* analytics (designed from the route names; each route's description says what it answers). */
export function registerDirtyRoutes(app: FastifyInstance, ctx: AppContext): void {
  getRoute<{ pubkey: string; limit: number; offset: number }, unknown>(
    app,
    "/dirty/activity-by-user",
    {
      description: "Loan events where the wallet is the borrower or the lender, newest first.",
      tags: ["analytics"],
      querystring: Type.Object({ pubkey: Pubkey, ...Pagination }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({ activity: Type.Array(ActivitySchema), totalCount: Type.Integer() }),
      }),
    },
    async ({ pubkey, limit, offset }) => {
      const [rows, count] = await Promise.all([
        ctx.db.query<ActivityRow>(
          `SELECT ${ACTIVITY_COLUMNS} FROM loan_activity WHERE borrower = $1 OR lender = $1
           ORDER BY at DESC, id DESC LIMIT $2 OFFSET $3`,
          [pubkey, limit, offset],
        ),
        ctx.db.query<{ n: unknown }>(
          "SELECT count(*) AS n FROM loan_activity WHERE borrower = $1 OR lender = $1",
          [pubkey],
        ),
      ]);
      return { activity: rows.map(toActivityView), totalCount: readNumber(count[0]?.n) };
    },
  );

  getRoute<{ days: number; currency?: string }, unknown>(
    app,
    "/dirty/historical-apys",
    {
      description:
        "Daily snapshots (taken by the indexer at each reconcile) of the average and median APR of open pools " +
        "per currency over the last `days` (default 30). APRs in basis points.",
      tags: ["analytics"],
      querystring: Type.Object(
        { days: Days(30), currency: Type.Optional(Pubkey) },
        { additionalProperties: false },
      ),
      response: withErrors({
        200: Type.Array(
          Type.Object({
            currency: Pubkey,
            date: Type.Integer(),
            averageApr: Type.Integer(),
            medianApr: Type.Integer(),
            pools: Type.Integer(),
          }),
        ),
      }),
    },
    async ({ days, currency }) => {
      const from = (Math.floor((await ctx.chainNow()) / SECONDS_PER_DAY) - (days - 1)) * SECONDS_PER_DAY;
      const rows = await ctx.db.query<Record<string, unknown>>(
        `SELECT currency, day, average_apr_bps, median_apr_bps, pools FROM apr_history
         WHERE day >= $1 AND ($2::text IS NULL OR currency = $2) ORDER BY day, currency`,
        [from, currency ?? null],
      );
      return rows.map((r) => ({
        currency: String(r.currency),
        date: readNumber(r.day),
        averageApr: readNumber(r.average_apr_bps),
        medianApr: readNumber(r.median_apr_bps),
        pools: readNumber(r.pools),
      }));
    },
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/dirty/lender-profit",
    {
      description:
        "A lender's results per currency from the chain: interest earned (interest repaid minus the protocol " +
        "fee, exactly as the bank received it) and principal lost to liquidations (the lender got the collateral).",
      tags: ["analytics"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          pubkey: Pubkey,
          byCurrency: Type.Array(
            Type.Object({
              currency: Pubkey,
              loansRepaid: Type.Integer(),
              loansLiquidated: Type.Integer(),
              interestEarned: Type.String(),
              interestEarnedUsd: Type.Number(),
              principalLiquidated: Type.String(),
            }),
          ),
        }),
      }),
    },
    async ({ pubkey }) => {
      const [rows, valuation] = await Promise.all([
        ctx.db.query<Record<string, unknown>>(
          `SELECT currency,
             count(*) FILTER (WHERE status = 'Repaid') AS repaid,
             count(*) FILTER (WHERE status = 'Liquidated') AS liquidated,
             coalesce(sum(repaid_amount - principal - protocol_fee_paid) FILTER (WHERE status = 'Repaid'), 0) AS earned,
             coalesce(sum(principal) FILTER (WHERE status = 'Liquidated'), 0) AS lost
           FROM loans WHERE lender = $1 GROUP BY currency ORDER BY currency`,
          [pubkey],
        ),
        getValuation(ctx),
      ]);
      return {
        pubkey,
        byCurrency: rows.map((r) => {
          const currency = String(r.currency);
          const earned = readBigInt(r.earned);
          return {
            currency,
            loansRepaid: readNumber(r.repaid),
            loansLiquidated: readNumber(r.liquidated),
            interestEarned: earned.toString(),
            interestEarnedUsd: getUsdValue(earned, valuation.decimals(currency), valuation.price(currency)),
            principalLiquidated: readBigInt(r.lost).toString(),
          };
        }),
      };
    },
  );

  getRoute<{ limit: number; offset: number }, unknown>(
    app,
    "/dirty/stats-per-lender",
    {
      description:
        "Per lender (pool owner) and currency: open pools, loans, ongoing loans and principal lent.",
      tags: ["analytics"],
      querystring: Type.Object({ ...Pagination }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Array(
          Type.Object({
            lender: Pubkey,
            currency: Pubkey,
            pools: Type.Integer(),
            loans: Type.Integer(),
            ongoingLoans: Type.Integer(),
            volume: Type.String(),
          }),
        ),
      }),
    },
    async ({ limit, offset }) => {
      const rows = await ctx.db.query<Record<string, unknown>>(
        `SELECT p.owner AS lender, p.currency, count(*) AS pools, sum(p.total_loans) AS loans,
           sum(p.current_loans) AS ongoing, coalesce(l.volume, 0) AS volume
         FROM pools p LEFT JOIN (SELECT lender, currency, sum(principal) AS volume FROM loans GROUP BY lender, currency) l
           ON l.lender = p.owner AND l.currency = p.currency
         WHERE p.status <> 'Closed'
         GROUP BY p.owner, p.currency, l.volume ORDER BY coalesce(l.volume, 0) DESC, p.owner LIMIT $1 OFFSET $2`,
        [limit, offset],
      );
      return rows.map((r) => ({
        lender: String(r.lender),
        currency: String(r.currency),
        pools: readNumber(r.pools),
        loans: readNumber(r.loans),
        ongoingLoans: readNumber(r.ongoing),
        volume: readBigInt(r.volume).toString(),
      }));
    },
  );

  getRoute<{ currency: string; days: number; interval: string }, unknown>(
    app,
    "/dirty/ohlc",
    {
      description:
        "OHLC of loan sizes (principal, base units) of a currency per interval (hour or day) over the last " +
        "`days`: open/close = first/last loan of the interval, high/low = largest/smallest, volume = sum.",
      tags: ["analytics"],
      querystring: Type.Object(
        {
          currency: Pubkey,
          days: Days(30),
          interval: Type.Optional(StringEnum(["hour", "day"] as const, { default: "day" })),
        },
        { additionalProperties: false },
      ),
      response: withErrors({
        200: Type.Array(
          Type.Object({
            time: Type.Integer(),
            open: Type.String(),
            high: Type.String(),
            low: Type.String(),
            close: Type.String(),
            volume: Type.String(),
            count: Type.Integer(),
          }),
        ),
      }),
    },
    async ({ currency, days, interval }) => {
      const step = interval === "hour" ? 3600 : SECONDS_PER_DAY;
      const from = Math.floor(await ctx.chainNow()) - days * SECONDS_PER_DAY;
      const rows = await ctx.db.query<{ created_at: unknown; principal: unknown }>(
        "SELECT created_at, principal FROM loans WHERE currency = $1 AND created_at >= $2 ORDER BY created_at, pubkey",
        [currency, from],
      );
      const buckets = new Map<
        number,
        { open: bigint; high: bigint; low: bigint; close: bigint; volume: bigint; count: number }
      >();
      for (const row of rows) {
        const time = Math.floor(readNumber(row.created_at) / step) * step;
        const value = readBigInt(row.principal);
        const b = buckets.get(time);
        if (b === undefined)
          buckets.set(time, { open: value, high: value, low: value, close: value, volume: value, count: 1 });
        else {
          if (value > b.high) b.high = value;
          if (value < b.low) b.low = value;
          b.close = value;
          b.volume += value;
          b.count++;
        }
      }
      return [...buckets].map(([time, b]) => ({
        time,
        open: b.open.toString(),
        high: b.high.toString(),
        low: b.low.toString(),
        close: b.close.toString(),
        volume: b.volume.toString(),
        count: b.count,
      }));
    },
  );

  getRoute<{ role: string; limit: number }, unknown>(
    app,
    "/dirty/top-users",
    {
      description: "Wallets ranked by USD volume (current prices) as borrowers (default) or lenders.",
      tags: ["analytics"],
      querystring: Type.Object(
        {
          role: Type.Optional(StringEnum(["borrower", "lender"] as const, { default: "borrower" })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
        },
        { additionalProperties: false },
      ),
      response: withErrors({
        200: Type.Array(Type.Object({ user: Pubkey, loans: Type.Integer(), volumeUsd: Type.Number() })),
      }),
    },
    async ({ role, limit }) => {
      const column = role === "lender" ? "lender" : "borrower";
      const [rows, valuation] = await Promise.all([
        ctx.db.query<{ wallet: string; currency: string; loans: unknown; volume: unknown }>(
          `SELECT ${column} AS wallet, currency, count(*) AS loans, sum(principal) AS volume FROM loans
           GROUP BY ${column}, currency`,
        ),
        getValuation(ctx),
      ]);
      const users = new Map<string, { loans: number; volumeUsd: number }>();
      for (const r of rows) {
        const u = users.get(r.wallet) ?? { loans: 0, volumeUsd: 0 };
        u.loans += readNumber(r.loans);
        u.volumeUsd += getUsdValue(
          readBigInt(r.volume),
          valuation.decimals(r.currency),
          valuation.price(r.currency),
        );
        users.set(r.wallet, u);
      }
      return [...users]
        .map(([user, u]) => ({ user, ...u }))
        .sort((a, b) => b.volumeUsd - a.volumeUsd || b.loans - a.loans || (a.user < b.user ? -1 : 1))
        .slice(0, limit);
    },
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/dirty/collateralized-amount-by-user",
    {
      description:
        "Collateral a borrower has locked in ongoing loans, valued at current prices (NFTs at the collection " +
        "floor): totalCollateralizedAmountUsd and one entry per collateral mint.",
      tags: ["analytics"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          totalCollateralizedAmountUsd: Type.Number(),
          collateralDetails: Type.Array(
            Type.Object({ collateral: Pubkey, nativeAmount: Type.String(), usdAmount: Type.Number() }),
          ),
        }),
      }),
    },
    async ({ pubkey }) => {
      const [rows, valuation] = await Promise.all([
        ctx.db.query<LoanRow>(
          `SELECT ${LOAN_COLUMNS} FROM loans WHERE borrower = $1 AND status = 'Ongoing' ORDER BY created_at, pubkey`,
          [pubkey],
        ),
        getValuation(ctx),
      ]);
      const details = new Map<string, { nativeAmount: bigint; usdAmount: number }>();
      for (const row of rows) {
        const d = details.get(row.collateral_mint) ?? { nativeAmount: 0n, usdAmount: 0 };
        d.nativeAmount += readBigInt(row.collateral_amount);
        d.usdAmount += getCollateralUsd(row, valuation);
        details.set(row.collateral_mint, d);
      }
      const collateralDetails = [...details].map(([collateral, d]) => ({
        collateral,
        nativeAmount: d.nativeAmount.toString(),
        usdAmount: d.usdAmount,
      }));
      return {
        totalCollateralizedAmountUsd: collateralDetails.reduce((s, d) => s + d.usdAmount, 0),
        collateralDetails,
      };
    },
  );
}
