import {
  computeExposureCapacity,
  computeGraceSeconds,
  computeUtilisationPercent,
  getDurationDays,
  type Loan,
  type ParsedPool,
  shortenAddress,
} from "@cistern/protocol";
import { formatBps, formatDateTime, formatMoney, formatUsd } from "../../kit/format.ts";
import { Link, Page, QueryState, Stats, TableScroll } from "../../kit/page-kit.tsx";
import { useCollateralNamer } from "./collateral-name.tsx";
import { poolName } from "./pool-cards.tsx";
import { usePool, usePoolLoans } from "./pool-data.ts";

/** A pool's page: terms, accepted collateral with LTV and exposure, loans and history. */
export function PoolPage({ pubkey }: { pubkey: string }) {
  const pool = usePool(pubkey);
  return (
    <QueryState
      query={pool}
      label="the pool"
      isEmpty={(p) => p === null}
      empty={
        <Page title="Pool not found">
          <p>No pool exists at {pubkey}.</p>
        </Page>
      }
    >
      {(p) => <PoolDetails pool={p!} />}
    </QueryState>
  );
}

function PoolDetails({ pool }: { pool: ParsedPool }) {
  const name = useCollateralNamer();
  const loans = usePoolLoans(pool.pubkey);
  const isNft = pool.type === "nft-pool";
  const maxDays = getDurationDays(pool.limits.maxDuration);
  return (
    <Page
      title={poolName(pool)}
      lead={
        <>
          {isNft ? "NFT-collateral" : "Token-collateral"} pool · {pool.status} · owner{" "}
          <span title={pool.owner}>{shortenAddress(pool.owner)}</span>
        </>
      }
      actions={
        pool.status === "Open" ? (
          <Link to={`/borrow?pool=${pool.pubkey}`} className="button button-primary">
            Borrow from this pool
          </Link>
        ) : null
      }
    >
      <section className="card pg-section" aria-labelledby="terms-title" data-testid="pool-terms">
        <h2 id="terms-title">Terms</h2>
        <Stats
          items={[
            { label: "APR", value: formatBps(pool.loanCurve.apr) },
            { label: "Duration", value: `1 – ${maxDays} days` },
            {
              label: "Loan size",
              value: `${formatUsd(pool.limits.minAmountUsd)} – ${formatUsd(pool.limits.maxAmountUsd)}`,
            },
            { label: "Total liquidity", value: formatMoney(pool.totalLiquidity, pool.currency) },
            { label: "Available", value: formatMoney(pool.availableLiquidity, pool.currency) },
            { label: "Borrowed", value: formatMoney(pool.borrowedLiquidity, pool.currency) },
            {
              label: "Utilisation",
              value: `${computeUtilisationPercent(pool.borrowedLiquidity, pool.totalLiquidity)}%`,
            },
            { label: "Interest earned", value: formatMoney(pool.totalInterest, pool.currency) },
          ]}
        />
        <ul className="pg-facts">
          <li>
            Grace period after expiry: {Math.round(computeGraceSeconds(pool.limits.maxDuration) / 3600)} h for
            a {maxDays}-day loan (1 h per loan day, at most 8 h). Late repayment costs twice the rate per
            hour.
          </li>
          <li>Auto-sell of liquidated collateral: {pool.isAutoSellEnabled ? "on" : "off"}.</li>
          {isNft ? (
            <li data-testid="pool-mortgages">
              {pool.isMortgageEnabled ? (
                <>
                  Mortgages: on at {formatBps(pool.mortgageCurve.apr)} APR ("Buy NFTs"); {pool.totalMortgages}{" "}
                  taken
                  {pool.lastMortgageAt ? `, the last on ${formatDateTime(pool.lastMortgageAt)}` : ""}.
                </>
              ) : (
                <>
                  Mortgages: off
                  {pool.totalMortgages > 0 ? ` (${pool.totalMortgages} taken while they were on)` : ""}.
                </>
              )}
            </li>
          ) : null}
          {pool.conditions.isEnabled ? (
            <li>
              Borrower conditions: wallet age ≥ {Math.round(pool.conditions.minAge / 86_400)} days, ≥{" "}
              {pool.conditions.minLoan} past loans, volume ≥ {formatUsd(pool.conditions.minVolume)}.
            </li>
          ) : (
            <li>No borrower conditions.</li>
          )}
          {pool.conditions.whitelist !== "11111111111111111111111111111111" ? (
            <li>Private pool: only whitelisted wallets may borrow.</li>
          ) : null}
        </ul>
      </section>

      <section className="card pg-section" aria-labelledby="collateral-title">
        <h2 id="collateral-title">{isNft ? "Collections" : "Tokens"} accepted</h2>
        {pool.collections.length === 0 ? (
          <p className="muted">This pool accepts no collateral yet.</p>
        ) : (
          <TableScroll label={isNft ? "Collections accepted" : "Tokens accepted"}>
            <table className="pg-table" data-testid="pool-collateral">
              <thead>
                <tr>
                  <th scope="col">{isNft ? "Collection" : "Token"}</th>
                  <th scope="col">LTV</th>
                  <th scope="col">Exposure</th>
                  <th scope="col">Borrowed</th>
                  <th scope="col">Still lendable</th>
                </tr>
              </thead>
              <tbody>
                {pool.collections.map((c) => (
                  <tr key={c.collection}>
                    <th scope="row" title={c.collection}>
                      {name(c.collection)}
                    </th>
                    <td>{formatBps(c.collectionLtv)}</td>
                    <td>{formatBps(c.exposure)}</td>
                    <td>{formatMoney(c.borrowedAmount, pool.currency)}</td>
                    <td>
                      {formatMoney(
                        computeExposureCapacity(pool.totalLiquidity, c.exposure, c.borrowedAmount),
                        pool.currency,
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>

      <section className="card pg-section" aria-labelledby="loans-title">
        <h2 id="loans-title">Loans and history</h2>
        <QueryState query={loans} label="loans" isEmpty={(l) => l.loans.length === 0} empty="No loans yet.">
          {(list) => <PoolLoanTable loans={list.loans} name={name} />}
        </QueryState>
      </section>
    </Page>
  );
}

function PoolLoanTable({ loans, name }: { loans: Loan[]; name: (id: string) => string }) {
  return (
    <TableScroll label="Loans of this pool">
      <table className="pg-table" data-testid="pool-loans">
        <thead>
          <tr>
            <th scope="col">Opened</th>
            <th scope="col">Collateral</th>
            <th scope="col">Principal</th>
            <th scope="col">Interest</th>
            <th scope="col">Status</th>
            <th scope="col">Borrower</th>
          </tr>
        </thead>
        <tbody>
          {loans.map((loan) => (
            <tr key={loan.pubkey}>
              <td>{formatDateTime(loan.createdAt)}</td>
              <td title={loan.collateral}>{name(loan.collection)}</td>
              <td>{formatMoney(loan.amount, loan.currency)}</td>
              <td>{formatMoney(loan.interest, loan.currency)}</td>
              <td>
                <span className={`pg-status pg-status-${loan.status.toLowerCase()}`}>{loan.status}</span>
              </td>
              <td title={loan.borrower}>{shortenAddress(loan.borrower)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
