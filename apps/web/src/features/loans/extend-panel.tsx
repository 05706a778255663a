import { computeLoanQuote, computeOwedInterest, getCurrencyByMint, SECONDS_PER_DAY } from "@cistern/protocol";
import { useId, useState } from "react";
import { usePrices } from "../../data/prices.ts";
import { formatBps, formatDateTime, formatDuration, formatMoney, type Rounding } from "../../kit/format.ts";
import { QueryState, type Term, TermsList } from "../../kit/page-kit.tsx";
import { getLoanSchedule } from "../borrow/borrow-model.ts";
import { usePool } from "../pools/pool-data.ts";
import type { LoanRowView } from "./loan-model.ts";

/**
 * Extending = paying the interest owed now and taking the same principal again from the same pool
 * for a new term at the pool's current rate. Shows both parts before signing.
 */
export function ExtendPanel({
  row,
  now,
  busy,
  onConfirm,
  onCancel,
}: {
  row: LoanRowView;
  now: number;
  busy: boolean;
  onConfirm(durationSeconds: number): void;
  onCancel(): void;
}) {
  const pool = usePool(row.loan.pool);
  const prices = usePrices();
  const ids = useId();
  const [daysText, setDaysText] = useState("");
  const [touched, setTouched] = useState(false);
  return (
    <section className="card pg-section pg-extend" aria-label="Extend loan" data-testid="extend-panel">
      <h3>Extend loan</h3>
      <QueryState query={pool} label="the pool's current terms">
        {(p) => {
          if (p === null || p.status !== "Open")
            return <p className="error-text">The pool no longer lends.</p>;
          const maxDays = Math.floor(p.limits.maxDuration / SECONDS_PER_DAY);
          const text = daysText === "" ? String(maxDays) : daysText;
          const days = Number(text);
          const valid = Number.isInteger(days) && days >= 1 && days <= maxDays;
          const owed = computeOwedInterest({
            aprBps: row.loan.aprBps ?? p.loanCurve.apr,
            principal: row.loan.amount,
            durationSeconds: row.loan.duration,
            createdAt: row.loan.createdAt,
            now,
          });
          const currency = getCurrencyByMint(row.loan.currency);
          const price = prices.data?.[row.loan.currency];
          const quote = valid
            ? computeLoanQuote({
                amount: row.loan.amount,
                durationSeconds: days * SECONDS_PER_DAY,
                aprBps: p.loanCurve.apr,
                ...(currency && price !== undefined ? { decimals: currency.decimals, priceUsd: price } : {}),
              })
            : null;
          return (
            <form
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                setTouched(true);
                if (valid && !busy) onConfirm(days * SECONDS_PER_DAY);
              }}
            >
              <label htmlFor={`${ids}-days`}>
                New duration (days, up to {maxDays})
                <input
                  id={`${ids}-days`}
                  inputMode="numeric"
                  value={text}
                  aria-invalid={!valid}
                  onChange={(e) => setDaysText(e.target.value)}
                />
              </label>
              <p className="error-text" role="alert" data-testid="extend-error">
                {!valid && (touched || daysText !== "") ? `Choose between 1 and ${maxDays} days.` : ""}
              </p>
              {quote ? (
                <ExtensionTerms
                  owedNow={owed}
                  principal={row.loan.amount}
                  currency={row.loan.currency}
                  aprBps={p.loanCurve.apr}
                  durationSeconds={days * SECONDS_PER_DAY}
                  interest={quote.interest}
                  repayByDue={quote.requiredRepayment}
                  nowSeconds={now}
                />
              ) : null}
              <div className="pg-buttons">
                <button
                  type="submit"
                  className="button button-primary"
                  disabled={busy}
                  data-testid="extend-submit"
                >
                  {busy ? "Extending…" : "Extend"}
                </button>
                <button type="button" className="button" onClick={onCancel}>
                  Cancel
                </button>
              </div>
            </form>
          );
        }}
      </QueryState>
    </section>
  );
}

/**
 * An extension in its own words: what is paid now (the interest so far; the principal is not paid out
 * again), the new rate and term counted from when the extension lands, the new due date and what to repay by it.
 */
function ExtensionTerms(input: {
  owedNow: bigint;
  principal: bigint;
  currency: string;
  aprBps: number;
  durationSeconds: number;
  interest: bigint;
  repayByDue: bigint;
  nowSeconds: number;
}) {
  const money = (amount: bigint, rounding: Rounding = "down") =>
    formatMoney(amount, input.currency, rounding);
  const schedule = getLoanSchedule(input.nowSeconds, input.durationSeconds);
  const rows: Term[] = [
    ["Pay now", money(input.owedNow, "up"), "the interest owed so far"],
    ["Principal", money(input.principal), "stays borrowed; nothing is paid out again"],
    ["New APR", formatBps(input.aprBps), "the pool's rate today"],
    ["New term", formatDuration(input.durationSeconds), "counted from when the extension lands"],
    ["New due date", formatDateTime(schedule.expiresAt)],
    ["Interest for the new term", money(input.interest, "up")],
    ["Repay by the new due date", money(input.repayByDue, "up")],
    ["Grace period", formatDuration(schedule.graceSeconds)],
  ];
  return (
    <section className="pg-quote" aria-label="Extension terms" data-testid="extend-terms">
      <TermsList terms={rows} testIdPrefix="extend" />
      <p className="muted pg-small">
        Your collateral stays locked. The loan continues as one loan: Loans shows it with its first date.
      </p>
    </section>
  );
}
