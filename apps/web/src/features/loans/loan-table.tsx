import { shortenAddress } from "@cistern/protocol";
import type { ReactNode } from "react";
import { formatBps, formatDateTime, formatDuration, formatMoney } from "../../pages/format.ts";
import { useProfiles } from "../profile/profile-data.ts";
import { ProfileName } from "../profile/profile-name.tsx";
import { type ExtensionChain, type LoanRowView, PHASE_LABEL } from "./loan-model.ts";

/** Countdown text of a loan. */
export function countdown(row: LoanRowView): string {
  if (row.phase === "active" || row.phase === "near-expiry")
    return `expires in ${formatDuration(row.secondsToExpiry)}`;
  if (row.phase === "grace") return `grace ends in ${formatDuration(row.secondsToLiquidation)}`;
  if (row.phase === "liquidatable") return "past grace";
  return "";
}

/**
 * A table of loans with a caller-given leading cell (checkbox) and action cell, and the other party of each
 * loan (its lender for a borrower, its borrower for a lender) by profile name where one is set.
 */
export function LoanTable({
  rows,
  name,
  lead,
  actions,
  party,
  caption,
  testId,
  chains,
}: {
  /** Extension chains by loan (see foldExtensions): shown under the collateral. */
  chains?: Map<string, ExtensionChain>;
  rows: LoanRowView[];
  name: (id: string) => string;
  lead?: (row: LoanRowView) => ReactNode;
  actions?: (row: LoanRowView) => ReactNode;
  party?: "lender" | "borrower";
  caption: string;
  testId: string;
}) {
  const partyOf = (row: LoanRowView) => (party === undefined ? "" : row.loan[party]);
  const profiles = useProfiles(party === undefined ? [] : rows.map(partyOf).filter((a) => a !== ""));
  return (
    <div className="pg-table-wrap">
      <table className="pg-table pg-stack" data-testid={testId}>
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
            {party ? <th scope="col">{party === "lender" ? "Lender" : "Borrower"}</th> : null}
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
              {lead ? <td data-label="Select">{lead(row)}</td> : null}
              <th scope="row" title={row.loan.collateral}>
                {name(row.loan.collection)}
                <small className="muted">
                  {" "}
                  {row.loan.kind.type === "MarginSwapLoan"
                    ? row.loan.kind.downPayment
                      ? `margin position, ${formatMoney(row.loan.kind.downPayment, row.loan.currency)} down`
                      : "margin position"
                    : row.loan.isDefi
                      ? "token"
                      : shortenAddress(row.loan.collateral)}
                </small>
                {chains?.get(row.loan.pubkey) ? (
                  <small className="muted pg-chain" data-testid="loan-chain">
                    {" "}
                    extended{" "}
                    {chains.get(row.loan.pubkey)!.extensions === 1
                      ? "once"
                      : `${chains.get(row.loan.pubkey)!.extensions} times`}{" "}
                    · first taken {formatDateTime(chains.get(row.loan.pubkey)!.firstTakenAt)}
                  </small>
                ) : null}
              </th>
              <td data-label="Principal">{formatMoney(row.loan.amount, row.loan.currency)}</td>
              <td data-label="APR">{row.loan.aprBps === undefined ? "—" : formatBps(row.loan.aprBps)}</td>
              <td data-label="Owed now" data-testid="owed-now">
                {row.owedNow === undefined ? "—" : formatMoney(row.owedNow, row.loan.currency, 9)}
              </td>
              <td data-label="Due">
                {formatDateTime(row.loan.createdAt + row.loan.duration)}
                <small className="muted"> {countdown(row)}</small>
              </td>
              <td data-label="Status">
                <span className={`pg-status pg-status-${row.phase}`}>{PHASE_LABEL[row.phase]}</span>
              </td>
              {party ? (
                <td data-label={party === "lender" ? "Lender" : "Borrower"} data-testid="loan-party">
                  {partyOf(row) === "" ? (
                    "—"
                  ) : (
                    <ProfileName address={partyOf(row)} profile={profiles.data?.get(partyOf(row))} />
                  )}
                </td>
              ) : null}
              {actions ? <td className="pg-actions-cell">{actions(row)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
