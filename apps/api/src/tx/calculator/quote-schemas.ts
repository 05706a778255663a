import { Type } from "@sinclair/typebox";
import { Pubkey } from "../../http/schemas.ts";
import { BuildOptions } from "../builder/builder-schemas.ts";

const Str = Type.String();

const RentLine = Type.Object({
  account: Str,
  label: Str,
  bytes: Type.Integer(),
  lamports: Str,
});

/** A transaction's costs to its wallet (protocol TransactionCostsJson), lamports as decimal strings. */
export const TransactionCostsSchema = Type.Object({
  baseFeeLamports: Str,
  priorityFeeLamports: Str,
  tipLamports: Str,
  rent: Type.Array(RentLine),
  rentBack: Type.Array(RentLine),
  totalLamports: Str,
});

/** Loan quote answer (spec section 3 "Loan quote"): base-unit amounts as decimal strings. */
export const QuoteSchema = Type.Object({
  amount: Type.String({ description: "principal, base units of `currency`" }),
  duration: Type.Integer({ description: "seconds" }),
  interest: Type.String({ description: "total interest at expiry (rounded up)" }),
  cisternFees: Type.String({ description: "Cistern's share of the interest (20%, rounded down)" }),
  apr: Type.Integer({ description: "basis points" }),
  currency: Pubkey,
  bank: Pubkey,
  authorization: Type.String({ description: "oracle key that co-signs the loan transaction" }),
  pool: Pubkey,
  poolData: Type.Object({
    borrowedLiquidity: Str,
    totalLiquidity: Str,
    availableLiquidity: Str,
    currency: Str,
    conditions: Type.Object({
      isEnabled: Type.Boolean(),
      minAge: Str,
      minLoan: Str,
      minVolume: Str,
      whitelistEnabled: Type.Boolean(),
    }),
  }),
  requiredRepayment: Type.String({ description: "amount + interest at expiry" }),
  netBorrowAmount: Type.String({
    description: "what the borrower receives (extend: the principal increase)",
  }),
  maxBorrowAmount: Type.String({ description: "most this pool lends against this collateral now" }),
  minBorrowAmount: Type.String({
    description: "least this pool lends (its minimum USD amount at the attested price)",
  }),
  collateralValue: Type.String({ description: "collateral value in base units of `currency` (attested)" }),
  expiresAt: Type.Integer({ description: "epoch seconds, if the loan were taken now (chain time)" }),
  graceSeconds: Type.Integer({ description: "after expiry, before anyone may liquidate" }),
  liquidatableAfter: Type.Integer({ description: "epoch seconds: expiresAt + graceSeconds" }),
  costs: Type.Optional(
    Type.Union([TransactionCostsSchema, Type.Null()], {
      description:
        "nft quote naming nftMint and borrower: the SOL the loan's transaction takes besides the loan (fee, rent of " +
        "the accounts it opens, less rent closed to the wallet), measured on the transaction the build issues",
    }),
  ),
  collateralAmount: Type.Optional(
    Type.String({
      description:
        "multi-quote isReverse: the least collateral (base units) this pool lends `amount` against",
    }),
  ),
  accruedInterestDue: Type.Optional(
    Type.String({ description: "extend: interest owed on the old loan now" }),
  ),
  repaymentDue: Type.Optional(Type.String({ description: "extend: owed interest + any principal decrease" })),
  amountInUsd: Type.Optional(Type.Number()),
  interestInUsd: Type.Optional(Type.Number()),
  cisternFeesInUsd: Type.Optional(Type.Number()),
});

const Duration = Type.Integer({
  minimum: 1,
  maximum: 31_536_000,
  description: "loan duration, seconds (>= 86400)",
});
const OptionalAmount = Type.Optional(
  Type.String({ maxLength: 40, description: "principal, base units (max when absent)" }),
);

export const NftQuoteBody = Type.Object(
  {
    collection: Type.Optional(Pubkey),
    nftMint: Type.Optional(Pubkey),
    duration: Duration,
    amount: OptionalAmount,
    currency: Type.Optional(Pubkey),
    pool: Type.Optional(Pubkey),
    borrower: Type.Optional(Pubkey),
    options: Type.Optional(BuildOptions),
  },
  { additionalProperties: false, description: "collection or nftMint is required" },
);

export const DefiQuoteBody = Type.Object(
  {
    collateralMint: Pubkey,
    collateralAmount: Type.String({ maxLength: 40, description: "base units of the collateral" }),
    duration: Duration,
    amount: OptionalAmount,
    currency: Type.Optional(Pubkey),
    pool: Type.Optional(Pubkey),
    borrower: Type.Optional(Pubkey),
  },
  { additionalProperties: false },
);

export const ExtendQuoteBody = Type.Object(
  { loan: Pubkey, duration: Duration, amount: OptionalAmount },
  { additionalProperties: false },
);

export const MultiQuoteBody = Type.Object(
  {
    currencyIn: Pubkey,
    amountIn: Type.String({
      maxLength: 40,
      description: "base units: collateral (borrow) or down payment (margin)",
    }),
    order: Type.Optional(Type.Union([Type.Literal("apr"), Type.Literal("amount")])),
    pool: Type.Optional(Pubkey),
    borrower: Type.Optional(Pubkey),
    minDurationInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
    tag: Type.Optional(Type.String({ maxLength: 64 })),
    mode: Type.Optional(Type.Union([Type.Literal("borrow"), Type.Literal("margin")])),
    isReverse: Type.Optional(
      Type.Boolean({
        description:
          "amountIn is the principal wanted (in `currency`): borrow mode answers the least collateral per pool, margin mode the least down payment",
      }),
    ),
    currency: Type.Optional(Pubkey),
    jupSlippage: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 5_000,
        description: "margin mode: swap slippage, bps (default 100)",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "mode borrow (default): one quote per defi-pool able to lend against `amountIn` of `currencyIn` (max amount each), for minDurationInDays (default 1). mode margin: `currencyIn` is the token bought, `amountIn` the down payment in `currency` (or the named pool's currency); one margin quote per pool, best leverage first. isReverse: `amountIn` is the principal wanted in `currency` instead (least collateral, or least down payment, per pool).",
  },
);

export const MarginQuoteSchema = Type.Object({
  pool: Type.String(),
  currency: Type.String(),
  apr: Type.Integer(),
  leverage: Type.Number(),
  maxLeverage: Type.Number(),
  downPayment: Type.String(),
  principal: Type.String(),
  expectedCollateral: Type.String(),
  minimumCollateral: Type.String(),
  interest: Type.String(),
  priceImpactPct: Type.String(),
  slippageBps: Type.Integer(),
});
