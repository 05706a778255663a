import {
  ACCOUNT_VERSION,
  type BankAccount,
  getLoanType,
  type LoanAccount,
  type PoolAccount,
} from "@cistern/sdk";
import type { BankRow } from "../banks/bank-view.ts";
import type { Queryable } from "../db/database.ts";
import { refreshPoolViews, storeBankViews } from "../pools/stored-views.ts";
import type { TransactionFacts } from "./transaction-facts.ts";

const ZERO_ADDRESS = "11111111111111111111111111111111";

/** Kinds of loan events the indexer records. */
export type LoanEventKind = "taken" | "repaid" | "extended" | "refinanced" | "liquidated" | "sold";

/** Writes a Bank account read at `slot`; a row from a newer slot is never overwritten. */
export async function upsertBank(
  q: Queryable,
  pubkey: string,
  bank: BankAccount,
  slot: number,
): Promise<void> {
  const written = await q.query<BankRow>(
    `INSERT INTO banks (pubkey, owner, mint, vault, authority, bank_type, total_liquidity, available_liquidity,
       delegated_liquidity, cooldown_liquidity, cooldown_period, created_at, deposited_at, withdrawn_at,
       borrowed_at, repaid_at, frozen_until, slot, delegators)
     VALUES ($1, $2, $3, $4, $1, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
     ON CONFLICT (pubkey) DO UPDATE SET owner = EXCLUDED.owner, mint = EXCLUDED.mint, vault = EXCLUDED.vault,
       bank_type = EXCLUDED.bank_type, total_liquidity = EXCLUDED.total_liquidity,
       available_liquidity = EXCLUDED.available_liquidity, delegated_liquidity = EXCLUDED.delegated_liquidity,
       cooldown_liquidity = EXCLUDED.cooldown_liquidity, cooldown_period = EXCLUDED.cooldown_period,
       created_at = EXCLUDED.created_at, deposited_at = EXCLUDED.deposited_at,
       withdrawn_at = EXCLUDED.withdrawn_at, borrowed_at = EXCLUDED.borrowed_at, repaid_at = EXCLUDED.repaid_at,
       frozen_until = EXCLUDED.frozen_until, slot = EXCLUDED.slot, delegators = EXCLUDED.delegators
     WHERE banks.slot <= EXCLUDED.slot
     RETURNING *`,
    [
      pubkey,
      bank.owner,
      bank.mint,
      bank.vault,
      bank.bankType,
      bank.totalLiquidity,
      bank.availableLiquidity,
      bank.delegatedLiquidity,
      bank.cooldownLiquidity,
      bank.cooldownPeriod,
      bank.createdAt,
      bank.depositedAt,
      bank.withdrawnAt,
      bank.borrowedAt,
      bank.repaidAt,
      bank.frozenUntil,
      slot,
      // the spec's Bank.delegators: who besides the owner may delegate its idle liquidity (the keeper it chose)
      bank.delegationKeeper === ZERO_ADDRESS ? [] : [bank.delegationKeeper],
    ],
  );
  await storeBankViews(q, written);
  // a pool's view shows its bank's liquidity
  if (written.length > 0) await refreshPoolViews(q, "bank", pubkey);
}

/** Writes a Pool account read at `slot` (off-chain name and thumbnail are left as they are). */
export async function upsertPool(
  q: Queryable,
  pubkey: string,
  pool: PoolAccount,
  slot: number,
): Promise<void> {
  const conditions = {
    isEnabled: pool.conditions.isEnabled,
    isWhitelistEnabled: pool.conditions.whitelistEnabled,
    liquidationThreshold: pool.conditions.liquidationThresholdBps,
    minAge: pool.conditions.minAgeSeconds.toString(),
    minLoan: pool.conditions.minLoanCount.toString(),
    minVolume: pool.conditions.minVolumeMicroUsd.toString(),
    whitelist: pool.conditions.whitelist ?? ZERO_ADDRESS,
  };
  const collections = pool.collections.map((c) => ({
    collection: c.id,
    ltvBps: c.ltvBps,
    exposureBps: c.exposureBps,
    borrowedAmount: c.borrowedAmount.toString(),
    ongoingLoans: c.ongoingLoans.toString(),
  }));
  const written = await q.query(
    `INSERT INTO pools (pubkey, owner, seed, bump, bank, currency, pool_type, status, apr_bps, mortgage_apr_bps,
       min_duration, max_duration, min_amount_usd, max_amount_usd, is_auto_sell_enabled, is_mortgage_enabled,
       is_compounding_enabled, conditions, collections, total_loans, total_liquidations, total_mortgages,
       total_interest, current_loans, borrowed_amount, created_at, updated_at, last_loan_at, slot,
       collections_updated_at, last_mortgage_at, layout_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
       $23, $24, $25, $26, $27, $28, $29, $30, $31, $32)
     ON CONFLICT (pubkey) DO UPDATE SET owner = EXCLUDED.owner, bank = EXCLUDED.bank, currency = EXCLUDED.currency,
       pool_type = EXCLUDED.pool_type, status = EXCLUDED.status, apr_bps = EXCLUDED.apr_bps,
       mortgage_apr_bps = EXCLUDED.mortgage_apr_bps, min_duration = EXCLUDED.min_duration,
       max_duration = EXCLUDED.max_duration, min_amount_usd = EXCLUDED.min_amount_usd,
       max_amount_usd = EXCLUDED.max_amount_usd, is_auto_sell_enabled = EXCLUDED.is_auto_sell_enabled,
       is_mortgage_enabled = EXCLUDED.is_mortgage_enabled, is_compounding_enabled = EXCLUDED.is_compounding_enabled,
       conditions = EXCLUDED.conditions, collections = EXCLUDED.collections, total_loans = EXCLUDED.total_loans,
       total_liquidations = EXCLUDED.total_liquidations, total_mortgages = EXCLUDED.total_mortgages,
       total_interest = EXCLUDED.total_interest, current_loans = EXCLUDED.current_loans,
       borrowed_amount = EXCLUDED.borrowed_amount, created_at = EXCLUDED.created_at,
       updated_at = EXCLUDED.updated_at, last_loan_at = EXCLUDED.last_loan_at, slot = EXCLUDED.slot,
       collections_updated_at = EXCLUDED.collections_updated_at, last_mortgage_at = EXCLUDED.last_mortgage_at,
       layout_version = EXCLUDED.layout_version
     WHERE pools.slot <= EXCLUDED.slot
     RETURNING pubkey`,
    [
      pubkey,
      pool.owner,
      pool.seed.toString(),
      pool.bump,
      pool.bank,
      pool.currencyMint,
      pool.poolType,
      pool.status,
      pool.loanAprBps,
      pool.mortgageAprBps,
      pool.minDurationSeconds,
      pool.maxDurationSeconds,
      pool.minAmountMicroUsd,
      pool.maxAmountMicroUsd,
      pool.flags.autoSell,
      pool.flags.mortgage,
      pool.flags.compounding,
      JSON.stringify(conditions),
      JSON.stringify(collections),
      pool.totalLoans,
      pool.totalLiquidations,
      pool.totalMortgages,
      pool.totalInterest,
      pool.currentLoans,
      pool.borrowedAmount,
      pool.createdAt,
      pool.updatedAt,
      pool.lastLoanAt,
      slot,
      pool.collectionsUpdatedAt,
      pool.lastMortgageAt,
      pool.layoutVersion ?? ACCOUNT_VERSION.Pool,
    ],
  );
  if (written.length > 0) await refreshPoolViews(q, "pubkey", pubkey);
}

/** Marks a pool whose account was closed (zeroed / gone from the chain). */
export async function markPoolClosed(q: Queryable, pubkey: string, slot: number): Promise<void> {
  const written = await q.query(
    `UPDATE pools SET status = 'Closed', current_loans = 0, slot = $2
     WHERE pubkey = $1 AND slot <= $2 AND status <> 'Closed' RETURNING pubkey`,
    [pubkey, slot],
  );
  if (written.length > 0) await refreshPoolViews(q, "pubkey", pubkey);
}

/** The events a loan account's state implies, with their times (epoch seconds) and amounts. */
export function getLoanEvents(loan: LoanAccount): { kind: LoanEventKind; at: bigint; amount: bigint }[] {
  const events: { kind: LoanEventKind; at: bigint; amount: bigint }[] = [
    { kind: "taken", at: loan.createdAt, amount: loan.principal },
  ];
  if (loan.status === "Repaid") {
    events.push({
      // a loan written before the 1.8 upgrade does not say whether Extend or Refinance closed it: "extended"
      kind: loan.extendedTo === null ? "repaid" : loan.closedBy === "Refinanced" ? "refinanced" : "extended",
      at: loan.repaidAt,
      amount: loan.repaidAmount,
    });
  } else if (loan.status === "Liquidated") {
    events.push({ kind: "liquidated", at: loan.liquidatedAt, amount: loan.principal });
  } else if (loan.status === "Sold") {
    events.push({ kind: "sold", at: loan.soldAt, amount: loan.principal });
  }
  return events;
}

/** A Loan account read at `slot`, with its lender (the pool owner). */
export interface LoanWrite {
  pubkey: string;
  loan: LoanAccount;
  lender: string;
  slot: number;
}

/** Most loans one statement writes (27 parameters each, under PostgreSQL's 65,535). */
const LOANS_PER_STATEMENT = 500;

/** `$a, $b, ...` placeholders of `rows` rows of `width` values each, one parenthesised tuple per row. */
function tuples(rows: number, width: number, literal = ""): string {
  return Array.from(
    { length: rows },
    (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(", ")}${literal})`,
  ).join(", ");
}

/**
 * Writes Loan accounts and the events their states imply: every loan in one statement, every event in one more
 * (a batch of the indexer writes its new loans in two statements, not two per loan). Events are keyed by
 * (loan, kind), so replaying any account version, in any order, never duplicates or loses one. Each pubkey at
 * most once.
 */
export async function upsertLoans(q: Queryable, writes: readonly LoanWrite[]): Promise<void> {
  for (let i = 0; i < writes.length; i += LOANS_PER_STATEMENT) {
    const chunk = writes.slice(i, i + LOANS_PER_STATEMENT);
    await q.query(
      `INSERT INTO loans (pubkey, pool, bank, borrower, lender, currency, collateral_mint, collateral_amount,
         collection, is_defi, principal, interest, apr_bps, duration, created_at, expired_at, repaid_at,
         liquidated_at, sold_at, status, kind, loan_type, slot, repaid_amount, protocol_fee_paid,
         collateral_value, extended_to, sold_amount)
       VALUES ${tuples(chunk.length, 27, ", 0")}
       ON CONFLICT (pubkey) DO UPDATE SET status = EXCLUDED.status, repaid_at = EXCLUDED.repaid_at,
         liquidated_at = EXCLUDED.liquidated_at, sold_at = EXCLUDED.sold_at, lender = EXCLUDED.lender,
         principal = EXCLUDED.principal, interest = EXCLUDED.interest, slot = EXCLUDED.slot,
         repaid_amount = EXCLUDED.repaid_amount, protocol_fee_paid = EXCLUDED.protocol_fee_paid,
         collateral_value = EXCLUDED.collateral_value, extended_to = EXCLUDED.extended_to
       WHERE loans.slot <= EXCLUDED.slot`,
      chunk.flatMap(({ pubkey, loan, lender, slot }) => [
        pubkey,
        loan.pool,
        loan.bank,
        loan.borrower,
        lender,
        loan.currencyMint,
        loan.collateralMint,
        loan.collateralAmount,
        loan.collection,
        loan.isDefi,
        loan.principal,
        loan.interest,
        loan.aprBps,
        loan.durationSeconds,
        loan.createdAt,
        loan.expiredAt,
        loan.repaidAt,
        loan.liquidatedAt,
        loan.soldAt,
        loan.status,
        loan.kind,
        getLoanType(loan),
        slot,
        loan.repaidAmount,
        loan.protocolFeePaid,
        loan.collateralValue,
        loan.extendedTo,
      ]),
    );
    const events = chunk.flatMap((w) => getLoanEvents(w.loan).map((event) => ({ ...w, event })));
    for (let j = 0; j < events.length; j += LOANS_PER_STATEMENT) {
      const part = events.slice(j, j + LOANS_PER_STATEMENT);
      await q.query(
        `INSERT INTO loan_activity (loan, kind, at, slot, pool, borrower, lender, currency, collection, amount)
         VALUES ${tuples(part.length, 10)}
         ON CONFLICT (loan, kind) DO NOTHING`,
        part.flatMap(({ pubkey, loan, lender, slot, event }) => [
          pubkey,
          event.kind,
          event.at,
          slot,
          loan.pool,
          loan.borrower,
          lender,
          loan.currencyMint,
          loan.collection,
          event.amount,
        ]),
      );
    }
  }
}

/** Writes one Loan account read at `slot` and the events its state implies (see upsertLoans). */
export async function upsertLoan(
  q: Queryable,
  pubkey: string,
  loan: LoanAccount,
  lender: string,
  slot: number,
): Promise<void> {
  await upsertLoans(q, [{ pubkey, loan, lender, slot }]);
}

/**
 * Records what landed transactions tell about the loans they opened or closed (their rows already written): the
 * signature and fee payer (the actor) of each one's "taken" or closing event, a sale's proceeds, slot and signature
 * (MarketSell's "sold", LiquidateSell's "autosold"), a margin position's down payment, and the referral the builder
 * recorded for that exact message (linked to the first of its loans whose event it signed). Events that already
 * carry a signature keep it. The events of every transaction are signed in one statement, the referrals in
 * another. Returns, per transaction, the events signed.
 */
export async function recordTransactionFacts(
  q: Queryable,
  all: readonly TransactionFacts[],
): Promise<number[]> {
  const facts = all.flatMap((tx, t) => tx.loans.map((fact) => ({ tx, t, fact })));
  const signed = all.map(() => 0);
  if (facts.length === 0) return signed;
  const events = await q.query<{ i: number; kind: string }>(
    `UPDATE loan_activity a SET signature = f.signature, actor = f.actor
     FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::int[]) AS f(loan, signature, actor, opened, i)
     WHERE a.loan = f.loan AND a.signature IS NULL AND (a.kind = 'taken') = f.opened
     RETURNING f.i AS i, a.kind AS kind`,
    [
      facts.map((f) => f.fact.loan),
      facts.map((f) => f.tx.signature),
      facts.map((f) => f.tx.feePayer),
      facts.map((f) => String(f.fact.role === "opened")),
      facts.map((_, i) => String(i)),
    ],
  );
  // the first event each fact signed, in the order of the facts
  const firstKind = new Map<number, string>();
  for (const event of events) {
    const i = Number(event.i);
    if (!firstKind.has(i)) firstKind.set(i, event.kind);
    signed[facts[i]!.t]!++;
  }
  const referrals: { hash: string; signature: string; loan: string; kind: string }[] = [];
  const referred = new Set<number>();
  for (const [i, { tx, t, fact }] of facts.entries()) {
    if (fact.sale !== null)
      await q.query(
        "UPDATE loans SET sold_amount = $2, sale_slot = $3, sale_signature = $4 WHERE pubkey = $1",
        [fact.loan, fact.sale.proceeds, tx.slot, tx.signature],
      );
    if (fact.margin !== null)
      await q.query("UPDATE loans SET down_payment = $2 WHERE pubkey = $1", [
        fact.loan,
        fact.margin.downPayment,
      ]);
    const kind = firstKind.get(i);
    if (kind !== undefined && !referred.has(t)) {
      referred.add(t);
      referrals.push({ hash: tx.messageHash, signature: tx.signature, loan: fact.loan, kind });
    }
  }
  if (referrals.length > 0)
    await q.query(
      `UPDATE referrals r SET signature = f.signature, loan = f.loan, kind = f.kind
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS f(message_hash, signature, loan, kind)
       WHERE r.message_hash = f.message_hash AND r.signature IS NULL`,
      [
        referrals.map((r) => r.hash),
        referrals.map((r) => r.signature),
        referrals.map((r) => r.loan),
        referrals.map((r) => r.kind),
      ],
    );
  return signed;
}

/** Records the indexer's position: last applied slot and newest program signature seen. */
export async function saveCursor(
  q: Queryable,
  programId: string,
  slot: number,
  signature: string | null,
  reconciledAt: number | null,
): Promise<void> {
  await q.query(
    `INSERT INTO indexer_cursor (program_id, slot, signature, reconciled_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (program_id) DO UPDATE SET slot = GREATEST(indexer_cursor.slot, EXCLUDED.slot),
       signature = COALESCE(EXCLUDED.signature, indexer_cursor.signature),
       reconciled_at = CASE WHEN $5::boolean THEN EXCLUDED.reconciled_at ELSE indexer_cursor.reconciled_at END`,
    [programId, slot, signature, reconciledAt ?? 0, reconciledAt !== null],
  );
}

/** Reads the cursor, or null before the first run. */
export async function readCursor(
  q: Queryable,
  programId: string,
): Promise<{ slot: number; signature: string | null; reconciledAt: number } | null> {
  const [row] = await q.query<{ slot: unknown; signature: string | null; reconciled_at: unknown }>(
    "SELECT slot, signature, reconciled_at FROM indexer_cursor WHERE program_id = $1",
    [programId],
  );
  return row === undefined
    ? null
    : { slot: Number(row.slot), signature: row.signature, reconciledAt: Number(row.reconciled_at) };
}
