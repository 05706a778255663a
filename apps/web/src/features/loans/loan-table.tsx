import { shortenAddress } from "@cistern/protocol";
import type { ReactNode } from "react";
import { formatBps, formatDateTime, formatDuration, formatMoney } from "../../pages/format.ts";
import { type LoanRowView, PHASE_LABEL } from "./loan-model.ts";

/** Countdown text of a loan. */
export function countdown(row: LoanRowView): string {
  if (row.phase === "active" || row.phase === "near-expiry")
    return `expires in ${formatDuration(row.secondsToExpiry)}`;
  if (row.phase === "grace") return `grace ends in ${formatDuration(row.secondsToLiquidation)}`;
  if (row.phase === "liquidatable") return "past grace";
  return "";
}

/** A table of loans with a caller-given leading cell (checkbox) and action cell. */
export function LoanTable({
  rows,
  name,
  lead,
  actions,
  caption,
  testId,
}: {
  rows: LoanRowView[];
  name: (id: string) => string;
  lead?: (row: LoanRowView) => ReactNode;
  actions?: (row: LoanRowView) => ReactNode;
  caption: string;
  testId: string;
}) {
  return (
    <div className="pg-table-wrap">
      <table className="pg-table" data-testid={testId}>
        <caption className="pg-caption">{caption}</caption>
        <thead>
          <tr>
            {lead ? (
              <th scope="col">
                <span className="pg-sr">Select</span>
              </th>
            ) : null}
            <th scope="col">Collateral</th>
            <th scope="col">Principal</th>
            <th scope="col">APR</th>
            <th scope="col">Owed now</th>
            <th scope="col">Due</th>
            <th scope="col">Status</th>
            {actions ? (
              <th scope="col">
                <span className="pg-sr">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.loan.pubkey} data-loan={row.loan.pubkey} className={`pg-phase-${row.phase}`}>
              {lead ? <td>{lead(row)}</td> : null}
              <th scope="row" title={row.loan.collateral}>
                {name(row.loan.collection)}
                <small className="muted">
                  {" "}
                  {row.loan.isDefi ? "token" : shortenAddress(row.loan.collateral)}
                </small>
              </th>
              <td>{formatMoney(row.loan.amount, row.loan.currency)}</td>
              <td>{row.loan.aprBps === undefined ? "—" : formatBps(row.loan.aprBps)}</td>
              <td data-testid="owed-now">
                {row.owedNow === undefined ? "—" : formatMoney(row.owedNow, row.loan.currency, 9)}
              </td>
              <td>
                {formatDateTime(row.loan.createdAt + row.loan.duration)}
                <small className="muted"> {countdown(row)}</small>
              </td>
              <td>
                <span className={`pg-status pg-status-${row.phase}`}>{PHASE_LABEL[row.phase]}</span>
              </td>
              {actions ? <td className="pg-actions-cell">{actions(row)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
