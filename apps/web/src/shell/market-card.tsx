import { parseTvl } from "../features/dashboard/dashboard-data.ts";
import { parsePoolPage } from "../features/pools/pool-data.ts";
import { useApiQuery } from "../kit/api.ts";
import { formatBps, formatMoney, formatUsd } from "../kit/format.ts";
import { Link } from "../kit/page-kit.tsx";

/**
 * The market at a glance for the home page: the best open APR, what can be borrowed now in each currency and
 * the value deposited, with the two actions a visitor came for.
 */
export function MarketCard() {
  const tvl = useApiQuery("stats", "/tvl", {}, parseTvl);
  const pools = useApiQuery("pool", "/dirty/pools", { status: "Open", limit: 100 }, parsePoolPage);
  const open = pools.data?.pools ?? [];
  const aprs = open.map((p) => p.loanCurve.apr);
  const aprRange =
    aprs.length === 0
      ? "—"
      : Math.min(...aprs) === Math.max(...aprs)
        ? formatBps(aprs[0]!)
        : `${formatBps(Math.min(...aprs))} – ${formatBps(Math.max(...aprs))}`;
  return (
    <section className="card home-market" aria-labelledby="market-title" data-testid="home-market">
      <h2 id="market-title">The market now</h2>
      {tvl.isError && pools.isError ? (
        <p className="muted">Market figures are unavailable: the API is not reachable.</p>
      ) : (
        <dl className="stats">
          <div>
            <dt>Open pools</dt>
            <dd data-testid="home-open-pools">{pools.data ? open.length : "…"}</dd>
          </div>
          <div>
            <dt>Loan APRs</dt>
            <dd data-testid="home-apr-range">{pools.data ? aprRange : "…"}</dd>
          </div>
          {(tvl.data?.byCurrency ?? []).map((c) => (
            <div key={c.currency}>
              <dt>Available to borrow</dt>
              <dd>{formatMoney(c.totalLiquidity - c.borrowedLiquidity, c.currency)}</dd>
            </div>
          ))}
          <div>
            <dt>Total deposited</dt>
            <dd>{tvl.data ? formatUsd(tvl.data.tvlUsd) : "…"}</dd>
          </div>
        </dl>
      )}
      <div className="pg-buttons">
        <Link to="/borrow" className="button button-primary">
          Borrow
        </Link>
        <Link to="/lend" className="button">
          Lend
        </Link>
      </div>
    </section>
  );
}
