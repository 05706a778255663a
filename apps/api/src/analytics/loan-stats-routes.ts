import { SECONDS_PER_DAY } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getValuation, type Valuation } from "../catalog/token-info.ts";
import { readBigInt, readNumber } from "../db/database.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Pagination, Pubkey, StringEnum, withErrors } from "../http/schemas.ts";
import { getUsdValue } from "../prices/usd-value.ts";
import { ACTIVITY_COLUMNS, type ActivityRow, ActivitySchema, toActivityView } from "./activity-view.ts";

const Days = (fallback: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: fallback, description: "window in days" }));

const CurrencyAmounts = Type.Array(
  Type.Object({
    currency: Pubkey,
    loans: Type.Integer(),
    volume: Type.String({ description: "principal lent, base units" }),
    volumeUsd: Type.Number(),
  }),
);

interface CurrencyVolumeRow {
  currency: string;
  loans: unknown;
  volume: unknown;
}

function toCurrencyAmounts(rows: CurrencyVolumeRow[], valuation: Valuation) {
  return rows.map((r) => {
    const volume = readBigInt(r.volume);
    return {
      currency: r.currency,
      loans: readNumber(r.loans),
      volume: volume.toString(),
      volumeUsd: getUsdValue(volume, valuation.decimals(r.currency), valuation.price(r.currency)),
    };
  });
}

const StatusCounts = {
  totalLoans: Type.Integer(),
  ongoingLoans: Type.Integer(),
  repaidLoans: Type.Integer(),
  liquidatedLoans: Type.Integer(),
};

const STATUS_COUNTS_SQL = `count(*) AS total, count(*) FILTER (WHERE status = 'Ongoing') AS ongoing,
  count(*) FILTER (WHERE status = 'Repaid') AS repaid, count(*) FILTER (WHERE status = 'Liquidated') AS liquidated`;

function toStatusCounts(row: Record<string, unknown> | undefined) {
  return {
    totalLoans: readNumber(row?.total),
    ongoingLoans: readNumber(row?.ongoing),
    repaidLoans: readNumber(row?.repaid),
    liquidatedLoans: readNumber(row?.liquidated),
  };
}

/** Stats of one side (borrower or lender) of a wallet. */
async function walletSideStats(
  ctx: AppContext,
  column: "borrower" | "lender",
  pubkey: string,
  valuation: Valuation,
) {
  const [counts, byCurrency] = await Promise.all([
    ctx.db.query<Record<string, unknown>>(`SELECT ${STATUS_COUNTS_SQL} FROM loans WHERE ${column} = $1`, [
      pubkey,
    ]),
    ctx.db.query<CurrencyVolumeRow>(
      `SELECT currency, count(*) AS loans, sum(principal) AS volume FROM loans WHERE ${column} = $1
       GROUP BY currency ORDER BY currency`,
      [pubkey],
    ),
  ]);
  const volumes = toCurrencyAmounts(byCurrency, valuation);
  return {
    ...toStatusCounts(counts[0]),
    byCurrency: volumes,
    volumeUsd: volumes.reduce((sum, v) => sum + v.volumeUsd, 0),
  };
}

const SideStats = Type.Object({ ...StatusCounts, byCurrency: CurrencyAmounts, volumeUsd: Type.Number() });

/** /loan/* statistics routes. */
export function registerLoanStatsRoutes(app: FastifyInstance, ctx: AppContext): void {
  getRoute<{ currency: string; days: number }, unknown>(
    app,
    "/loan/loan-analytics",
    {
      description:
        "Daily loan analytics of a currency over the last `days` (default 30): loans taken, principal lent " +
        "and interest contracted per UTC day (days without loans are listed with zeros).",
      tags: ["analytics"],
      querystring: Type.Object({ currency: Pubkey, days: Days(30) }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({
          currency: Pubkey,
          days: Type.Integer(),
          series: Type.Array(
            Type.Object({
              date: Type.Integer(),
              loans: Type.Integer(),
              volume: Type.String(),
              interest: Type.String(),
            }),
          ),
        }),
      }),
    },
    async ({ currency, days }) => {
      const today = Math.floor((await ctx.chainNow()) / SECONDS_PER_DAY) * SECONDS_PER_DAY;
      const from = today - (days - 1) * SECONDS_PER_DAY;
      const rows = await ctx.db.query<{ day: unknown; loans: unknown; volume: unknown; interest: unknown }>(
        `SELECT (created_at / 86400) * 86400 AS day, count(*) AS loans, sum(principal) AS volume,
           sum(interest) AS interest
         FROM loans WHERE currency = $1 AND created_at >= $2 GROUP BY 1 ORDER BY 1`,
        [currency, from],
      );
      const byDay = new Map(rows.map((r) => [readNumber(r.day), r]));
      const series = Array.from({ length: days }, (_, i) => {
        const date = from + i * SECONDS_PER_DAY;
        const row = byDay.get(date);
        return {
          date,
          loans: readNumber(row?.loans),
          volume: readBigInt(row?.volume ?? 0).toString(),
          interest: readBigInt(row?.interest ?? 0).toString(),
        };
      });
      return { currency, days, series };
    },
  );

  getRoute<{ kind?: string; limit: number; offset: number }, unknown>(
    app,
    "/loan/latest-activity",
    {
      description: "Latest loan events across the protocol, newest first (optionally one kind).",
      tags: ["analytics"],
      querystring: Type.Object(
        {
          kind: Type.Optional(
            StringEnum(["taken", "repaid", "extended", "refinanced", "liquidated", "sold"] as const),
          ),
          ...Pagination,
        },
        { additionalProperties: false },
      ),
      response: withErrors({ 200: Type.Array(ActivitySchema) }),
    },
    async ({ kind, limit, offset }) => {
      const rows = await ctx.db.query<ActivityRow>(
        `SELECT ${ACTIVITY_COLUMNS} FROM loan_activity WHERE ($1::text IS NULL OR kind = $1)
         ORDER BY at DESC, id DESC LIMIT $2 OFFSET $3`,
        [kind ?? null, limit, offset],
      );
      return rows.map(toActivityView);
    },
  );

  getRoute<{ limit: number; offset: number }, unknown>(
    app,
    "/loan/stats-per-collection",
    {
      description:
        "Per collection (NFT collection id, or collateral mint for token loans) and loan currency: loans, " +
        "ongoing loans and principal lent. Largest volume first.",
      tags: ["analytics"],
      querystring: Type.Object({ ...Pagination }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Array(
          Type.Object({
            collection: Pubkey,
            currency: Pubkey,
            totalLoans: Type.Integer(),
            ongoingLoans: Type.Integer(),
            volume: Type.String(),
            volumeUsd: Type.Number(),
            outstanding: Type.String({ description: "principal of ongoing loans" }),
          }),
        ),
      }),
    },
    async ({ limit, offset }) => {
      const [rows, valuation] = await Promise.all([
        ctx.db.query<{
          collection: string;
          currency: string;
          total: unknown;
          ongoing: unknown;
          volume: unknown;
          outstanding: unknown;
        }>(
          `SELECT collection, currency, count(*) AS total, count(*) FILTER (WHERE status = 'Ongoing') AS ongoing,
             sum(principal) AS volume, coalesce(sum(principal) FILTER (WHERE status = 'Ongoing'), 0) AS outstanding
           FROM loans GROUP BY collection, currency ORDER BY sum(principal) DESC, collection LIMIT $1 OFFSET $2`,
          [limit, offset],
        ),
        getValuation(ctx),
      ]);
      return rows.map((r) => {
        const volume = readBigInt(r.volume);
        return {
          collection: r.collection,
          currency: r.currency,
          totalLoans: readNumber(r.total),
          ongoingLoans: readNumber(r.ongoing),
          volume: volume.toString(),
          volumeUsd: getUsdValue(volume, valuation.decimals(r.currency), valuation.price(r.currency)),
          outstanding: readBigInt(r.outstanding).toString(),
        };
      });
    },
  );

  getRoute<Record<string, never>, unknown>(
    app,
    "/loan/stats-total",
    {
      description:
        "Protocol totals: loan counts by status and principal lent per currency (with USD at current prices).",
      tags: ["analytics"],
      querystring: Type.Object({}, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({ ...StatusCounts, byCurrency: CurrencyAmounts, volumeUsd: Type.Number() }),
      }),
    },
    async () => {
      const [counts, byCurrency, valuation] = await Promise.all([
        ctx.db.query<Record<string, unknown>>(`SELECT ${STATUS_COUNTS_SQL} FROM loans`),
        ctx.db.query<CurrencyVolumeRow>(
          "SELECT currency, count(*) AS loans, sum(principal) AS volume FROM loans GROUP BY currency ORDER BY currency",
        ),
        getValuation(ctx),
      ]);
      const volumes = toCurrencyAmounts(byCurrency, valuation);
      return {
        ...toStatusCounts(counts[0]),
        byCurrency: volumes,
        volumeUsd: volumes.reduce((s, v) => s + v.volumeUsd, 0),
      };
    },
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/loan/borrower-stats",
    {
      description: "A wallet's borrowing: loan counts by status and principal borrowed per currency.",
      tags: ["analytics"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({ 200: SideStats }),
    },
    async ({ pubkey }) => walletSideStats(ctx, "borrower", pubkey, await getValuation(ctx)),
  );

  getRoute<{ pubkey: string }, unknown>(
    app,
    "/loan/stats-per-user",
    {
      description: "User stats of a wallet: its loans as borrower and as lender (pool owner).",
      tags: ["analytics"],
      querystring: Type.Object({ pubkey: Pubkey }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Object({ pubkey: Pubkey, asBorrower: SideStats, asLender: SideStats }),
      }),
    },
    async ({ pubkey }) => {
      const valuation = await getValuation(ctx);
      const [asBorrower, asLender] = await Promise.all([
        walletSideStats(ctx, "borrower", pubkey, valuation),
        walletSideStats(ctx, "lender", pubkey, valuation),
      ]);
      return { pubkey, asBorrower, asLender };
    },
  );

  getRoute<{ days: number }, unknown>(
    app,
    "/loan/volume-stats",
    {
      description: "Principal lent per UTC day and currency over the last `days` (default 30), oldest first.",
      tags: ["analytics"],
      querystring: Type.Object({ days: Days(30) }, { additionalProperties: false }),
      response: withErrors({
        200: Type.Array(
          Type.Object({
            date: Type.Integer(),
            currency: Pubkey,
            loans: Type.Integer(),
            volume: Type.String(),
            volumeUsd: Type.Number(),
          }),
        ),
      }),
    },
    async ({ days }) => {
      const from = (Math.floor((await ctx.chainNow()) / SECONDS_PER_DAY) - (days - 1)) * SECONDS_PER_DAY;
      const [rows, valuation] = await Promise.all([
        ctx.db.query<{ day: unknown; currency: string; loans: unknown; volume: unknown }>(
          `SELECT (created_at / 86400) * 86400 AS day, currency, count(*) AS loans, sum(principal) AS volume
           FROM loans WHERE created_at >= $1 GROUP BY 1, 2 ORDER BY 1, 2`,
          [from],
        ),
        getValuation(ctx),
      ]);
      return rows.map((r) => {
        const volume = readBigInt(r.volume);
        return {
          date: readNumber(r.day),
          currency: r.currency,
          loans: readNumber(r.loans),
          volume: volume.toString(),
          volumeUsd: getUsdValue(volume, valuation.decimals(r.currency), valuation.price(r.currency)),
        };
      });
    },
  );
}
