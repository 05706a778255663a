import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { TxContext } from "../tx-context.ts";
import { toRequestError } from "../tx-errors.ts";
import { body, Pubkey, parseBaseUnits } from "./builder-schemas.ts";
import { extendPlan, MAX_NFTS_PER_REQUEST, repayPlan, takeLoanPlan, takeLoansPlan } from "./loan-builder.ts";
import { marginSwapPlan } from "./margin-swap-builder.ts";
import { marketSellPlan, quoteMarketSell } from "./market-sell-builder.ts";
import { refinancePlan } from "./refinance-builder.ts";
import { builderRoute, type CommonBody } from "./route-kit.ts";

const Duration = Type.Integer({ minimum: 1, maximum: 31_536_000, description: "seconds (>= 86400)" });
const OptionalAmount = Type.Optional(
  Type.String({ maxLength: 40, description: "principal, base units (the most the pool allows when absent)" }),
);

const NftTakeBody = body({
  borrower: Pubkey,
  nftMint: Pubkey,
  duration: Duration,
  amount: OptionalAmount,
  pool: Type.Optional(Pubkey),
  currency: Type.Optional(Pubkey),
});
const NftTakeManyBody = body({
  borrower: Pubkey,
  nftMints: Type.Array(Pubkey, {
    minItems: 2,
    maxItems: MAX_NFTS_PER_REQUEST,
    description: "the NFTs to borrow against, one loan each",
  }),
  duration: Duration,
  amount: Type.Optional(
    Type.String({
      maxLength: 40,
      description: "principal per NFT, base units (the most the pool allows when absent)",
    }),
  ),
  pool: Type.Optional(Pubkey),
  currency: Type.Optional(Pubkey),
});
const DefiTakeBody = body({
  borrower: Pubkey,
  collateralMint: Pubkey,
  collateralAmount: Type.String({ maxLength: 40, description: "collateral base units" }),
  duration: Duration,
  amount: OptionalAmount,
  pool: Type.Optional(Pubkey),
  currency: Type.Optional(Pubkey),
});
const MarketSellBody = body({
  borrower: Pubkey,
  loan: Pubkey,
  amount: Type.Optional(
    Type.String({ maxLength: 40, description: "collateral to sell, base units (all of it when absent)" }),
  ),
  slippageBps: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 5000,
      default: 100,
      description: "largest slippage accepted, basis points",
    }),
  ),
});
const MarginSwapBody = body({
  borrower: Pubkey,
  collateralMint: Pubkey,
  currency: Type.Optional(Pubkey),
  pool: Type.Optional(Pubkey),
  downPayment: Type.String({ maxLength: 40, description: "down payment, loan currency base units" }),
  amount: Type.String({ maxLength: 40, description: "principal borrowed, loan currency base units" }),
  duration: Duration,
  slippageBps: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 5000,
      default: 100,
      description: "largest slippage accepted, basis points",
    }),
  ),
});
const RepayBody = body({
  borrower: Pubkey,
  loans: Type.Array(Pubkey, { minItems: 1, maxItems: 40, description: "loans to repay (one or many)" }),
});
const RefinanceBody = body({
  borrower: Pubkey,
  loan: Pubkey,
  pool: Type.Optional(Pubkey),
});

const ExtendBody = body({
  borrower: Pubkey,
  loan: Pubkey,
  duration: Duration,
  amount: OptionalAmount,
});

interface TakeCommon extends CommonBody {
  borrower: string;
  duration: number;
  amount?: string;
  pool?: string;
  currency?: string;
}

const amountOf = (b: { amount?: string }) =>
  b.amount === undefined ? {} : { amount: parseBaseUnits("amount", b.amount) };
const filters = (b: TakeCommon) => ({
  ...(b.pool !== undefined ? { pool: b.pool } : {}),
  ...(b.currency !== undefined ? { currency: b.currency } : {}),
});

/** Loan builder routes: take (oracle co-signed), repay (one or many; bundle when they do not fit), extend. */
export function registerLoanBuilderRoutes(app: FastifyInstance, tx: TxContext): void {
  builderRoute<TakeCommon & { nftMint: string }>(
    app,
    tx,
    "/nft/take-loan",
    "Borrow against an NFT in the best (or given) nft-pool. Kind NormalCoSigned: send to /send-cos-transaction.",
    NftTakeBody,
    (b) =>
      takeLoanPlan(tx, false, {
        borrower: b.borrower,
        collateralMint: b.nftMint,
        collateralAmount: 1n,
        durationSeconds: b.duration,
        ...amountOf(b),
        ...filters(b),
      }),
  );
  builderRoute<TakeCommon & { nftMints: string[] }>(
    app,
    tx,
    "/nft/take-loans",
    "Borrow against several NFTs at once, one loan each from the same nft-pool (the best for the first NFT, or " +
      "the one given). Kind BundleCoSigned: one oracle co-signed transaction per loan, sent in order to " +
      "/send-cos-bundle; if the chain refuses one, the loans before it stand and the rest are not sent.",
    NftTakeManyBody,
    (b) =>
      takeLoansPlan(tx, {
        borrower: b.borrower,
        nftMints: b.nftMints,
        durationSeconds: b.duration,
        ...amountOf(b),
        ...filters(b),
      }),
  );
  builderRoute<TakeCommon & { collateralMint: string; collateralAmount: string }>(
    app,
    tx,
    "/defi/take-loan",
    "Borrow against collateral tokens in the best (or given) defi-pool. Kind NormalCoSigned.",
    DefiTakeBody,
    (b) =>
      takeLoanPlan(tx, true, {
        borrower: b.borrower,
        collateralMint: b.collateralMint,
        collateralAmount: parseBaseUnits("collateralAmount", b.collateralAmount),
        durationSeconds: b.duration,
        ...amountOf(b),
        ...filters(b),
      }),
  );
  builderRoute<CommonBody & { borrower: string; loan: string; amount?: string; slippageBps?: number }>(
    app,
    tx,
    "/defi/market-sell",
    "Sell a token loan's collateral (all, or `amount`) on the swap venue and repay the loan from the proceeds in " +
      "one transaction; the borrower keeps the rest. 422 (SaleShort) when the least the sale may bring after " +
      "slippage would not cover what is owed. Kind Normal.",
    MarketSellBody,
    (b) =>
      marketSellPlan(tx, {
        borrower: b.borrower,
        loan: b.loan,
        ...(b.amount !== undefined ? { amount: parseBaseUnits("amount", b.amount) } : {}),
        ...(b.slippageBps !== undefined ? { slippageBps: b.slippageBps } : {}),
      }),
  );
  builderRoute<
    CommonBody & {
      borrower: string;
      collateralMint: string;
      currency?: string;
      pool?: string;
      downPayment: string;
      amount: string;
      duration: number;
      slippageBps?: number;
    }
  >(
    app,
    tx,
    "/defi/margin-swap",
    "Buy `collateralMint` with a down payment plus a loan from a defi-pool (the best, or the one given): both are " +
      "swapped on the swap venue and the tokens locked as the loan's collateral (MarginSwapLoan). The pool's LTV " +
      "applies to the least the swap may deliver after slippage. Kind NormalCoSigned.",
    MarginSwapBody,
    (b) =>
      marginSwapPlan(tx, {
        borrower: b.borrower,
        collateralMint: b.collateralMint,
        downPayment: parseBaseUnits("downPayment", b.downPayment),
        amount: parseBaseUnits("amount", b.amount),
        durationSeconds: b.duration,
        ...(b.currency !== undefined ? { currency: b.currency } : {}),
        ...(b.pool !== undefined ? { pool: b.pool } : {}),
        ...(b.slippageBps !== undefined ? { slippageBps: b.slippageBps } : {}),
      }),
  );
  app.post(
    "/defi/market-sell-quote",
    {
      schema: {
        description:
          "The terms of a market sell before signing: collateral sold and returned, expected and minimum proceeds " +
          "(slippage), price impact, what repays the loan now and what the borrower keeps. 422 SaleShort when the " +
          "minimum would not cover what is owed.",
        tags: ["loan calculator"],
        body: MarketSellBody,
      },
    },
    async (request) => {
      const b = request.body as { borrower: string; loan: string; amount?: string; slippageBps?: number };
      try {
        const { quote } = await quoteMarketSell(tx, {
          borrower: b.borrower,
          loan: b.loan,
          recentLoan: true,
          ...(b.amount !== undefined ? { amount: parseBaseUnits("amount", b.amount) } : {}),
          ...(b.slippageBps !== undefined ? { slippageBps: b.slippageBps } : {}),
        });
        return quote;
      } catch (error) {
        throw toRequestError(error);
      }
    },
  );
  for (const [prefix, isDefi] of [
    ["/nft", false],
    ["/defi", true],
  ] as const) {
    builderRoute<CommonBody & { borrower: string; loans: string[] }>(
      app,
      tx,
      `${prefix}/repay-loan`,
      "Repay one or many loans (principal + owed interest; collateral returned). Loans that do not fit one transaction become a Bundle.",
      RepayBody,
      (b) => repayPlan(tx, isDefi, b),
    );
    builderRoute<CommonBody & { borrower: string; loan: string; pool?: string }>(
      app,
      tx,
      `${prefix}/refinance-loan`,
      "Refinance a loan: move it to the best other pool of its currency (or `pool`) for the same principal until " +
        "about the same due date; the old lender is paid as a repay would pay. Kind NormalCoSigned.",
      RefinanceBody,
      (b) =>
        refinancePlan(tx, isDefi, {
          borrower: b.borrower,
          loan: b.loan,
          ...(b.pool !== undefined ? { pool: b.pool } : {}),
        }),
    );
    builderRoute<CommonBody & { borrower: string; loan: string; duration: number; amount?: string }>(
      app,
      tx,
      `${prefix}/extend-loan`,
      "Extend a loan: repay it and open a new one in the same pool on the same collateral (new duration, optional new amount). Kind NormalCoSigned.",
      ExtendBody,
      (b) =>
        extendPlan(tx, isDefi, {
          borrower: b.borrower,
          loan: b.loan,
          durationSeconds: b.duration,
          ...amountOf(b),
        }),
    );
  }
}
