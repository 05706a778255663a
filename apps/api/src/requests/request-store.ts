import type { RequestAccount } from "@cistern/sdk";
import type { Queryable, SqlValue } from "../db/database.ts";

/** Writes a Request account read at `slot`; a row from a newer slot is never overwritten. */
export async function upsertRequest(
  q: Queryable,
  pubkey: string,
  request: RequestAccount,
  slot: number,
): Promise<void> {
  await q.query(
    `INSERT INTO loan_requests (pubkey, borrower, currency, collateral_mint, collection, is_defi, collateral_amount,
       principal, duration, max_apr_bps, status, created_at, closed_at, loan, slot)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (pubkey) DO UPDATE SET status = EXCLUDED.status, closed_at = EXCLUDED.closed_at,
       loan = EXCLUDED.loan, slot = EXCLUDED.slot
     WHERE loan_requests.slot <= EXCLUDED.slot`,
    [
      pubkey,
      request.borrower,
      request.currencyMint,
      request.collateralMint,
      request.collection,
      request.isDefi,
      request.collateralAmount,
      request.principal,
      request.durationSeconds,
      request.maxAprBps,
      request.status,
      request.createdAt,
      request.closedAt,
      request.loan,
      slot,
    ],
  );
}

/** A loan request as the read routes list it (amounts in base units as decimal strings). */
export interface RequestRow {
  pubkey: string;
  borrower: string;
  currency: string;
  collateralMint: string;
  collection: string;
  isDefi: boolean;
  collateralAmount: string;
  principal: string;
  duration: number;
  maxAprBps: number;
  status: "Open" | "Filled" | "Cancelled";
  createdAt: number;
  closedAt: number;
  loan: string | null;
}

/** Which requests to list: any combination of status, currency, collection and borrower. */
export interface RequestFilter {
  status?: RequestRow["status"];
  currency?: string;
  collection?: string;
  borrower?: string;
  limit: number;
  offset: number;
}

/** Requests matching `filter`, newest first, with the total count. */
export async function listRequests(
  q: Queryable,
  filter: RequestFilter,
): Promise<{ total: number; requests: RequestRow[] }> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const add = (column: string, value: SqlValue) => {
    params.push(value);
    where.push(`${column} = $${params.length}`);
  };
  if (filter.status !== undefined) add("status", filter.status);
  if (filter.currency !== undefined) add("currency", filter.currency);
  if (filter.collection !== undefined) add("collection", filter.collection);
  if (filter.borrower !== undefined) add("borrower", filter.borrower);
  const clause = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
  const [count] = await q.query<{ n: unknown }>(`SELECT count(*) AS n FROM loan_requests ${clause}`, params);
  const rows = await q.query<Record<string, unknown>>(
    `SELECT * FROM loan_requests ${clause} ORDER BY created_at DESC, pubkey
     LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, filter.limit, filter.offset],
  );
  return { total: Number(count?.n ?? 0), requests: rows.map(toRow) };
}

/** One request by address, or null. */
export async function getRequestRow(q: Queryable, pubkey: string): Promise<RequestRow | null> {
  const rows = await q.query<Record<string, unknown>>("SELECT * FROM loan_requests WHERE pubkey = $1", [
    pubkey,
  ]);
  return rows[0] === undefined ? null : toRow(rows[0]);
}

function toRow(r: Record<string, unknown>): RequestRow {
  return {
    pubkey: String(r.pubkey),
    borrower: String(r.borrower),
    currency: String(r.currency),
    collateralMint: String(r.collateral_mint),
    collection: String(r.collection),
    isDefi: Boolean(r.is_defi),
    collateralAmount: String(r.collateral_amount),
    principal: String(r.principal),
    duration: Number(r.duration),
    maxAprBps: Number(r.max_apr_bps),
    status: String(r.status) as RequestRow["status"],
    createdAt: Number(r.created_at),
    closedAt: Number(r.closed_at),
    loan: r.loan === null || r.loan === undefined ? null : String(r.loan),
  };
}
