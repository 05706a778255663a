import { isCodedError } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { Pubkey, withErrors } from "../../http/schemas.ts";
import { parseBaseUnits } from "../builder/builder-schemas.ts";
import { takeLoanPlan } from "../builder/loan-builder.ts";
import { requireOngoingLoan } from "../builder/ongoing-loan.ts";
import { type BuildOptionsInput, parseBuildOptions } from "../builder/priority-fees.ts";
import { findRefinanceOffer } from "../builder/refinance-builder.ts";
import { measurePlanCosts } from "../builder/route-kit.ts";
import { decodeLookupTableAddresses } from "../chain/lookup-table-account.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, toRequestError } from "../tx-errors.ts";
import { resolveNft } from "./collateral.ts";
import { quoteLeastCollateral } from "./least-collateral.ts";
import { fetchLiquiditySummaries, LiquiditySummarySchema } from "./liquidity-summary.ts";
import { quoteMargins } from "./margin-quotes.ts";
import {
  DefiQuoteBody,
  ExtendQuoteBody,
  MarginQuoteSchema,
  MultiQuoteBody,
  NftQuoteBody,
  QuoteSchema,
} from "./quote-schemas.ts";
import { quoteLoan } from "./quote-service.ts";
import { loadTxValuation } from "./valuation.ts";

interface NftQuote {
  collection?: string;
  nftMint?: string;
  duration: number;
  amount?: string;
  currency?: string;
  pool?: string;
  borrower?: string;
  options?: BuildOptionsInput;
}
interface DefiQuote {
  collateralMint: string;
  collateralAmount: string;
  duration: number;
  amount?: string;
  currency?: string;
  pool?: string;
  borrower?: string;
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** Resolves the collection of an nft quote body (from the NFT's verified metadata when a mint is given). */
export async function nftCollection(
  tx: TxContext,
  body: { collection?: string; nftMint?: string },
): Promise<string> {
  if (body.nftMint !== undefined) {
    const { collection } = await resolveNft(tx, body.nftMint);
    if (body.collection !== undefined && body.collection !== collection)
      throw badRequest(`NFT ${body.nftMint} belongs to collection ${collection}, not ${body.collection}`);
    return collection;
  }
  if (body.collection === undefined) throw badRequest("collection or nftMint is required");
  return body.collection;
}

/** Loan calculator routes: quotes and the configuration the borrow screens read. */
export function registerCalculatorRoutes(app: FastifyInstance, tx: TxContext): void {
  const quoteSchema = (description: string, body: unknown) => ({
    description,
    tags: ["loan calculator"],
    body,
    response: withErrors({ 200: QuoteSchema }),
  });
  const wrap =
    <B>(fn: (body: B) => Promise<unknown>) =>
    async (request: { body: unknown }) => {
      try {
        return await fn(request.body as B);
      } catch (error) {
        throw toRequestError(error);
      }
    };

  app.post(
    "/nft/quote",
    {
      schema: quoteSchema("Best pool and terms for borrowing against one NFT of a collection.", NftQuoteBody),
    },
    wrap<NftQuote>(async (b) => {
      const collection = await nftCollection(tx, b);
      const r = await quoteLoan(tx, {
        poolType: "nft-pool",
        collateralId: collection,
        collateralAmount: 1n,
        durationSeconds: b.duration,
        ...optional("amount", b.amount === undefined ? undefined : parseBaseUnits("amount", b.amount)),
        ...optional("currency", b.currency),
        ...optional("pool", b.pool),
        ...optional("borrower", b.borrower),
      });
      if (b.nftMint === undefined || b.borrower === undefined) return r.quote;
      // naming the NFT and the borrower: the SOL the loan's transaction takes, measured on the transaction the
      // build issues for these terms (its standard decides the accounts it opens)
      const plan = await takeLoanPlan(tx, false, {
        borrower: b.borrower,
        collateralMint: b.nftMint,
        collateralAmount: 1n,
        durationSeconds: b.duration,
        amount: BigInt(r.quote.amount),
        pool: r.quote.pool,
      });
      const options = parseBuildOptions(b.options, tx.config.maxPriorityFeeLamports);
      const [costs] = await measurePlanCosts(tx, plan, options);
      return { ...r.quote, costs: costs ?? null };
    }),
  );

  app.post(
    "/defi/quote",
    {
      schema: quoteSchema(
        "Best pool and terms for borrowing against an amount of a collateral token.",
        DefiQuoteBody,
      ),
    },
    wrap<DefiQuote>(async (b) => {
      const r = await quoteLoan(tx, {
        poolType: "defi-pool",
        collateralId: b.collateralMint,
        collateralAmount: parseBaseUnits("collateralAmount", b.collateralAmount),
        durationSeconds: b.duration,
        ...optional("amount", b.amount === undefined ? undefined : parseBaseUnits("amount", b.amount)),
        ...optional("currency", b.currency),
        ...optional("pool", b.pool),
        ...optional("borrower", b.borrower),
      });
      return r.quote;
    }),
  );

  for (const [prefix, isDefi] of [
    ["/nft", false],
    ["/defi", true],
  ] as const) {
    app.post(
      `${prefix}/extend-quote`,
      {
        schema: quoteSchema(
          "Terms of extending an ongoing loan in its pool (new duration, optional new amount; default the old principal).",
          ExtendQuoteBody,
        ),
      },
      wrap<{ loan: string; duration: number; amount?: string }>(async (b) => {
        const loan = await requireOngoingLoan(tx, b.loan, isDefi, true);
        const now = await tx.clock.unixTime();
        const r = await quoteLoan(
          tx,
          {
            poolType: isDefi ? "defi-pool" : "nft-pool",
            collateralId: loan.collection,
            collateralAmount: loan.collateralAmount,
            durationSeconds: b.duration,
            amount: b.amount === undefined ? loan.principal : parseBaseUnits("amount", b.amount),
            pool: loan.pool,
            borrower: loan.borrower,
            extending: loan,
          },
          now,
        );
        return r.quote;
      }),
    );
  }

  app.post(
    "/defi/multi-quote",
    {
      schema: {
        description:
          "Quotes of every defi-pool that can lend against the collateral (mode borrow), or margin terms for a down payment (mode margin), best first.",
        tags: ["loan calculator"],
        body: MultiQuoteBody,
        response: withErrors({
          200: Type.Object({
            tag: Type.Optional(Type.String()),
            quotes: Type.Array(QuoteSchema),
            margins: Type.Optional(Type.Array(MarginQuoteSchema)),
          }),
        }),
      },
    },
    wrap<{
      currencyIn: string;
      amountIn: string;
      order?: "apr" | "amount";
      pool?: string;
      borrower?: string;
      minDurationInDays?: number;
      tag?: string;
      mode?: "borrow" | "margin";
      isReverse?: boolean;
      currency?: string;
      jupSlippage?: number;
    }>(async (b) => {
      const durationSeconds = (b.minDurationInDays ?? 1) * 86_400;
      const amountIn = parseBaseUnits("amountIn", b.amountIn);
      if (amountIn <= 0n) throw badRequest("amountIn must be positive");
      if (b.mode === "margin") {
        if (b.currency === undefined && b.pool === undefined)
          throw badRequest("margin mode needs the down payment's currency (currency) or a pool");
        const margins = await quoteMargins(tx, {
          collateralMint: b.currencyIn,
          durationSeconds,
          ...(b.isReverse ? { principal: amountIn } : { downPayment: amountIn }),
          ...optional("currency", b.currency),
          ...optional("pool", b.pool),
          ...optional("borrower", b.borrower),
          ...optional("slippageBps", b.jupSlippage),
        });
        if (b.order === "apr") margins.sort((x, y) => x.apr - y.apr);
        return { ...optional("tag", b.tag), quotes: [], margins };
      }
      if (b.jupSlippage !== undefined) throw badRequest("jupSlippage applies to mode margin only");
      if (b.isReverse) {
        if (b.currency === undefined)
          throw badRequest("isReverse needs the currency of the principal (currency)");
        const quotes = await quoteLeastCollateral(tx, {
          collateralMint: b.currencyIn,
          currency: b.currency,
          principal: amountIn,
          durationSeconds,
          ...optional("pool", b.pool),
          ...optional("borrower", b.borrower),
        });
        if (b.order === "amount")
          quotes.sort((x, y) => Number(BigInt(x.collateralAmount!) - BigInt(y.collateralAmount!)));
        return { ...optional("tag", b.tag), quotes };
      }
      if (b.currency !== undefined) throw badRequest("currency applies to mode margin or isReverse only");
      const collateralAmount = amountIn;
      const r = await quoteLoan(tx, {
        poolType: "defi-pool",
        collateralId: b.currencyIn,
        collateralAmount,
        durationSeconds,
        ...optional("pool", b.pool),
        ...optional("borrower", b.borrower),
      });
      const quotes = await Promise.all(
        r.offers.map(
          async (o) =>
            (
              await quoteLoan(tx, {
                poolType: "defi-pool",
                collateralId: b.currencyIn,
                collateralAmount,
                durationSeconds,
                pool: o.pool,
                ...optional("borrower", b.borrower),
              })
            ).quote,
        ),
      );
      if (b.order === "amount")
        quotes.sort((x, y) => Number(BigInt(y.maxBorrowAmount) - BigInt(x.maxBorrowAmount)));
      return { ...optional("tag", b.tag), quotes };
    }),
  );

  app.get(
    "/defi/liquidity",
    {
      schema: {
        description:
          "The spec's liquidity summary per currency over the open defi-pools (token collateral), from the indexed " +
          "pools and banks: one entry per loan currency, or for `currency` alone (zeros when no open defi-pool " +
          "lends it). Amounts are base units as decimal strings; APRs basis points rounded up. " +
          "GET /liquidity/summary gives the same summary over every pool type.",
        tags: ["loan calculator"],
        querystring: Type.Object({ currency: Type.Optional(Pubkey) }, { additionalProperties: false }),
        response: withErrors({ 200: Type.Array(LiquiditySummarySchema) }),
      },
    },
    async (request) => {
      const { currency } = request.query as { currency?: string };
      return fetchLiquiditySummaries(tx.app, {
        poolType: "defi-pool",
        ...(currency !== undefined ? { currency } : {}),
      });
    },
  );

  app.get(
    "/defi/whitelist-addresses",
    {
      schema: {
        description: "Addresses on a pool's whitelist (its Address Lookup Table); empty when it has none.",
        tags: ["loan calculator"],
        querystring: Type.Object({ pool: Pubkey }, { additionalProperties: false }),
        response: withErrors({
          200: Type.Object({
            pool: Type.String(),
            whitelist: Type.Union([Type.String(), Type.Null()]),
            addresses: Type.Array(Type.String()),
          }),
        }),
      },
    },
    async (request) => {
      const { pool } = request.query as { pool: string };
      const account = await tx.state.getPool(pool);
      if (account === null) throw badRequest(`unknown pool ${pool}`);
      const table = account.conditions.whitelistEnabled ? account.conditions.whitelist : null;
      if (table === null) return { pool, whitelist: null, addresses: [] };
      const [alt] = await tx.state.getAccounts([table]);
      return { pool, whitelist: table, addresses: alt ? decodeLookupTableAddresses(alt.data) : [] };
    },
  );

  app.get(
    "/loan/refinance-offer",
    {
      schema: {
        description:
          "The best other pool of a loan's currency for the same principal until about the same due date (its " +
          "remaining time in whole days) and what moving there saves: the full-term interest of keeping the loan " +
          "minus the interest owed on it now minus the new loan's interest. null when no other pool can lend " +
          "or moving saves nothing.",
        tags: ["loan calculator"],
        querystring: Type.Object({ loan: Pubkey }, { additionalProperties: false }),
        response: withErrors({
          200: Type.Union([
            Type.Object({
              loan: Type.String(),
              pool: Type.String(),
              apr: Type.Integer({ description: "the new pool's APR, basis points" }),
              duration: Type.Integer({ description: "the new loan's duration, seconds" }),
              currency: Type.String(),
              keepInterest: Type.String(),
              owedNow: Type.String(),
              newInterest: Type.String(),
              saving: Type.String({ description: "base units of the loan's currency" }),
            }),
            Type.Null(),
          ]),
        }),
      },
    },
    async (request) => {
      const { loan: address } = request.query as { loan: string };
      const [account] = await tx.state.getLoans([address]);
      if (account === null || account === undefined) throw badRequest(`unknown loan ${address}`);
      if (account.status !== "Ongoing") return null;
      try {
        const now = await tx.clock.recentUnixTime();
        const found = await findRefinanceOffer(tx, account, account.borrower, now);
        if (found.saving <= 0n) return null;
        return {
          loan: address,
          pool: found.quote.offer.pool,
          apr: found.quote.offer.account.loanAprBps,
          duration: found.durationSeconds,
          currency: account.currencyMint,
          keepInterest: found.keepInterest.toString(),
          owedNow: found.owedNow.toString(),
          newInterest: found.newInterest.toString(),
          saving: found.saving.toString(),
        };
      } catch (error) {
        // no other pool can lend: nothing to offer
        if (isCodedError(error) && (error.code === 4422 || (error.code >= 6000 && error.code < 7000)))
          return null;
        throw error;
      }
    },
  );

  const configEntry = Type.Object({
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    pools: Type.Integer(),
    maxLtv: Type.Integer({ description: "highest LTV of an open pool, basis points" }),
    bestApr: Type.Integer(),
    currencies: Type.Array(Type.String()),
    priceUsd: Type.Union([Type.String(), Type.Null()]),
    floorPrice: Type.Optional(Type.String({ description: "lamports (collections)" })),
    decimals: Type.Optional(Type.Integer()),
  });
  for (const [path, type] of [
    ["/defi/currency-config", "defi-pool"],
    ["/nft/collection-config", "nft-pool"],
  ] as const) {
    app.get(
      path,
      {
        schema: {
          description:
            type === "defi-pool"
              ? "Collateral tokens open defi-pools accept: best LTV and APR, loan currencies, price."
              : "Collections open nft-pools accept: best LTV and APR, loan currencies, floor price.",
          tags: ["loan calculator"],
          response: withErrors({ 200: Type.Array(configEntry) }),
        },
      },
      async () => {
        const [snapshot, valuation] = await Promise.all([tx.state.snapshot(), loadTxValuation(tx.app)]);
        const byId = new Map<
          string,
          { pools: number; maxLtv: number; bestApr: number; currencies: Set<string> }
        >();
        for (const pool of snapshot.pools.values()) {
          if (pool.poolType !== type || pool.status !== "Open") continue;
          for (const c of pool.collections) {
            const e = byId.get(c.id) ?? {
              pools: 0,
              maxLtv: 0,
              bestApr: Number.MAX_SAFE_INTEGER,
              currencies: new Set(),
            };
            e.pools++;
            e.maxLtv = Math.max(e.maxLtv, c.ltvBps);
            e.bestApr = Math.min(e.bestApr, pool.loanAprBps);
            e.currencies.add(pool.currencyMint);
            byId.set(c.id, e);
          }
        }
        return [...byId].map(([id, e]) => ({
          id,
          name: valuation.name(id) ?? null,
          pools: e.pools,
          maxLtv: e.maxLtv,
          bestApr: e.bestApr,
          currencies: [...e.currencies],
          priceUsd: valuation.priceText(id) ?? null,
          ...(type === "nft-pool"
            ? { floorPrice: valuation.floorLamports(id).toString() }
            : { decimals: valuation.decimals(id) }),
        }));
      },
    );
  }
}
