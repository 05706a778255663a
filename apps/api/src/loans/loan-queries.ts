import type { Queryable } from "../db/database.ts";
import { readNumber } from "../db/database.ts";
import { LOAN_COLUMNS, type LoanRow } from "./loan-view.ts";

/** Columns a loan list may be filtered on (never user input: a fixed whitelist). */
export type LoanFilterColumn = "borrower" | "lender" | "pool" | "collection" | "currency";

export type LoanStatusFilter = "ongoing" | "repaid" | "liquidated" | "sold";

const STATUS_VALUE: Record<LoanStatusFilter, string> = {
  ongoing: "Ongoing",
  repaid: "Repaid",
  liquidated: "Liquidated",
  sold: "Sold",
};

export interface LoanPage {
  rows: LoanRow[];
  totalCount: number;
  ongoingCount: number;
}

/**
 * Loans matching `column = value` (optionally one status), newest first, with the total and ongoing
 * counts over the whole filter (not just the page).
 */
export async function queryLoanPage(
  q: Queryable,
  column: LoanFilterColumn,
  value: string,
  status: LoanStatusFilter | undefined,
  limit: number,
  offset: number,
): Promise<LoanPage> {
  const statusValue = status === undefined ? null : STATUS_VALUE[status];
  const where = `${column} = $1 AND ($2::text IS NULL OR status = $2)`;
  // One round trip: the window counts cover the whole filter, computed before LIMIT/OFFSET.
  const rows = await q.query<LoanRow & { total_count: unknown; ongoing_count: unknown }>(
    `SELECT ${LOAN_COLUMNS}, count(*) OVER () AS total_count,
       count(*) FILTER (WHERE status = 'Ongoing') OVER () AS ongoing_count
     FROM loans WHERE ${where} ORDER BY created_at DESC, pubkey LIMIT $3 OFFSET $4`,
    [value, statusValue, limit, offset],
  );
  if (rows.length > 0) {
    return {
      rows,
      totalCount: readNumber(rows[0]!.total_count),
      ongoingCount: readNumber(rows[0]!.ongoing_count),
    };
  }
  // No row on the first page: nothing matches the filter (the commonest answer to a wallet that has just borrowed,
  // polled until its loan is indexed), so no second query.
  if (offset === 0) return { rows, totalCount: 0, ongoingCount: 0 };
  // An empty page past the end still reports the counts.
  const counts = await q.query<{ total: unknown; ongoing: unknown }>(
    `SELECT count(*) AS total, count(*) FILTER (WHERE status = 'Ongoing') AS ongoing FROM loans WHERE ${where}`,
    [value, statusValue],
  );
  return { rows, totalCount: readNumber(counts[0]?.total), ongoingCount: readNumber(counts[0]?.ongoing) };
}
