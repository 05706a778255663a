import { Type } from "@sinclair/typebox";
import { readBigInt, readNumber } from "../db/database.ts";
import { BaseUnitsString, EpochSeconds, NullableString, Pubkey } from "../http/schemas.ts";

export const ACTIVITY_COLUMNS =
  "loan, kind, signature, actor, at, pool, borrower, lender, currency, collection, amount";

export interface ActivityRow {
  loan: string;
  kind: string;
  signature: string | null;
  actor: string | null;
  at: unknown;
  pool: string;
  borrower: string;
  lender: string;
  currency: string;
  collection: string;
  amount: unknown;
}

/** A loan event: taken, repaid, extended, refinanced, liquidated or sold. */
export const ActivitySchema = Type.Object({
  loan: Pubkey,
  kind: Type.String({ description: "taken | repaid | extended | refinanced | liquidated | sold" }),
  signature: NullableString({ description: "transaction signature when known" }),
  actor: NullableString({
    description:
      "the wallet that signed and paid for the transaction, when known: for a liquidation, who liquidated " +
      "(a lender, anyone, or the API's liquidation keeper)",
  }),
  at: EpochSeconds,
  pool: Pubkey,
  borrower: Pubkey,
  lender: Pubkey,
  currency: Pubkey,
  collection: Pubkey,
  amount: {
    ...BaseUnitsString,
    description: "taken: principal; repaid/extended/refinanced: amount repaid; else principal",
  },
});

export function toActivityView(row: ActivityRow) {
  return {
    loan: row.loan,
    kind: row.kind,
    signature: row.signature,
    actor: row.actor,
    at: readNumber(row.at),
    pool: row.pool,
    borrower: row.borrower,
    lender: row.lender,
    currency: row.currency,
    collection: row.collection,
    amount: readBigInt(row.amount).toString(),
  };
}
