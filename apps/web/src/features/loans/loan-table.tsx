import { getCurrencyByMint } from "@cistern/protocol";
import { type ReactNode, useEffect } from "react";
import { useChat } from "../../chat/chat-context.tsx";
import { usePrices } from "../../data/prices.ts";
import {
  formatAmount,
  formatBps,
  formatDateTime,
  formatDuration,
  formatMoney,
  formatUsdValue,
} from "../../kit/format.ts";
import { TableScroll } from "../../kit/page-kit.tsx";
import { useLocationHref } from "../../lib/location.ts";
import { describeNftStandard, parseNftStandard } from "../borrow/nft-standard.ts";
import { useTokens } from "../pools/pool-data.ts";
import { useProfiles } from "../profile/profile-data.ts";
import { ProfileName } from "../profile/profile-name.tsx";
import { ENDING_LABEL, getHistoryFigures, getLoanEnding } from "./loan-ending.ts";
import { useLoanLabels } from "./loan-label.ts";
import { closedAt, describeChain, type ExtensionChain, type LoanRowView, PHASE_LABEL } from "./loan-model.ts";

/** Countdown text of a loan. */
export function countdown(row: LoanRowView): string {
  if (row.phase === "active" || row.phase === "near-expiry")
    return `expires in ${formatDuration(row.secondsToExpiry)}`;
  if (row.phase === "grace") return `grace ends in ${formatDuration(row.secondsToLiquidation)}`;
  if (row.phase === "liquidatable") return "past grace";
  return "";
}

/** Ongoing loans soonest due first; closed loans most recently closed first. */
export function sortLoanRows(rows: readonly LoanRowView[], history: boolean): LoanRowView[] {
  return [...rows].sort((a, b) =>
    history
      ? closedAt(b) - closedAt(a)
      : a.loan.createdAt + a.loan.duration - (b.loan.createdAt + b.loan.duration),
  );
}

/**
 * A table of loans with a caller-given leading cell (checkbox) and action cell, and the other party of each
 * loan (its lender for a borrower, its borrower for a lender) by profile name where one is set. Ongoing loans
 * show what is owed now and when they are due; closed loans (`history`) when they closed, what was paid and
 * the interest it earned.
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
  history = false,
}: {
  /** Closed loans: closed date, amount paid and interest instead of owed now and due. */
  history?: boolean;
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
  const chat = useChat();
  const partyOf = (row: LoanRowView) => (party === undefined ? "" : row.loan[party]);
  const profiles = useProfiles(party === undefined ? [] : rows.map(partyOf).filter((a) => a !== ""));
  const tokens = useTokens();
  const prices = usePrices();
  /** An amount of a lending currency in USD at the current price ("" without one). */
  const usdOf = (amount: bigint, mint: string) =>
    formatUsdValue(amount, getCurrencyByMint(mint)?.decimals ?? 0, prices.data?.[mint]);
  const labels = useLoanLabels(rows.map((r) => r.loan));
  // a notification opens a loan as /loans?loan=<pubkey>: its row is scrolled to and marked
  const opened = new URL(useLocationHref(), "http://x").searchParams.get("loan");
  const openedHere = rows.some((r) => r.loan.pubkey === opened) ? opened : null;
  useEffect(() => {
    if (openedHere === null) return;
    const row = [...document.querySelectorAll<HTMLElement>("tr[data-loan]")].find(
      (r) => r.dataset.loan === openedHere,
    );
    row?.scrollIntoView?.({ block: "center" });
    row?.focus({ preventScroll: true });
  }, [openedHere]);
  /** The NFT's own name when the API knows it ("" otherwise: never its raw mint). */
  const nftName = (row: LoanRowView) => labels(row.loan).nftName;
  // a programmable NFT or Core asset says so (a classic NFT is just "NFT", left unsaid)
  const standardOf = (row: LoanRowView) => {
    const standard = parseNftStandard(row.loan.loanType);
    return standard === null || standard === "Nft" ? null : standard;
  };
  const locked = (row: LoanRowView) => {
    const token = tokens.data?.[row.loan.collateral];
    return row.loan.collateralAmount === undefined || token === undefined
      ? "token"
      : `${formatAmount(row.loan.collateralAmount, token.decimals)} ${token.symbol} locked`;
  };
  return (
    <TableScroll label={caption}>
      <table className="pg-table pg-stack pg-loans" data-testid={testId}>
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
            {history ? (
              <>
                <th scope="col">Closed</th>
                <th scope="col">Paid</th>
                <th scope="col">Interest</th>
              </>
            ) : (
              <>
                <th scope="col">Owed now</th>
                <th scope="col">Due</th>
              </>
            )}
            <th scope="col">Status</th>
            {party ? <th scope="col">{party === "lender" ? "Lender" : "Borrower"}</th> : null}
            {actions ? (
              <th scope="col" className="pg-actions-head">
                <span className="pg-sr">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {sortLoanRows(rows, history).map((row) => (
            <tr
              key={row.loan.pubkey}
              data-loan={row.loan.pubkey}
              className={
                row.loan.pubkey === openedHere
                  ? `pg-phase-${row.phase} pg-row-opened`
                  : `pg-phase-${row.phase}`
              }
              {...(row.loan.pubkey === openedHere
                ? { tabIndex: -1, "aria-current": "true" as const, "data-testid": "opened-loan" }
                : {})}
            >
              {lead ? <td data-label="Select">{lead(row)}</td> : null}
              <th scope="row">
                {row.loan.isDefi || labels(row.loan).image === "" ? null : (
                  <img
                    className="pg-nft-thumb"
                    src={labels(row.loan).image}
                    alt=""
                    width={32}
                    height={32}
                    loading="lazy"
                  />
                )}
                {name(row.loan.collection)}
                <small className="muted" data-testid="loan-collateral">
                  {" "}
                  {row.loan.kind.type === "MarginSwapLoan"
                    ? row.loan.kind.downPayment
                      ? `margin position, ${formatMoney(row.loan.kind.downPayment, row.loan.currency)} down`
                      : "margin position"
                    : row.loan.kind.type === "Mortgage"
                      ? nftName(row) === ""
                        ? "mortgage"
                        : `mortgage, ${nftName(row)}`
                      : row.loan.isDefi
                        ? locked(row)
                        : nftName(row)}
                </small>
                {standardOf(row) !== null ? (
                  <small className="muted" data-testid="loan-standard">
                    {" "}
                    · {describeNftStandard(standardOf(row)!)}
                  </small>
                ) : null}
                {chains?.get(row.loan.pubkey) ? (
                  <small className="muted pg-chain" data-testid="loan-chain">
                    {" "}
                    {describeChain(chains.get(row.loan.pubkey)!)} · first taken{" "}
                    {formatDateTime(chains.get(row.loan.pubkey)!.firstTakenAt)}
                  </small>
                ) : null}
              </th>
              <td data-label="Principal">{formatMoney(row.loan.amount, row.loan.currency)}</td>
              <td data-label="APR">{row.loan.aprBps === undefined ? "—" : formatBps(row.loan.aprBps)}</td>
              {history ? (
                <HistoryCells row={row} />
              ) : (
                <>
                  <td data-label="Owed now" data-testid="owed-now">
                    {row.owedNow === undefined ? "—" : formatMoney(row.owedNow, row.loan.currency, "up")}
                    {row.owedNow === undefined ? null : (
                      <small className="muted" data-testid="owed-usd">
                        {" "}
                        {usdOf(row.owedNow, row.loan.currency)}
                      </small>
                    )}
                  </td>
                  <td data-label="Due">
                    {formatDateTime(row.loan.createdAt + row.loan.duration)}
                    <small className="muted"> {countdown(row)}</small>
                  </td>
                </>
              )}
              <td data-label="Status">
                <span className={`pg-status pg-status-${row.phase}`} data-testid="loan-status">
                  {statusLabel(row)}
                </span>
              </td>
              {party ? (
                <td data-label={party === "lender" ? "Lender" : "Borrower"} data-testid="loan-party">
                  {partyOf(row) === "" ? (
                    "—"
                  ) : (
                    <>
                      <ProfileName address={partyOf(row)} profile={profiles.data?.get(partyOf(row))} />
                      <button
                        type="button"
                        className="button button-small chat-party-link"
                        data-testid="message-party"
                        onClick={() => chat.openLoanRoom(row.loan.pubkey)}
                      >
                        Message {party}
                      </button>
                    </>
                  )}
                </td>
              ) : null}
              {actions ? <td className="pg-actions-cell">{actions(row)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** A loan's status: its phase while ongoing, how it ended once closed (an auto-sale is no plain liquidation). */
function statusLabel(row: LoanRowView): string {
  const ending = getLoanEnding(row.loan);
  return ending === null ? PHASE_LABEL[row.phase] : ENDING_LABEL[ending];
}

/** A closed loan's closing date, what was paid for it and the interest that earned (or what happened instead). */
function HistoryCells({ row }: { row: LoanRowView }) {
  const figures = getHistoryFigures(row.loan);
  return (
    <>
      <td data-label="Closed" data-testid="closed-at">
        {closedAt(row) > 0 ? formatDateTime(closedAt(row)) : "—"}
      </td>
      <td data-label="Paid" data-testid="paid">
        {figures.paid}
      </td>
      <td data-label="Interest" data-testid="interest-earned">
        {figures.interest}
      </td>
    </>
  );
}
