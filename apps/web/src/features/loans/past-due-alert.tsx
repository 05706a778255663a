import { formatDateTime, formatDuration, formatMoney } from "../../kit/format.ts";
import type { LoanRowView } from "./loan-model.ts";

/**
 * The page's loudest warning: loans past their due date (in grace: the lender can claim the collateral when it
 * ends) and loans past grace (the lender can claim it now), most urgent first, each with its Repay action.
 */
export function PastDueAlert({
  rows,
  name,
  busy,
  onRepay,
}: {
  rows: LoanRowView[];
  name: (id: string) => string;
  busy: boolean;
  onRepay(row: LoanRowView): void;
}) {
  const due = rows
    .filter((r) => r.phase === "grace" || r.phase === "liquidatable")
    .sort((a, b) => a.secondsToLiquidation - b.secondsToLiquidation);
  if (due.length === 0) return null;
  return (
    <section className="pg-alert" role="alert" aria-label="Loans past due" data-testid="past-due">
      <h2>
        {due.length === 1 ? "A loan is past due" : `${due.length} loans are past due`}: repay to keep your
        collateral
      </h2>
      <ul>
        {due.map((row) => {
          const collateral = name(row.loan.collection);
          const owed = row.owedNow === undefined ? "" : formatMoney(row.owedNow, row.loan.currency, "up");
          return (
            <li key={row.loan.pubkey} data-loan={row.loan.pubkey}>
              <span>
                {row.phase === "liquidatable" ? (
                  <>
                    <strong>{collateral}</strong>: the grace period ended {formatDateTime(row.liquidatableAt)}
                    . The lender can claim your collateral at any moment. Repay {owed} now to keep it.
                  </>
                ) : (
                  <>
                    <strong>{collateral}</strong>: due date passed. The lender can claim your collateral in{" "}
                    {formatDuration(row.secondsToLiquidation)}. Repay {owed} before then (late interest runs
                    at twice the hourly rate).
                  </>
                )}
              </span>
              <button
                type="button"
                className="button button-danger"
                disabled={busy}
                onClick={() => onRepay(row)}
              >
                Repay {owed}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
