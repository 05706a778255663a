import { listCurrencies, parsePool } from "@cistern/protocol";
import { useState } from "react";
import { useApiQuery } from "../../kit/api.ts";
import { formatBps, formatMoney, formatUsd } from "../../kit/format.ts";
import { Link, Page, QueryState, Stats, Tabs } from "../../kit/page-kit.tsx";
import { lendingVenueName } from "../my-pools/delegation-panel.tsx";
import { PoolCards } from "../pools/pool-cards.tsx";
import { OpenRequests } from "../requests/request-list.tsx";

/** GET /liquidity/summary, parsed. */
export function parseLiquiditySummary(body: unknown) {
  const raw = body as Record<string, unknown>;
  return {
    currency: String(raw.currency),
    totalPools: Number(raw.totalPools ?? 0),
    averageAprBps: Number(raw.averageApr ?? 0),
    medianAprBps: Number(raw.medianApr ?? 0),
    availableLiquidity: BigInt(String(raw.availableLiquidity ?? "0")),
    availableLiquidityUsd: Number(raw.availableLiquidityUsd ?? 0),
    totalBorrowed: BigInt(String(raw.totalBorrowed ?? "0")),
    utilizationRatio: Number(raw.utilizationRatio ?? 0),
    pairsSupported: Number(raw.pairsSupported ?? 0),
    largestPools: ((raw.largestPools as unknown[]) ?? []).map(parsePool),
  };
}

/** The lend page: a market overview per lending currency, then its largest pools. */
export function MarketPage() {
  const currencies = listCurrencies();
  const [mint, setMint] = useState(currencies[0]!.mint);
  const summary = useApiQuery("pool", "/liquidity/summary", { currency: mint }, parseLiquiditySummary);
  const venue = useApiQuery("pool", "/marginfi/reserve", { mint }, (body) => {
    const b = body as { isDelegationSupported?: boolean; rateBps?: number; venue?: string | null };
    return {
      supported: b.isDelegationSupported === true,
      rateBps: Number(b.rateBps ?? 0),
      venueName: lendingVenueName(b.venue),
    };
  });
  return (
    <Page
      title="Lend"
      lead="Earn interest by funding a pool. You set the rate, the duration and what you accept as collateral; loans never liquidate on price."
      actions={
        <>
          <Link to="/pools" className="button">
            Browse pools
          </Link>
          <Link to="/my-pools/new" className="button button-primary">
            Create a pool
          </Link>
        </>
      }
    >
      <Tabs
        label="Currency"
        value={mint}
        onChange={(value) => setMint(value)}
        options={currencies.map((c) => ({ value: c.mint, label: c.symbol }))}
      />
      <QueryState query={summary} label="the market">
        {(s) => (
          <>
            <section className="card pg-section" aria-label="Market overview" data-testid="market-summary">
              <Stats
                items={[
                  { label: "Pools", value: s.totalPools },
                  { label: "Average APR", value: formatBps(s.averageAprBps) },
                  { label: "Median APR", value: formatBps(s.medianAprBps) },
                  {
                    label: "Available liquidity",
                    value: (
                      <>
                        {formatMoney(s.availableLiquidity, mint)}
                        <small className="muted"> {formatUsd(s.availableLiquidityUsd)}</small>
                      </>
                    ),
                  },
                  { label: "Borrowed", value: formatMoney(s.totalBorrowed, mint) },
                  { label: "Utilisation", value: `${(s.utilizationRatio * 100).toFixed(1)}%` },
                  { label: "Collateral pairs", value: s.pairsSupported },
                ]}
              />
              <UtilisationBar ratio={s.utilizationRatio} />
              {venue.data?.supported ? (
                <CombinedYield
                  utilization={s.utilizationRatio}
                  medianAprBps={s.medianAprBps}
                  venueRateBps={venue.data.rateBps}
                  venueName={venue.data.venueName}
                />
              ) : null}
            </section>
            <h2 className="pg-h2">Largest pools</h2>
            {s.largestPools.length === 0 ? (
              <div className="pg-state pg-empty" data-testid="state-empty">
                No open pools lend this currency yet. <Link to="/my-pools/new">Be the first.</Link>
              </div>
            ) : (
              <PoolCards pools={s.largestPools} />
            )}
          </>
        )}
      </QueryState>
      <OpenRequests currency={mint} />
    </Page>
  );
}

/**
 * Pool interest plus the lending venue's yield on idle funds, labelled for what it is: an estimate at today's
 * utilisation and median APR, for a bank whose idle funds are delegated.
 */
function CombinedYield({
  utilization,
  medianAprBps,
  venueRateBps,
  venueName,
}: {
  utilization: number;
  medianAprBps: number;
  venueRateBps: number;
  venueName: string;
}) {
  const u = Math.max(0, Math.min(1, utilization));
  const combinedBps = Math.round(u * medianAprBps + (1 - u) * venueRateBps);
  return (
    <p className="pg-small" data-testid="combined-yield">
      <strong>Idle funds can earn {formatBps(venueRateBps)} a year</strong> in {venueName} until a borrower
      needs them (Delegate on My pools). At today's {(u * 100).toFixed(1)}% utilisation, a bank at the median
      APR whose idle funds are delegated earns about <strong>{formatBps(combinedBps)}</strong> a year on its
      whole deposit: {formatBps(medianAprBps)} on the lent part, {formatBps(venueRateBps)} on the rest. An
      estimate: both rates and utilisation change.
    </p>
  );
}

function UtilisationBar({ ratio }: { ratio: number }) {
  const percent = Math.max(0, Math.min(100, ratio * 100));
  return (
    <div className="pg-meter" aria-hidden="true">
      <span style={{ width: `${percent}%` }} />
    </div>
  );
}
