import { getRequestFillTerms, getRequestLtvBps } from "@cistern/protocol";
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.ts";
import { getRoute } from "../http/route-helpers.ts";
import {
  BaseUnitsString,
  EpochSeconds,
  Nullable,
  Pagination,
  Pubkey,
  StringEnum,
  withErrors,
} from "../http/schemas.ts";
import { loadTxValuation, type TxValuation } from "../tx/calculator/valuation.ts";
import { listRequests, type RequestRow } from "./request-store.ts";

const STATUS = { open: "Open", filled: "Filled", cancelled: "Cancelled" } as const;

const ListQuery = Type.Object(
  {
    status: Type.Optional(
      StringEnum(["open", "filled", "cancelled"] as const, { description: "only requests in this state" }),
    ),
    currency: Type.Optional({ ...Pubkey, description: "loan currency mint" }),
    collection: Type.Optional({
      ...Pubkey,
      description: "NFT requests: collection id; token requests: collateral mint",
    }),
    borrower: Type.Optional({ ...Pubkey, description: "the borrower's wallet" }),
    ...Pagination,
  },
  { additionalProperties: false },
);

const RequestSchema = Type.Object({
  pubkey: Pubkey,
  borrower: Pubkey,
  currency: Pubkey,
  collateralMint: Pubkey,
  collection: Pubkey,
  collectionName: Nullable(Type.String()),
  isDefi: Type.Boolean(),
  collateralAmount: BaseUnitsString,
  principal: BaseUnitsString,
  duration: Type.Integer({ description: "seconds" }),
  maxApr: Type.Integer({ description: "highest APR the borrower accepts, basis points" }),
  interestAtMaxApr: BaseUnitsString,
  collateralValue: Nullable(BaseUnitsString),
  ltvBps: Nullable(
    Type.Integer({ description: "principal / collateral value at the oracle's valuation, bps (rounded up)" }),
  ),
  status: StringEnum(["Open", "Filled", "Cancelled"] as const),
  createdAt: EpochSeconds,
  closedAt: EpochSeconds,
  loan: Nullable(Pubkey),
});

/** A request with what a lender weighs: the collateral's value at the oracle's valuation and the implied LTV. */
export function toRequestView(row: RequestRow, valuation: TxValuation): Static<typeof RequestSchema> {
  const value = row.isDefi
    ? valuation.convert(BigInt(row.collateralAmount), row.collateralMint, row.currency)
    : valuation.nftValue(row.collection, row.currency);
  const terms = getRequestFillTerms({
    status: row.status,
    borrower: row.borrower,
    isDefi: row.isDefi,
    currency: row.currency,
    principal: BigInt(row.principal),
    durationSeconds: row.duration,
    maxAprBps: row.maxAprBps,
  });
  return {
    pubkey: row.pubkey,
    borrower: row.borrower,
    currency: row.currency,
    collateralMint: row.collateralMint,
    collection: row.collection,
    collectionName: valuation.name(row.collection) ?? null,
    isDefi: row.isDefi,
    collateralAmount: row.collateralAmount,
    principal: row.principal,
    duration: row.duration,
    maxApr: row.maxAprBps,
    interestAtMaxApr: terms.interest.toString(),
    collateralValue: value === null ? null : value.toString(),
    ltvBps: getRequestLtvBps(BigInt(row.principal), value),
    status: row.status,
    createdAt: row.createdAt,
    closedAt: row.closedAt,
    loan: row.loan,
  };
}

/** Read routes of loan requests. */
export function registerRequestRoutes(app: FastifyInstance, ctx: AppContext): void {
  getRoute<Static<typeof ListQuery> & { limit: number; offset: number }, unknown>(
    app,
    "/loan-request/list",
    {
      description:
        "Loan requests, newest first: by status, currency, collection (or collateral mint) and borrower, with the collateral's value at the oracle's valuation and the implied LTV.",
      tags: ["loans"],
      querystring: ListQuery,
      response: withErrors({
        200: Type.Object({ requests: Type.Array(RequestSchema), totalCount: Type.Integer() }),
      }),
    },
    async (query) => {
      const [page, valuation] = await Promise.all([
        listRequests(ctx.db, {
          ...(query.status !== undefined ? { status: STATUS[query.status] } : {}),
          ...(query.currency !== undefined ? { currency: query.currency } : {}),
          ...(query.collection !== undefined ? { collection: query.collection } : {}),
          ...(query.borrower !== undefined ? { borrower: query.borrower } : {}),
          limit: query.limit,
          offset: query.offset,
        }),
        loadTxValuation(ctx),
      ]);
      return { requests: page.requests.map((r) => toRequestView(r, valuation)), totalCount: page.total };
    },
  );
}
