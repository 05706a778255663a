/**
 * Loan server view -> parsed loan (spec section 3 "Loan (after parsing)").
 */
import { CisternError, ERROR_CODES } from "./errors.ts";
import {
  capitalizeFirst,
  isRecord,
  type JsonRecord,
  readAmount,
  readEnumTag,
  readNumber,
  readOptionalAmount,
  readOptionalNumber,
  readOptionalString,
  readRecord,
  readSeconds,
  readString,
} from "./server-fields.ts";

/** Loan statuses shown by the product. */
export const LOAN_STATUSES = ["Ongoing", "Repaid", "Liquidated", "Sold"] as const;
export type LoanStatus = (typeof LOAN_STATUSES)[number];

/** Loan kinds. */
export const LOAN_KINDS = ["ClassicLoan", "MarginSwapLoan", "RequestLoan", "Mortgage"] as const;
export type LoanKindName = (typeof LOAN_KINDS)[number];

/**
 * How a closed loan closed, as the program records it (Loan.closedBy): Repaid, Extended (Extend), Refinanced
 * (Refinance: moved to another pool), Liquidated (collateral to the pool owner), Sold (the borrower's MarketSell)
 * or AutoSold (LiquidateSell: sold at liquidation, the proceeds into the lender's bank).
 */
export const LOAN_CLOSINGS = ["Repaid", "Extended", "Refinanced", "Liquidated", "Sold", "AutoSold"] as const;
export type LoanClosedBy = (typeof LOAN_CLOSINGS)[number];

/** NFT standards a loan's collateral can have. */
export const NFT_TYPES = ["Nft", "ProgrammableNft", "CompressedNft", "CoreNft"] as const;
export type NftType = (typeof NFT_TYPES)[number];

/** A loan's kind; margin swaps carry the borrower's down payment (base units). */
export type LoanKind =
  | { type: "ClassicLoan" }
  | { type: "MarginSwapLoan"; downPayment: bigint }
  | { type: "RequestLoan" }
  | { type: "Mortgage" };

/** Sale of a loan's collateral. */
export interface LoanSale {
  /** Base units of the loan currency. */
  salePrice: bigint;
  saleSlot: number;
  saleTransaction: string;
}

/** A parsed loan. Amounts in base units, times in epoch seconds, duration in seconds. */
export interface Loan {
  pubkey: string;
  borrower: string;
  /** Lender (pool owner), when the server gives it. */
  lender: string;
  pool: string;
  /** Loan currency mint. */
  currency: string;
  /** Principal, from `amount` or `borrowedAmount`. */
  amount: bigint;
  /** Collateral amount for token loans (base units of the collateral token); undefined for NFT loans. */
  collateralAmount: bigint | undefined;
  /** Collateral mint (the NFT or the token). */
  collateral: string;
  /** NFT collection id, or the collateral currency id for token loans. */
  collection: string;
  /** True for token (defi) loans: the server sent a collateral amount. */
  isDefi: boolean;
  /** Interest due at expiry, base units. */
  interest: bigint;
  /** Loan rate in basis points, when the server gives it. */
  aprBps: number | undefined;
  duration: number;
  createdAt: number;
  expiredAt: number;
  repaidAt: number;
  liquidatedAt: number;
  soldAt: number;
  /** First letter capitalised: Ongoing, Repaid, Liquidated, Sold. */
  status: string;
  /** NFT type or loan type tag as sent, first letter capitalised ("" when absent). */
  loanType: string;
  kind: LoanKind;
  soldAmount: bigint | undefined;
  sale: LoanSale | undefined;
  metadata: { borrowedAmountUsd: number; collateralAmountUsd: number } | undefined;
  /** The loan that continues this one when an extension closed it (status Repaid); undefined otherwise. */
  extendedTo: string | undefined;
  /**
   * What the borrower paid back (principal + interest) when repaid, base units; for a loan auto-sold at
   * liquidation the sale's proceeds that reached the lender's bank; undefined when not sent.
   */
  repaidAmount: bigint | undefined;
  /** How the loan closed (see LOAN_CLOSINGS); undefined while ongoing or when the server does not say. */
  closedBy: LoanClosedBy | undefined;
}

/** A page of loans. */
export interface LoanList {
  loans: Loan[];
  totalCount: number;
  ongoingCount: number;
}

function readKind(raw: JsonRecord): LoanKind {
  if (raw.kind === undefined || raw.kind === null) return { type: "ClassicLoan" };
  const { tag, payload } = readEnumTag("loan", "kind", raw.kind);
  const name = capitalizeFirst(tag);
  if (name === "MarginSwapLoan" || name === "MarginSwap") {
    const downPayment = payload.downPayment ?? raw.downPayment;
    return {
      type: "MarginSwapLoan",
      downPayment: readOptionalAmount("loan", "kind.downPayment", downPayment),
    };
  }
  if (name === "ClassicLoan" || name === "Classic") return { type: "ClassicLoan" };
  if (name === "RequestLoan" || name === "Request") return { type: "RequestLoan" };
  if (name === "Mortgage") return { type: "Mortgage" };
  throw new CisternError(ERROR_CODES.INVALID_SERVER_FIELD, { entity: "loan", field: "kind", value: tag });
}

function readSale(raw: JsonRecord): LoanSale | undefined {
  if (!isRecord(raw.sale)) return undefined;
  const s = raw.sale;
  return {
    salePrice: readOptionalAmount("loan", "sale.salePrice", s.salePrice),
    saleSlot: readOptionalNumber("loan", "sale.saleSlot", s.saleSlot),
    saleTransaction: readOptionalString("loan", "sale.saleTransaction", s.saleTransaction),
  };
}

/**
 * Parse one loan from the API. `amount` comes from `amount` or else `borrowedAmount`; a loan is a
 * token (defi) loan when `collateralAmount` is present; for a sold token loan `soldAmount` becomes
 * `sale.salePrice`. `expiredAt` defaults to createdAt + duration.
 */
export function parseLoan(input: unknown): Loan {
  const raw = readRecord("loan", "loan", input);
  const e = "loan";
  const amountField = raw.amount ?? raw.borrowedAmount;
  if (amountField === undefined || amountField === null) {
    throw new CisternError(ERROR_CODES.INVALID_SERVER_FIELD, {
      entity: e,
      field: "amount",
      value: "missing",
    });
  }
  const hasCollateralAmount = raw.collateralAmount !== undefined && raw.collateralAmount !== null;
  const collateralAmount = hasCollateralAmount
    ? readAmount(e, "collateralAmount", raw.collateralAmount)
    : undefined;
  const duration = readSeconds(e, "duration", raw.duration);
  const createdAt = readSeconds(e, "createdAt", raw.createdAt);
  const status = capitalizeFirst(readEnumTag(e, "status", raw.status).tag);
  const soldAmount =
    raw.soldAmount === undefined || raw.soldAmount === null
      ? undefined
      : readAmount(e, "soldAmount", raw.soldAmount);
  let sale = readSale(raw);
  if (hasCollateralAmount && status === "Sold" && soldAmount !== undefined) {
    sale = {
      salePrice: soldAmount,
      saleSlot: sale?.saleSlot ?? 0,
      saleTransaction: sale?.saleTransaction ?? "",
    };
  }
  const collateral = readOptionalString(e, "collateral", raw.collateral ?? raw.mint);
  const currency = readOptionalString(e, "currency", raw.currency);
  const collection = hasCollateralAmount
    ? readOptionalString(e, "collection", raw.collection ?? raw.collateralCurrency ?? raw.collateral)
    : readOptionalString(e, "collection", raw.collection);
  const metadata = isRecord(raw.metadata)
    ? {
        borrowedAmountUsd: readOptionalNumber(
          e,
          "metadata.borrowedAmountUsd",
          raw.metadata.borrowedAmountUsd,
        ),
        collateralAmountUsd: readOptionalNumber(
          e,
          "metadata.collateralAmountUsd",
          raw.metadata.collateralAmountUsd,
        ),
      }
    : undefined;
  const aprSource = raw.aprBps ?? raw.apr;
  return {
    pubkey: readString(e, "pubkey", raw.pubkey),
    borrower: readOptionalString(e, "borrower", raw.borrower),
    lender: readOptionalString(e, "lender", raw.lender),
    pool: readOptionalString(e, "pool", raw.pool),
    currency,
    amount: readAmount(
      e,
      raw.amount !== undefined && raw.amount !== null ? "amount" : "borrowedAmount",
      amountField,
    ),
    collateralAmount,
    collateral,
    collection,
    isDefi: hasCollateralAmount,
    interest: readOptionalAmount(e, "interest", raw.interest),
    aprBps: aprSource === undefined || aprSource === null ? undefined : readNumber(e, "aprBps", aprSource),
    duration,
    createdAt,
    expiredAt: readSeconds(e, "expiredAt", raw.expiredAt, createdAt + duration),
    repaidAt: readSeconds(e, "repaidAt", raw.repaidAt),
    liquidatedAt: readSeconds(e, "liquidatedAt", raw.liquidatedAt),
    soldAt: readSeconds(e, "soldAt", raw.soldAt),
    status,
    loanType:
      raw.loanType === undefined || raw.loanType === null
        ? ""
        : capitalizeFirst(readEnumTag(e, "loanType", raw.loanType).tag),
    kind: readKind(raw),
    soldAmount,
    sale,
    metadata,
    extendedTo: typeof raw.extendedTo === "string" && raw.extendedTo !== "" ? raw.extendedTo : undefined,
    repaidAmount:
      raw.repaidAmount === undefined || raw.repaidAmount === null
        ? undefined
        : readOptionalAmount(e, "repaidAmount", raw.repaidAmount),
    closedBy: (LOAN_CLOSINGS as readonly unknown[]).includes(raw.closedBy)
      ? (raw.closedBy as LoanClosedBy)
      : undefined,
  };
}

/** Parse `{ loans, totalCount, ongoingCount }`; counts default to the list length / ongoing loans. */
export function parseLoanList(input: unknown): LoanList {
  const raw = readRecord("loanList", "loanList", input);
  if (!Array.isArray(raw.loans)) {
    throw new CisternError(ERROR_CODES.INVALID_SERVER_FIELD, {
      entity: "loanList",
      field: "loans",
      value: String(raw.loans),
    });
  }
  const loans = raw.loans.map(parseLoan);
  return {
    loans,
    totalCount: readOptionalNumber("loanList", "totalCount", raw.totalCount, loans.length),
    ongoingCount: readOptionalNumber(
      "loanList",
      "ongoingCount",
      raw.ongoingCount,
      loans.filter((l) => l.status === "Ongoing").length,
    ),
  };
}
