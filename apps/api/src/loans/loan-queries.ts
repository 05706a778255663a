import type { Queryable } from "../db/database.ts";
import { readNumber } from "../db/database.ts";
import { LOAN_COLUMNS, type LoanRow } from "./loan-view.ts";

/** Columns a loan list may be filtered on (never user input: a fixed whitelist). */
export type LoanFilterColumn = "borrower" | "lender" | "pool" | "collection" | "currency";

export type LoanStatusFilter = "ongoing" | "repaid" | "liquidated" | "sold";

export const STATUS_VALUE: Record<LoanStatusFilter, string> = {
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
  const rows = await q.query<LoanRow>(
    `SELECT ${LOAN_COLUMNS} FROM loans WHERE ${where} ORDER BY created_at DESC, pubkey LIMIT $3 OFFSET $4`,
    [value, statusValue, limit, offset],
  );
  // A first page shorter than the limit holds every loan of the filter: its counts are its own (the commonest
  // answer: a wallet's few loans, or none while a wallet that has just borrowed polls until its loan is indexed).
  if (offset === 0 && rows.length < limit)
    return {
      rows,
      totalCount: rows.length,
      ongoingCount: rows.filter((row) => row.status === "Ongoing").length,
    };
  // A full page, or a page past the start: the counts over the whole filter.
  const counts = await q.query<{ total: unknown; ongoing: unknown }>(
    `SELECT count(*) AS total, count(*) FILTER (WHERE status = 'Ongoing') AS ongoing FROM loans WHERE ${where}`,
    [value, statusValue],
  );
  return { rows, totalCount: readNumber(counts[0]?.total), ongoingCount: readNumber(counts[0]?.ongoing) };
}

/** Most rows {@link queryBorrowersLoans} reads at once; beyond, it reads nothing (the lists are read per request). */
const MAX_BORROWER_ROWS = 5_000;

/**
 * Every loan of each of `borrowers`, newest first (the order of the loan lists), or null when they hold more than
 * MAX_BORROWER_ROWS loans together.
 */
export async function queryBorrowersLoans(
  q: Queryable,
  borrowers: readonly string[],
): Promise<Map<string, LoanRow[]> | null> {
  const rows = await q.query<LoanRow>(
    `SELECT ${LOAN_COLUMNS} FROM loans WHERE borrower = ANY($1::text[])
     ORDER BY borrower, created_at DESC, pubkey LIMIT ${MAX_BORROWER_ROWS + 1}`,
    [[...borrowers]],
  );
  if (rows.length > MAX_BORROWER_ROWS) return null;
  const byBorrower = new Map<string, LoanRow[]>(borrowers.map((b) => [b, []]));
  for (const row of rows) byBorrower.get(row.borrower)?.push(row);
  return byBorrower;
}

/**
 * The page queryLoanPage answers for `status`, `limit` and `offset` over `all`, every loan of the filter newest
 * first (the same rows and counts, without asking the database).
 */
export function pageOf(
  all: readonly LoanRow[],
  status: LoanStatusFilter | undefined,
  limit: number,
  offset: number,
): LoanPage {
  const matching = status === undefined ? all : all.filter((row) => row.status === STATUS_VALUE[status]);
  return {
    rows: matching.slice(offset, offset + limit),
    totalCount: matching.length,
    ongoingCount: matching.filter((row) => row.status === "Ongoing").length,
  };
}
