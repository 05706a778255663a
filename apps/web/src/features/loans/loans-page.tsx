import type { Loan } from "@cistern/protocol";
import { useConnection } from "@solana/wallet-adapter-react";
import { useEffect, useState } from "react";
import { useChainPerformance } from "../../data/chain-status.ts";
import { formatDuration, formatMoney } from "../../kit/format.ts";
import { Page, QueryState, RequireWallet, Tabs, useChainNow } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { useLocationHref } from "../../lib/location.ts";
import { ChainSlowWarning } from "../../shell/chain-slow-warning.tsx";
import { useCollateralNamer } from "../pools/collateral-name.tsx";
import { MyRequests } from "../requests/my-requests.tsx";
import { CalendarFeed } from "./calendar-feed.tsx";
import { CalendarLink } from "./calendar-link.tsx";
import { ExtendPanel } from "./extend-panel.tsx";
import { InstantSellPanel } from "./instant-sell-panel.tsx";
import { explainLoanFailure, useLoansFollowingChain } from "./loan-chain.ts";
import { loanRoute, useBorrowerLoans, useLenderLoans } from "./loan-data.ts";
import { canLiquidate, foldExtensions, type LoanRowView, sumByCurrency, viewLoan } from "./loan-model.ts";
import { LoanTable } from "./loan-table.tsx";
import { MarketSellPanel } from "./market-sell-panel.tsx";
import { PastDueAlert } from "./past-due-alert.tsx";
import { RefinanceHint, RefinancePanel } from "./refinance-hint.tsx";

/** My loans (as borrower) and the loans on my pools (as lender). */
export function LoansPage() {
  const href = useLocationHref();
  const asked = new URL(href, "http://x").searchParams;
  const [tab, setTab] = useState<"borrowed" | "lent">(asked.get("tab") === "lent" ? "lent" : "borrowed");
  // a notification opens a loan on its tab (/loans?tab=lent&loan=...), also when Loans is already open
  const askedLoan = asked.get("loan");
  const askedTab = asked.get("tab") === "lent" ? "lent" : "borrowed";
  useEffect(() => {
    if (askedLoan !== null) setTab(askedTab);
  }, [askedTab, askedLoan]);
  return (
    <Page
      title="Loans"
      lead="Repay or extend your loans — one at a time or several together. As a lender, follow every loan drawn on your pools."
    >
      <Tabs
        label="Loans"
        value={tab}
        onChange={(value) => setTab(value)}
        options={[
          { value: "borrowed", label: "My loans" },
          { value: "lent", label: "Loans on my pools" },
        ]}
      />
      <RequireWallet what="see your loans">
        {(owner) => (tab === "borrowed" ? <BorrowerLoans owner={owner} /> : <LenderLoans owner={owner} />)}
      </RequireWallet>
    </Page>
  );
}

/** A failed action on `loans` explained by the chain (a loan that already ended says how), for `viewer`. */
function useLoanFailureExplainer(viewer: "lender" | "borrower") {
  const { connection } = useConnection();
  return (loans: readonly Loan[]) => (error: unknown) => explainLoanFailure(connection, loans, viewer, error);
}

function BorrowerLoans({ owner }: { owner: string }) {
  const loans = useBorrowerLoans(owner);
  const followed = useLoansFollowingChain(loans.data?.loans);
  const explain = useLoanFailureExplainer("borrower");
  const now = useChainNow();
  const name = useCollateralNamer();
  const tx = usePageTransaction();
  const performance = useChainPerformance();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [extending, setExtending] = useState<string | null>(null);
  const [selling, setSelling] = useState<string | null>(null);
  const [moving, setMoving] = useState<string | null>(null);
  return (
    <>
      <MyRequests owner={owner} />
      <QueryState
        query={loans}
        label="your loans"
        isEmpty={(l) => l.loans.length === 0}
        empty="You have no loans yet. Borrow against an NFT or tokens to see them here."
      >
        {(list) => {
          const { rows, chains } = foldExtensions(
            (followed ?? list.loans).map((loan) => viewLoan(loan, owner, now)),
          );
          const ongoing = rows.filter((r) => r.loan.status === "Ongoing");
          const history = rows.filter((r) => r.loan.status !== "Ongoing");
          const chosen = ongoing.filter((r) => selected.has(r.loan.pubkey));
          const soon = ongoing.filter((r) => r.phase === "near-expiry");
          const repay = async (targets: LoanRowView[]) => {
            const first = targets[0];
            if (!first || targets.some((t) => t.loan.isDefi !== first.loan.isDefi)) return;
            const signature = await tx.run({
              action: targets.length === 1 ? "Repay Loan" : "Multiple Repay",
              path: loanRoute(first.loan.isDefi, "repay-loan"),
              payload: { borrower: owner, loans: targets.map((t) => t.loan.pubkey) },
              isTokenLoan: first.loan.isDefi,
              explainFailure: explain(targets.map((t) => t.loan)),
            });
            if (signature) setSelected(new Set());
          };
          const mixedKinds = chosen.some((r) => r.loan.isDefi !== chosen[0]?.loan.isDefi);
          // moves the loan to exactly the pool whose terms were shown (the builder is given it)
          const refinance = async (row: LoanRowView, pool: string) => {
            const signature = await tx.run({
              action: "Refinance Loan",
              path: loanRoute(row.loan.isDefi, "refinance-loan"),
              payload: { borrower: owner, loan: row.loan.pubkey, pool },
              isTokenLoan: row.loan.isDefi,
              explainFailure: explain([row.loan]),
            });
            if (signature) setMoving(null);
          };
          return (
            <>
              <PastDueAlert rows={ongoing} name={name} busy={tx.busy} onRepay={(row) => repay([row])} />
              {ongoing.length > 0 ? <ChainSlowWarning performance={performance.data} /> : null}
              {soon.length > 0 ? (
                <div className="pg-warning" role="status" data-testid="near-expiry">
                  {soon.length === 1 ? "A loan is" : `${soon.length} loans are`} due within a day. The nearest
                  is due in {formatDuration(Math.min(...soon.map((r) => Math.max(0, r.secondsToExpiry))))}:
                  repay or extend it before then.
                </div>
              ) : null}
              <section className="pg-section">
                <div className="pg-bar">
                  <h2 className="pg-h2">Ongoing ({ongoing.length})</h2>
                  <button
                    type="button"
                    className="button button-primary"
                    disabled={chosen.length < 2 || mixedKinds || tx.busy}
                    aria-describedby={chosen.length < 2 || mixedKinds ? "repay-selected-why" : undefined}
                    onClick={() => repay(chosen)}
                    data-testid="repay-selected"
                  >
                    Repay selected ({chosen.length})
                    {chosen.length > 0
                      ? ` · ${[...sumByCurrency(chosen)].map(([mint, total]) => formatMoney(total, mint, "up")).join(" + ")}`
                      : ""}
                  </button>
                  {chosen.length < 2 || mixedKinds ? (
                    <small className="pg-why" id="repay-selected-why" data-testid="repay-selected-why">
                      {mixedKinds
                        ? "Repay NFT loans and token loans separately."
                        : "Tick two or more loans to repay them together."}
                    </small>
                  ) : null}
                </div>
                {ongoing.length === 0 ? (
                  <p className="pg-state pg-empty">No ongoing loans.</p>
                ) : (
                  <LoanTable
                    chains={chains}
                    rows={ongoing}
                    name={name}
                    party="lender"
                    caption="Ongoing loans"
                    testId="ongoing-loans"
                    lead={(row) => (
                      <input
                        type="checkbox"
                        aria-label={`Select loan ${name(row.loan.collection)}`}
                        checked={selected.has(row.loan.pubkey)}
                        onChange={(e) => {
                          const next = new Set(selected);
                          if (e.target.checked) next.add(row.loan.pubkey);
                          else next.delete(row.loan.pubkey);
                          setSelected(next);
                        }}
                      />
                    )}
                    actions={(row) => (
                      <span className="pg-buttons">
                        <button
                          type="button"
                          className="button button-primary"
                          disabled={tx.busy}
                          onClick={() => repay([row])}
                        >
                          Repay
                        </button>
                        <button
                          type="button"
                          className="button"
                          disabled={tx.busy || row.phase === "liquidatable"}
                          aria-describedby={
                            row.phase === "liquidatable" ? `why-${row.loan.pubkey}` : undefined
                          }
                          onClick={() => setExtending(row.loan.pubkey)}
                        >
                          Extend
                        </button>
                        <RefinanceHint row={row} busy={tx.busy} onOpen={(r) => setMoving(r.loan.pubkey)} />
                        {row.phase === "liquidatable" ? (
                          <small className="pg-why" id={`why-${row.loan.pubkey}`} data-testid="extend-why">
                            Past grace: a loan can no longer be extended, only repaid.
                          </small>
                        ) : null}
                        <button
                          type="button"
                          className="button"
                          disabled={tx.busy}
                          onClick={() => setSelling(row.loan.pubkey)}
                          data-testid={row.loan.isDefi ? "market-sell" : "instant-sell"}
                        >
                          {row.loan.isDefi ? "Market sell" : "Instant sell"}
                        </button>
                        <CalendarLink row={row} collateral={name(row.loan.collection)} nowSeconds={now} />
                      </span>
                    )}
                  />
                )}
                {ongoing
                  .filter((r) => r.loan.pubkey === extending)
                  .map((row) => (
                    <ExtendPanel
                      key={row.loan.pubkey}
                      row={row}
                      now={now}
                      busy={tx.busy}
                      onCancel={() => setExtending(null)}
                      onConfirm={async (durationSeconds) => {
                        const signature = await tx.run({
                          action: "Extend Loan",
                          path: loanRoute(row.loan.isDefi, "extend-loan"),
                          payload: { borrower: owner, loan: row.loan.pubkey, duration: durationSeconds },
                          explainFailure: explain([row.loan]),
                        });
                        if (signature) setExtending(null);
                      }}
                    />
                  ))}
                {ongoing
                  .filter((r) => r.loan.pubkey === moving)
                  .map((row) => (
                    <RefinancePanel
                      key={row.loan.pubkey}
                      row={row}
                      now={now}
                      busy={tx.busy}
                      onCancel={() => setMoving(null)}
                      onConfirm={(offer) => void refinance(row, offer.pool)}
                    />
                  ))}
                {ongoing
                  .filter((r) => r.loan.pubkey === selling && !r.loan.isDefi)
                  .map((row) => (
                    <InstantSellPanel
                      key={row.loan.pubkey}
                      row={row}
                      owner={owner}
                      busy={tx.busy}
                      onCancel={() => setSelling(null)}
                      onConfirm={async (quote) => {
                        const signature = await tx.run({
                          action: "Market Sell NFT",
                          path: "/nft/instant-sell",
                          payload: { borrower: owner, loan: row.loan.pubkey, minPrice: quote.bidPrice },
                          explainFailure: explain([row.loan]),
                        });
                        if (signature) setSelling(null);
                      }}
                    />
                  ))}
                {ongoing
                  .filter((r) => r.loan.pubkey === selling && r.loan.isDefi)
                  .map((row) => (
                    <MarketSellPanel
                      key={row.loan.pubkey}
                      row={row}
                      owner={owner}
                      busy={tx.busy}
                      onCancel={() => setSelling(null)}
                      onConfirm={async (slippageBps) => {
                        const signature = await tx.run({
                          action: "Market Sell",
                          path: "/defi/market-sell",
                          payload: { borrower: owner, loan: row.loan.pubkey, slippageBps },
                          isTokenLoan: true,
                          explainFailure: explain([row.loan]),
                        });
                        if (signature) setSelling(null);
                      }}
                    />
                  ))}
              </section>
              {/* a tool, not a notice: under the loans so the row actions stay on the first screen */}
              <CalendarFeed />
              <section className="pg-section">
                <h2 className="pg-h2">History ({history.length})</h2>
                {history.length === 0 ? (
                  <p className="pg-state pg-empty">No closed loans yet.</p>
                ) : (
                  <LoanTable
                    chains={chains}
                    rows={history}
                    history
                    name={name}
                    party="lender"
                    caption="Closed loans"
                    testId="loan-history"
                  />
                )}
              </section>
            </>
          );
        }}
      </QueryState>
    </>
  );
}

function LenderLoans({ owner }: { owner: string }) {
  const loans = useLenderLoans(owner);
  const followed = useLoansFollowingChain(loans.data?.loans);
  const explain = useLoanFailureExplainer("lender");
  const now = useChainNow();
  const name = useCollateralNamer();
  const tx = usePageTransaction();
  return (
    <QueryState
      query={loans}
      label="loans on your pools"
      isEmpty={(l) => l.loans.length === 0}
      empty="No one has borrowed from your pools yet."
    >
      {(list) => {
        const { rows, chains } = foldExtensions(
          (followed ?? list.loans).map((loan) => viewLoan(loan, owner, now)),
        );
        const ongoing = rows.filter((r) => r.loan.status === "Ongoing");
        const history = rows.filter((r) => r.loan.status !== "Ongoing");
        const claimable = ongoing.filter(canLiquidate);
        const liquidate = (row: LoanRowView) =>
          tx.run({
            action: "Liquidate Loan",
            path: loanRoute(row.loan.isDefi, "liquidate-loan"),
            payload: { loan: row.loan.pubkey, payer: owner },
            isTokenLoan: row.loan.isDefi,
            explainFailure: explain([row.loan]),
          });
        return (
          <>
            {claimable.length > 0 ? (
              <div className="pg-warning" role="status" data-testid="liquidatable-note">
                {claimable.length} loan{claimable.length === 1 ? " is" : "s are"} past expiry and grace
                without repayment. Liquidate to take the collateral into your wallet.
              </div>
            ) : null}
            <section className="pg-section">
              <h2 className="pg-h2">Ongoing ({ongoing.length})</h2>
              {ongoing.length === 0 ? (
                <p className="pg-state pg-empty">No ongoing loans on your pools.</p>
              ) : (
                <LoanTable
                  chains={chains}
                  rows={ongoing}
                  name={name}
                  party="borrower"
                  caption="Loans drawn on your pools"
                  testId="lender-loans"
                  actions={(row) =>
                    canLiquidate(row) ? (
                      <button
                        type="button"
                        className="button button-primary"
                        disabled={tx.busy}
                        onClick={() => liquidate(row)}
                        aria-label={`Liquidate loan ${name(row.loan.collection)}`}
                        data-testid="liquidate"
                      >
                        Liquidate
                      </button>
                    ) : null
                  }
                />
              )}
              <p className="muted pg-small">
                Owed-now figures include Cistern's share of the interest (20%); your pool keeps the rest.
              </p>
            </section>
            <section className="pg-section">
              <h2 className="pg-h2">History ({history.length})</h2>
              {history.length === 0 ? (
                <p className="pg-state pg-empty">No closed loans on your pools yet.</p>
              ) : (
                <LoanTable
                  chains={chains}
                  rows={history}
                  history
                  name={name}
                  party="borrower"
                  caption="Closed loans on your pools"
                  testId="lender-loan-history"
                />
              )}
            </section>
          </>
        );
      }}
    </QueryState>
  );
}
