import { useApiQuery } from "../../kit/api.ts";

/** A loan request as GET /loan-request/list answers it, amounts as bigint base units. */
export interface LoanRequestView {
  pubkey: string;
  borrower: string;
  currency: string;
  collateralMint: string;
  collection: string;
  collectionName: string | null;
  isDefi: boolean;
  collateralAmount: bigint;
  principal: bigint;
  durationSeconds: number;
  maxAprBps: number;
  interestAtMaxApr: bigint;
  /** The collateral's value at the oracle's valuation, currency base units; null when unknown. */
  collateralValue: bigint | null;
  ltvBps: number | null;
  status: "Open" | "Filled" | "Cancelled";
  createdAt: number;
  closedAt: number;
  loan: string | null;
}

const big = (value: unknown) => BigInt(String(value ?? "0"));

/** GET /loan-request/list, parsed. */
export function parseRequestList(body: unknown): { requests: LoanRequestView[]; totalCount: number } {
  const b = body as { requests?: Record<string, unknown>[]; totalCount?: number };
  return {
    totalCount: Number(b.totalCount ?? 0),
    requests: (b.requests ?? []).map((r) => ({
      pubkey: String(r.pubkey),
      borrower: String(r.borrower),
      currency: String(r.currency),
      collateralMint: String(r.collateralMint),
      collection: String(r.collection),
      collectionName: typeof r.collectionName === "string" ? r.collectionName : null,
      isDefi: r.isDefi === true,
      collateralAmount: big(r.collateralAmount),
      principal: big(r.principal),
      durationSeconds: Number(r.duration ?? 0),
      maxAprBps: Number(r.maxApr ?? 0),
      interestAtMaxApr: big(r.interestAtMaxApr),
      collateralValue:
        r.collateralValue === null || r.collateralValue === undefined ? null : big(r.collateralValue),
      ltvBps: typeof r.ltvBps === "number" ? r.ltvBps : null,
      status: String(r.status) as LoanRequestView["status"],
      createdAt: Number(r.createdAt ?? 0),
      closedAt: Number(r.closedAt ?? 0),
      loan: typeof r.loan === "string" ? r.loan : null,
    })),
  };
}

/** Open requests in one currency (scope "loans": posting, cancelling and filling refresh it). */
export function useOpenRequests(currency: string) {
  return useApiQuery(
    "loans",
    "/loan-request/list",
    { status: "open", currency, limit: 100 },
    parseRequestList,
    {
      refetchIntervalMs: 30_000,
    },
  );
}

/** A wallet's requests, any status. */
export function useWalletRequests(borrower: string) {
  return useApiQuery("loans", "/loan-request/list", { borrower, limit: 100 }, parseRequestList, {
    refetchIntervalMs: 30_000,
  });
}
