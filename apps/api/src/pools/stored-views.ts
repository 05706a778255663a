import { type BankRow, toBankView } from "../banks/bank-view.ts";
import type { Queryable } from "../db/database.ts";
import { POOL_COLUMNS, POOL_FROM, type PoolRow, toPoolView } from "./pool-view.ts";

/**
 * pools.view_json and banks.view_json hold each row's API view as JSON text, so /dirty/pools is composed by
 * PostgreSQL without per-row work in the API. A pool's view joins its bank's liquidity and its off-chain name, so
 * every write of a pool, of its bank or of its name rewrites it here.
 */

/** The NOTIFY channel of view JSON writes: every API process drops its cached pool lists when it hears one. */
export const POOL_LIST_CHANNEL = "pool_list_changed";

/** Tells every API process (delivered at commit when inside a transaction, once however often it is said). */
async function announceListChange(q: Queryable): Promise<void> {
  await q.query("SELECT pg_notify($1, '')", [POOL_LIST_CHANNEL]);
}

/**
 * Rewrites the view JSON of the pools where `column` = `value` (one pool, or the pools of a bank) from their rows
 * joined with their banks, and tells every API process.
 */
export async function refreshPoolViews(
  q: Queryable,
  column: "pubkey" | "bank",
  value: string,
): Promise<void> {
  if ((await writePoolViews(q, `p.${column} = $1`, value)) > 0) await announceListChange(q);
}

/**
 * Writes the view JSON of the pools matching `condition` ($1 = `value`); answers how many. A row changed by another
 * writer between the read and the write (its xmin moved) is read again, so the last JSON written is always that of
 * the newest row and bank.
 */
async function writePoolViews(q: Queryable, condition: string, value: string | string[]): Promise<number> {
  let rows = await readPools(q, condition, value);
  const count = rows.length;
  while (rows.length > 0) {
    const moved: string[] = [];
    for (const row of rows) {
      const written = await q.query(
        "UPDATE pools SET view_json = $2 WHERE pubkey = $1 AND xmin::text = $3 RETURNING pubkey",
        [row.pubkey, JSON.stringify(toPoolView(row)), row.row_version],
      );
      if (written.length === 0) moved.push(row.pubkey);
    }
    rows = moved.length === 0 ? [] : await readPools(q, "p.pubkey = ANY($1::text[])", moved);
  }
  return count;
}

function readPools(q: Queryable, condition: string, value: string | string[]) {
  return q.query<PoolRow & { row_version: string }>(
    `SELECT p.xmin::text AS row_version, ${POOL_COLUMNS} FROM ${POOL_FROM} WHERE ${condition}`,
    [value],
  );
}

/**
 * Writes the view JSON of bank rows just written (a bank's view is its own row alone). A bank is listed only
 * beside its pools, whose refresh tells the API processes.
 */
export async function storeBankViews(q: Queryable, rows: BankRow[]): Promise<void> {
  for (const row of rows) {
    await q.query("UPDATE banks SET view_json = $2 WHERE pubkey = $1", [
      row.pubkey,
      JSON.stringify(toBankView(row)),
    ]);
  }
}

/**
 * Writes the view JSON of rows that have none (written before migration 010), a batch at a time; run when the API
 * opens its database, so every list answer finds its JSON ready. Returns how many rows it filled.
 */
export async function fillMissingViews(q: Queryable, batch = 500): Promise<number> {
  let filled = 0;
  for (;;) {
    const banks = await q.query<BankRow>("SELECT * FROM banks WHERE view_json IS NULL LIMIT $1", [batch]);
    const pools = await q.query<{ pubkey: string }>(
      "SELECT pubkey FROM pools WHERE view_json IS NULL LIMIT $1",
      [batch],
    );
    if (pools.length === 0 && banks.length === 0) break;
    await storeBankViews(q, banks);
    await writePoolViews(
      q,
      "p.pubkey = ANY($1::text[])",
      pools.map((p) => p.pubkey),
    );
    filled += pools.length + banks.length;
  }
  // one notification for the whole fill
  if (filled > 0) await announceListChange(q);
  return filled;
}
