import { SOL_MINT } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { Valuation } from "../catalog/token-info.ts";
import { readBigInt, readNullableBigInt, readNumber } from "../db/database.ts";
import { BaseUnitsString, EpochSeconds, Pubkey, StringEnum } from "../http/schemas.ts";
import { getUsdValue } from "../prices/usd-value.ts";

/** Columns every loan query selects. */
export const LOAN_COLUMNS = `pubkey, pool, bank, borrower, lender, currency, collateral_mint, collateral_amount,
  collection, is_defi, principal, interest, apr_bps, duration, created_at, expired_at, repaid_at, liquidated_at,
  sold_at, sold_amount, sale_slot, sale_signature, repaid_amount, status, kind, loan_type, down_payment, extended_to,
  EXISTS (SELECT 1 FROM loan_activity WHERE loan_activity.loan = loans.pubkey AND loan_activity.kind = 'refinanced')
    AS refinanced`;

export interface LoanRow {
  pubkey: string;
  pool: string;
  bank: string;
  borrower: string;
  lender: string;
  currency: string;
  collateral_mint: string;
  collateral_amount: unknown;
  collection: string;
  is_defi: boolean;
  principal: unknown;
  interest: unknown;
  apr_bps: unknown;
  duration: unknown;
  created_at: unknown;
  expired_at: unknown;
  repaid_at: unknown;
  liquidated_at: unknown;
  sold_at: unknown;
  sold_amount: unknown;
  sale_slot: unknown;
  sale_signature: string | null;
  down_payment: unknown;
  extended_to: string | null;
  repaid_amount: unknown;
  status: string;
  kind: string;
  loan_type: string;
  /** The indexer recorded a "refinanced" closing event (the chain's closedBy Refinanced). */
  refinanced?: boolean;
}

/** How a closed loan closed (the program's Loan.closedBy), from what the indexer stored of it. */
export type LoanClosedBy = "Repaid" | "Extended" | "Refinanced" | "Liquidated" | "Sold" | "AutoSold";

/**
 * A closed loan's closedBy: Repaid with a continuing loan is Extended, or Refinanced when the indexer recorded that
 * closing event (it writes it from closedBy); Liquidated with proceeds (LiquidateSell sets repaidAmount = proceeds,
 * Liquidate leaves 0) is AutoSold. Undefined while the loan is Ongoing.
 */
export function getLoanClosedBy(row: LoanRow): LoanClosedBy | undefined {
  if (row.status === "Repaid")
    return row.extended_to ? (row.refinanced === true ? "Refinanced" : "Extended") : "Repaid";
  if (row.status === "Liquidated")
    return (readNullableBigInt(row.repaid_amount) ?? 0n) > 0n ? "AutoSold" : "Liquidated";
  if (row.status === "Sold") return "Sold";
  return undefined;
}

/**
 * A loan as the API sends it (before the web app's parse step). `status` is lower case
 * ("ongoing", "repaid", "liquidated", "sold"): the client capitalises it (spec section 3).
 * `collateralAmount` is present only for token (defi) loans, which is how clients tell them apart.
 */
export const LoanSchema = Type.Object(
  {
    pubkey: Pubkey,
    borrower: Pubkey,
    lender: Pubkey,
    pool: Pubkey,
    bank: Pubkey,
    currency: Pubkey,
    amount: BaseUnitsString,
    collateral: Pubkey,
    collateralAmount: Type.Optional(BaseUnitsString),
    collection: Pubkey,
    interest: BaseUnitsString,
    apr: Type.Integer({ description: "basis points (percent x 100)" }),
    duration: Type.Integer({ description: "seconds" }),
    createdAt: EpochSeconds,
    expiredAt: EpochSeconds,
    repaidAt: EpochSeconds,
    liquidatedAt: EpochSeconds,
    soldAt: EpochSeconds,
    repaidAmount: BaseUnitsString,
    soldAmount: {
      ...BaseUnitsString,
      description:
        "the sale's proceeds of a loan sold (MarketSell) or auto-sold at liquidation (LiquidateSell); 0 otherwise",
    },
    sale: Type.Optional(
      Type.Object({
        salePrice: { ...BaseUnitsString, description: "proceeds of the sale, loan currency base units" },
        saleSlot: Type.Integer(),
        saleTransaction: Type.String({
          description:
            "signature of the sale's transaction (MarketSell, or LiquidateSell for an auto-sold loan)",
        }),
      }),
    ),
    status: StringEnum(["ongoing", "repaid", "liquidated", "sold"] as const),
    extendedTo: Type.Optional(
      Type.String({
        description:
          "the loan that continues this one when it was closed by an extension (its status is then repaid)",
      }),
    ),
    closedBy: Type.Optional(
      StringEnum(["Repaid", "Extended", "Refinanced", "Liquidated", "Sold", "AutoSold"] as const, {
        description:
          "how a closed loan closed (the program's Loan.closedBy): Extended / Refinanced continue as extendedTo; " +
          "AutoSold is a liquidation that sold the collateral (repaidAmount = the proceeds the bank received)",
      }),
    ),
    loanType: Type.String({
      description:
        "the collateral's standard: Nft, ProgrammableNft or CoreNft (the loan's nftType on chain), or Token",
    }),
    kind: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "Anchor-style enum tag: { classicLoan: {} } (or requestLoan, mortgage); a margin position's is { marginSwapLoan: { downPayment } } (loan currency base units) once indexed",
      },
    ),
    metadata: Type.Object({
      borrowedAmountUsd: Type.Number({ description: "USD at current prices (display)" }),
      collateralAmountUsd: Type.Number({ description: "USD at current prices (display)" }),
    }),
  },
  { $id: "Loan" },
);

export const LoanListSchema = Type.Object(
  {
    loans: Type.Array(Type.Ref("Loan")),
    totalCount: Type.Integer(),
    ongoingCount: Type.Integer(),
  },
  { $id: "LoanList" },
);

/** USD value of a loan's collateral: NFT -> collection floor (SOL) x SOL price; token -> amount x price. */
export function getCollateralUsd(row: LoanRow, valuation: Valuation): number {
  if (row.is_defi) {
    return getUsdValue(
      readBigInt(row.collateral_amount),
      valuation.decimals(row.collateral_mint),
      valuation.price(row.collateral_mint),
    );
  }
  return getUsdValue(valuation.floorLamports(row.collection), 9, valuation.price(SOL_MINT));
}

/** Maps a loans row to the API shape. */
export function toLoanView(row: LoanRow, valuation: Valuation) {
  const amount = readBigInt(row.principal);
  return {
    pubkey: row.pubkey,
    borrower: row.borrower,
    lender: row.lender,
    pool: row.pool,
    bank: row.bank,
    currency: row.currency,
    amount: amount.toString(),
    collateral: row.collateral_mint,
    ...(row.is_defi ? { collateralAmount: readBigInt(row.collateral_amount).toString() } : {}),
    collection: row.collection,
    interest: readBigInt(row.interest).toString(),
    apr: readNumber(row.apr_bps),
    duration: readNumber(row.duration),
    createdAt: readNumber(row.created_at),
    expiredAt: readNumber(row.expired_at),
    repaidAt: readNumber(row.repaid_at),
    liquidatedAt: readNumber(row.liquidated_at),
    soldAt: readNumber(row.sold_at),
    repaidAmount: (readNullableBigInt(row.repaid_amount) ?? 0n).toString(),
    soldAmount: readBigInt(row.sold_amount).toString(),
    ...(row.sale_signature
      ? {
          sale: {
            salePrice: readBigInt(row.sold_amount).toString(),
            saleSlot: readNumber(row.sale_slot),
            saleTransaction: row.sale_signature,
          },
        }
      : {}),
    status: row.status.toLowerCase() as "ongoing" | "repaid" | "liquidated" | "sold",
    ...(row.extended_to ? { extendedTo: row.extended_to } : {}),
    ...(getLoanClosedBy(row) ? { closedBy: getLoanClosedBy(row) } : {}),
    loanType: row.loan_type,
    kind: {
      [row.kind.charAt(0).toLowerCase() + row.kind.slice(1)]:
        row.down_payment === null || row.down_payment === undefined
          ? {}
          : { downPayment: readBigInt(row.down_payment).toString() },
    },
    metadata: {
      borrowedAmountUsd: getUsdValue(amount, valuation.decimals(row.currency), valuation.price(row.currency)),
      collateralAmountUsd: getCollateralUsd(row, valuation),
    },
  };
}
