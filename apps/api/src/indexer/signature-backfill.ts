import type { FastifyBaseLogger } from "fastify";
import type { Database } from "../db/database.ts";
import type { RpcClient } from "../solana/rpc-client.ts";
import { readTransactionFacts } from "./transaction-facts.ts";

const BACKFILL_BATCH = 50;
const SIGNATURES_PER_LOAN = 20;

/**
 * The fallback for loan events the transaction path (the indexer's applyTransaction) did not sign, e.g. after a
 * missed websocket notification or a reindex. Attaches transaction signatures to loan events that have none: a loan's 'taken' event gets the oldest
 * signature touching the loan account, a closing event (repaid, extended, liquidated, sold) the newest.
 * When the RPC lacks getSignaturesForAddress the events keep a null signature. With the signature it reads
 * the transaction: its fee payer becomes the event's actor (who took, repaid or liquidated), a referral the
 * builder recorded for that exact message is linked to the event (signature, loan, kind), and a sale's (MarketSell
 * or LiquidateSell) proceeds, slot and signature or a margin position's down payment are recorded on the loan.
 */
export async function backfillSignatures(
  db: Database,
  rpc: RpcClient,
  programId: string,
  log: Pick<FastifyBaseLogger, "warn">,
): Promise<number> {
  const pending = await db.query<{ loan: string; kind: string }>(
    `SELECT loan, kind FROM loan_activity WHERE signature IS NULL ORDER BY id LIMIT ${BACKFILL_BATCH}`,
  );
  let filled = 0;
  const byLoan = new Map<string, string[]>();
  for (const row of pending) byLoan.set(row.loan, [...(byLoan.get(row.loan) ?? []), row.kind]);
  for (const [loan, kinds] of byLoan) {
    let signatures: { signature: string; slot: number; err: unknown }[];
    try {
      signatures = (await rpc.getSignaturesForAddress(loan, SIGNATURES_PER_LOAN)).filter(
        (s) => s.err === null,
      );
    } catch (error) {
      log.warn({ err: error }, "getSignaturesForAddress unavailable; loan events keep null signatures");
      return filled;
    }
    if (signatures.length === 0) continue;
    // Newest first (RPC order).
    const newest = signatures[0]!.signature;
    const oldest =
      signatures.length < SIGNATURES_PER_LOAN ? signatures[signatures.length - 1]!.signature : null;
    for (const kind of kinds) {
      const signature = kind === "taken" ? oldest : newest;
      if (signature === null || (kind !== "taken" && signatures.length === 1)) continue;
      const facts = await readTransactionFacts(rpc, signature, programId).catch((error: unknown) => {
        log.warn({ err: error, signature }, "getTransaction failed; the event keeps no actor");
        return null;
      });
      await db.query(
        "UPDATE loan_activity SET signature = $3, actor = $4 WHERE loan = $1 AND kind = $2 AND signature IS NULL",
        [loan, kind, signature, facts?.feePayer ?? null],
      );
      if (facts !== null)
        await db.query(
          "UPDATE referrals SET signature = $2, loan = $3, kind = $4 WHERE message_hash = $1 AND signature IS NULL",
          [facts.messageHash, signature, loan, kind],
        );
      // what the transaction's own instruction logged for this loan: a margin opening, a sale or an auto-sale
      const fact = facts?.loans.find((f) => f.loan === loan && (f.role === "opened") === (kind === "taken"));
      if (fact?.margin)
        await db.query("UPDATE loans SET down_payment = $2 WHERE pubkey = $1", [
          loan,
          fact.margin.downPayment,
        ]);
      if (fact?.sale)
        await db.query(
          "UPDATE loans SET sold_amount = $2, sale_slot = $3, sale_signature = $4 WHERE pubkey = $1",
          [loan, fact.sale.proceeds, facts!.slot, signature],
        );
      filled++;
    }
  }
  return filled;
}
