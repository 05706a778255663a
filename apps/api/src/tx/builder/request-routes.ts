import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { TxContext } from "../tx-context.ts";
import { body, Pubkey, parseBaseUnits } from "./builder-schemas.ts";
import { cancelRequestPlan, fillRequestPlan, postRequestPlan } from "./request-builder.ts";
import { builderRoute, type CommonBody } from "./route-kit.ts";

const Duration = Type.Integer({ minimum: 1, maximum: 31_536_000, description: "seconds (86400..31536000)" });
const MaxApr = Type.Integer({
  minimum: 1,
  maximum: 100_000,
  description: "highest APR accepted, basis points",
});
const Amount = Type.String({ maxLength: 40, description: "principal asked for, loan currency base units" });

const NftPostBody = body({
  borrower: Pubkey,
  nftMint: Pubkey,
  currency: Pubkey,
  amount: Amount,
  duration: Duration,
  maxApr: MaxApr,
});
const DefiPostBody = body({
  borrower: Pubkey,
  collateralMint: Pubkey,
  collateralAmount: Type.String({ maxLength: 40, description: "collateral base units" }),
  currency: Pubkey,
  amount: Amount,
  duration: Duration,
  maxApr: MaxApr,
});
const CancelBody = body({ borrower: Pubkey, request: Pubkey });
const FillBody = body({
  lender: Pubkey,
  request: Pubkey,
  pool: Type.Optional(Pubkey),
  apr: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100_000,
      description: "the fill's APR, basis points (the request's maximum when absent)",
    }),
  ),
});

interface PostCommon extends CommonBody {
  borrower: string;
  currency: string;
  amount: string;
  duration: number;
  maxApr: number;
}

/** Builder routes of loan requests (post, cancel, fill). */
export function registerRequestBuilderRoutes(app: FastifyInstance, tx: TxContext): void {
  const terms = (b: PostCommon) => ({
    borrower: b.borrower,
    currency: b.currency,
    amount: parseBaseUnits("amount", b.amount),
    durationSeconds: b.duration,
    maxAprBps: b.maxApr,
  });
  builderRoute<PostCommon & { nftMint: string }>(
    app,
    tx,
    "/nft/post-loan-request",
    "Post a loan request against an NFT: the NFT goes into the request's custody with the terms asked for (currency, amount, duration, highest APR): a classic NFT into its escrow, a Core asset or a compressed NFT (its proof read from DAS at build time) to the request itself, a programmable NFT into the request's own associated token account (its rule set asked in a simulation: 422 TRANSACTION_SEND_RULE_SET_REFUSED when it would refuse). Kind Normal.",
    NftPostBody,
    (b) => postRequestPlan(tx, false, { ...terms(b), collateralMint: b.nftMint, collateralAmount: 1n }),
  );
  builderRoute<PostCommon & { collateralMint: string; collateralAmount: string }>(
    app,
    tx,
    "/defi/post-loan-request",
    "Post a loan request against tokens: the tokens go into the request's escrow with the terms asked for. Kind Normal.",
    DefiPostBody,
    (b) =>
      postRequestPlan(tx, true, {
        ...terms(b),
        collateralMint: b.collateralMint,
        collateralAmount: parseBaseUnits("collateralAmount", b.collateralAmount),
      }),
  );
  builderRoute<CommonBody & { borrower: string; request: string }>(
    app,
    tx,
    "/loan-request/cancel",
    "Cancel an open loan request: the collateral returns to the borrower. Kind Normal.",
    CancelBody,
    (b) => cancelRequestPlan(tx, b),
  );
  builderRoute<CommonBody & { lender: string; request: string; pool?: string; apr?: number }>(
    app,
    tx,
    "/loan-request/fill",
    "Fill an open loan request from one of the lender's pools (the one named, else the lender's pool of the request's kind with the most available in its currency): the borrower receives the principal and the collateral passes from the request's custody to the new loan's (a compressed NFT with a proof read from DAS at build time). Kind Normal.",
    FillBody,
    (b) =>
      fillRequestPlan(tx, {
        lender: b.lender,
        request: b.request,
        ...(b.pool !== undefined ? { pool: b.pool } : {}),
        ...(b.apr !== undefined ? { aprBps: b.apr } : {}),
      }),
  );
}
