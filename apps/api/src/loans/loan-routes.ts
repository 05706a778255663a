import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getValuation } from "../catalog/token-info.ts";
import { getRoute } from "../http/route-helpers.ts";
import { Pagination, Pubkey, StringEnum, withErrors } from "../http/schemas.ts";
import { loanListCacheOf } from "./loan-list-cache.ts";
import { type LoanFilterColumn, queryLoanPage } from "./loan-queries.ts";
import { toLoanView } from "./loan-view.ts";

const StatusFilter = Type.Optional(
  StringEnum(["ongoing", "repaid", "liquidated", "sold"] as const, {
    description: "only loans with this status",
  }),
);

function listQuery(keyName: string, description: string) {
  return Type.Object(
    { [keyName]: { ...Pubkey, description }, status: StatusFilter, ...Pagination },
    { additionalProperties: false },
  );
}

type ListQuery = { status?: Static<typeof StatusFilter>; limit: number; offset: number } & Record<
  string,
  string
>;

/** Registers one "loan list" route: loans where `column` equals the query's `keyName`. */
export function registerLoanListRoute(
  app: FastifyInstance,
  ctx: AppContext,
  path: string,
  keyName: string,
  column: LoanFilterColumn,
  description: string,
): void {
  // pages kept between the indexer's writes (on while this process leads the indexer)
  const cache = loanListCacheOf(ctx.db);
  getRoute<ListQuery, unknown>(
    app,
    path,
    {
      description,
      tags: ["loans"],
      querystring: listQuery(keyName, `${column} address`),
      response: withErrors({ 200: Type.Ref("LoanList") }),
    },
    async (query) => {
      const key = {
        column,
        value: query[keyName]!,
        status: query.status,
        limit: query.limit,
        offset: query.offset,
      };
      const [page, valuation] = await Promise.all([
        cache.read(key, () => queryLoanPage(ctx.db, column, key.value, key.status, key.limit, key.offset)),
        getValuation(ctx),
      ]);
      return {
        loans: page.rows.map((row) => toLoanView(row, valuation)),
        totalCount: page.totalCount,
        ongoingCount: page.ongoingCount,
      };
    },
  );
}

/** Loan list routes of the main API. */
export function registerLoanRoutes(app: FastifyInstance, ctx: AppContext): void {
  registerLoanListRoute(
    app,
    ctx,
    "/loan/user",
    "pubkey",
    "borrower",
    "Loans of a borrower wallet, newest first.",
  );
  registerLoanListRoute(app, ctx, "/loan/pool", "pubkey", "pool", "Loans drawn on a pool, newest first.");
  registerLoanListRoute(
    app,
    ctx,
    "/loan/collection",
    "collection",
    "collection",
    "Loans against a collection (NFT loans: collection id; token loans: the collateral mint), newest first.",
  );
  registerLoanListRoute(
    app,
    ctx,
    "/loan/loans-by-currency",
    "currency",
    "currency",
    "Loans lent in a currency (mint), newest first.",
  );
  registerLoanListRoute(
    app,
    ctx,
    "/dirty/activity-by-lender",
    "pubkey",
    "lender",
    "Loans whose lender (pool owner) is the wallet, newest first (getActivityByLender).",
  );
}
