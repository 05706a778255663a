/**
 * The rule-book of loan requests (a borrower posts the terms, a lender fills them): the ONE place that decides
 * whether a request can be posted or filled off chain, in the lending program's order and with its error codes
 * (PostRequest / FillRequest, programs/lending/LAYOUT.md). The API's builders and the web's forms call these;
 * the program enforces the same rules on chain.
 *
 * Units: amounts are bigint base units (principal of the currency, collateral of its mint); times are seconds.
 */
import { ceilDiv } from "./amounts.ts";
import { BPS, MIN_LOAN_DURATION_SECONDS } from "./constants.ts";
import { computeTotalInterest } from "./interest.ts";
import { type OfferRefusal, refuseForDelegatedLiquidity } from "./offer-rules.ts";
import { PROGRAM_ERROR_CODE, type ProgramErrorName } from "./program-errors.ts";

/** Longest request (the program's MAX_POOL_DURATION: 365 days). */
export const MAX_REQUEST_DURATION_SECONDS = 31_536_000;
/** Highest APR a request may accept (the program's MAX_APR_BPS: 1000%). */
export const MAX_REQUEST_APR_BPS = 100_000;

/** What a borrower asks for. */
export interface RequestTermsInput {
  principal: bigint;
  durationSeconds: number;
  maxAprBps: number;
  collateralAmount: bigint;
}

function refuse(name: ProgramErrorName, params: Record<string, string> = {}): OfferRefusal {
  return { code: PROGRAM_ERROR_CODE[name], name, params };
}

/** null when PostRequest would accept these terms; otherwise the program's refusal. */
export function checkRequestTerms(terms: RequestTermsInput): OfferRefusal | null {
  if (terms.principal <= 0n || terms.collateralAmount <= 0n) return refuse("InvalidAmount");
  if (!Number.isInteger(terms.maxAprBps) || terms.maxAprBps < 1 || terms.maxAprBps > MAX_REQUEST_APR_BPS)
    return refuse("InvalidAmount");
  if (
    !Number.isInteger(terms.durationSeconds) ||
    terms.durationSeconds < MIN_LOAN_DURATION_SECONDS ||
    terms.durationSeconds > MAX_REQUEST_DURATION_SECONDS
  )
    return refuse("InvalidDuration", { maxDurationSeconds: String(MAX_REQUEST_DURATION_SECONDS) });
  return null;
}

/** A request as a lender would fill it. */
export interface FillableRequest {
  status: "Open" | "Filled" | "Cancelled";
  borrower: string;
  isDefi: boolean;
  currency: string;
  principal: bigint;
  durationSeconds: number;
  maxAprBps: number;
}

/** The lender's pool and bank a fill draws on. */
export interface FillSource {
  lender: string;
  poolOwner: string;
  poolType: "nft-pool" | "defi-pool";
  bankCurrency: string;
  bankAvailable: bigint;
  /** What the bank delegated to the lending venue (FillRequest cannot pull it back), base units. */
  bankDelegated?: bigint;
}

/** The checks that need no pool: the request is open and `lender` is not its borrower. */
export function checkRequestFillable(request: FillableRequest, lender: string): OfferRefusal | null {
  if (request.status !== "Open") return refuse("RequestNotOpen");
  if (lender === request.borrower) return refuse("SelfFill");
  return null;
}

/**
 * null when FillRequest would accept `source` filling `request` at `aprBps`; otherwise the program's refusal
 * (checked in its order: open, not the borrower, the lender's pool, its kind and currency, the terms, liquidity).
 */
export function checkRequestFill(
  request: FillableRequest,
  source: FillSource,
  aprBps: number,
): OfferRefusal | null {
  if (request.status !== "Open") return refuse("RequestNotOpen");
  if (source.lender === request.borrower) return refuse("SelfFill");
  if (source.poolOwner !== source.lender) return refuse("Unauthorized");
  if (source.poolType !== (request.isDefi ? "defi-pool" : "nft-pool")) return refuse("AccountMismatch");
  if (source.bankCurrency !== request.currency) return refuse("InvalidMint");
  if (!Number.isInteger(aprBps) || aprBps < 1 || aprBps > request.maxAprBps)
    return refuse("RequestTermsMismatch");
  const delegated = source.bankDelegated ?? 0n;
  if (request.principal > source.bankAvailable && request.principal <= source.bankAvailable + delegated)
    return refuseForDelegatedLiquidity({
      mint: request.currency,
      idleBaseUnits: source.bankAvailable,
      delegatedBaseUnits: delegated,
      viewer: "lender",
    });
  if (request.principal > source.bankAvailable)
    return refuse("InsufficientLiquidity", {
      maxAmount: source.bankAvailable.toString(),
      mint: request.currency,
    });
  return null;
}

/** What filling a request means for both sides, at `aprBps` (the request's maximum when absent). */
export interface RequestFillTerms {
  aprBps: number;
  /** Interest over the full duration (the program's formula, rounded up), base units. */
  interest: bigint;
  /** Principal + interest: what the borrower repays at the due date. */
  repayAtDue: bigint;
}

export function getRequestFillTerms(request: FillableRequest, aprBps = request.maxAprBps): RequestFillTerms {
  const interest = computeTotalInterest({
    aprBps,
    principal: request.principal,
    durationSeconds: BigInt(request.durationSeconds),
  });
  return { aprBps, interest, repayAtDue: request.principal + interest };
}

/**
 * The request's loan-to-value in basis points at `collateralValue` (base units of the currency; the oracle's
 * valuation), rounded up (the lender sees the riskier figure); null when the value is unknown or zero.
 */
export function getRequestLtvBps(principal: bigint, collateralValue: bigint | null): number | null {
  if (collateralValue === null || collateralValue <= 0n) return null;
  return Number(ceilDiv(principal * BigInt(BPS), collateralValue));
}
