import { formatNumber, shortenAddress } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useApiQuery } from "../../kit/api.ts";
import { formatMoney, formatUsd, symbolOf } from "../../kit/format.ts";
import { Page, QueryState, Stats } from "../../kit/page-kit.tsx";
import { useBorrowerLoans } from "../loans/loan-data.ts";
import { useCollateralNamer } from "../pools/collateral-name.tsx";
import { ProfileForm } from "../profile/profile-form.tsx";
import { RewardsSection } from "../profile/rewards-section.tsx";
import { BarList, ColumnChart, LineChart } from "./charts.tsx";
import {
  parseCollateral,
  parseCollectionStats,
  parseLiabilities,
  parseTopUsers,
  parseTotals,
  parseTvl,
  parseUserStats,
  parseVolume,
} from "./dashboard-data.ts";

/** Axis and peak labels: the spec's k / M / G abbreviations ("$1.5k"). */
const compactUsd = (v: number) => `$${formatNumber(v, 1)}`;

/** Protocol figures for everyone; the connected wallet's own figures on top. */
export function DashboardPage() {
  const { publicKey } = useWallet();
  return (
    <Page title="Dashboard" lead="Your position and the protocol at a glance.">
      {publicKey ? <UserSection owner={publicKey.toBase58()} /> : null}
      <ProtocolSection />
    </Page>
  );
}

function UserSection({ owner }: { owner: string }) {
  const stats = useApiQuery("user-stats", "/loan/stats-per-user", { pubkey: owner }, parseUserStats);
  const collateral = useApiQuery(
    "collateral-total",
    "/dirty/collateralized-amount-by-user",
    { pubkey: owner },
    parseCollateral,
  );
  const liabilities = useApiQuery(
    "user-stats",
    "/liquidity/liabilities",
    { pubkey: owner, days: 30 },
    parseLiabilities,
  );
  const name = useCollateralNamer();
  const loans = useBorrowerLoans(owner);
  // Collateral is listed by mint; an NFT is named after its collection (from the wallet's loans).
  const collectionOf = new Map((loans.data?.loans ?? []).map((l) => [l.collateral, l.collection]));
  const collateralName = (mint: string) => name(collectionOf.get(mint) ?? mint);
  return (
    <section className="pg-section" aria-labelledby="you-title">
      <h2 id="you-title" className="pg-h2">
        You
      </h2>
      <div className="pg-grid">
        <div className="card pg-section">
          <h3>User stats</h3>
          <QueryState query={stats} label="your stats">
            {(s) => (
              <Stats
                items={[
                  { label: "Loans taken", value: s.asBorrower.totalLoans },
                  { label: "Ongoing", value: s.asBorrower.ongoingLoans },
                  { label: "Borrowed", value: formatUsd(s.asBorrower.volumeUsd) },
                  { label: "Loans funded", value: s.asLender.totalLoans },
                  { label: "Lent", value: formatUsd(s.asLender.volumeUsd) },
                  { label: "Liquidated", value: s.asBorrower.liquidatedLoans },
                ]}
              />
            )}
          </QueryState>
        </div>
        <div className="card pg-section">
          <h3>Collateral locked</h3>
          <QueryState
            query={collateral}
            label="your collateral"
            isEmpty={(c) => c.details.length === 0}
            empty="No collateral locked in loans."
          >
            {(c) => (
              <>
                <p className="pg-big" data-testid="collateral-total">
                  {formatUsd(c.totalUsd)}
                </p>
                <BarList
                  title="Collateral by asset"
                  items={c.details.map((d) => ({
                    label: collateralName(d.collateral),
                    value: d.usdAmount,
                    title: d.collateral,
                  }))}
                  format={formatUsd}
                />
              </>
            )}
          </QueryState>
        </div>
      </div>
      <div className="card pg-section">
        <h3>Liabilities and assets, 30 days</h3>
        <QueryState
          query={liabilities}
          label="your history"
          isEmpty={(l) => l.every((p) => p.liabilitiesUsd === 0 && p.assetsUsd === 0)}
          empty="No loans in the last 30 days: borrow to see your liabilities and collateral here."
        >
          {(points) => (
            <LineChart
              title="Liabilities and collateral value per day (USD)"
              labels={points.map((p) => p.date.slice(5))}
              series={[
                { name: "Liabilities", color: "var(--danger)", values: points.map((p) => p.liabilitiesUsd) },
                { name: "Collateral", color: "var(--accent)", values: points.map((p) => p.assetsUsd) },
              ]}
              format={compactUsd}
              formatLatest={formatUsd}
            />
          )}
        </QueryState>
      </div>
      <RewardsSection owner={owner} />
      <ProfileForm owner={owner} />
    </section>
  );
}

function ProtocolSection() {
  const tvl = useApiQuery("stats", "/tvl", {}, parseTvl);
  const totals = useApiQuery("stats", "/loan/stats-total", {}, parseTotals);
  const volume = useApiQuery("stats", "/loan/volume-stats", { days: 30 }, parseVolume);
  const collections = useApiQuery("stats", "/loan/stats-per-collection", { limit: 10 }, parseCollectionStats);
  const top = useApiQuery("stats", "/dirty/top-users", { role: "borrower", limit: 10 }, parseTopUsers);
  const name = useCollateralNamer();
  return (
    <section className="pg-section" aria-labelledby="protocol-title">
      <h2 id="protocol-title" className="pg-h2">
        Protocol
      </h2>
      <div className="card pg-section">
        <QueryState query={tvl} label="TVL">
          {(t) => (
            <>
              <Stats
                items={[
                  { label: "TVL", value: formatUsd(t.tvlUsd) },
                  ...t.byCurrency.map((c) => ({
                    label: `Lent out of ${formatMoney(c.totalLiquidity, c.currency)}`,
                    value: formatMoney(c.borrowedLiquidity, c.currency),
                  })),
                  ...(totals.data
                    ? [
                        { label: "Loans", value: totals.data.totalLoans },
                        { label: "Ongoing", value: totals.data.ongoingLoans },
                        { label: "Volume", value: formatUsd(totals.data.volumeUsd) },
                      ]
                    : []),
                ]}
              />
              <BarList
                title="TVL by currency"
                items={t.byCurrency.map((c) => ({ label: symbolOf(c.currency), value: c.tvlUsd }))}
                format={formatUsd}
              />
            </>
          )}
        </QueryState>
      </div>
      <div className="pg-grid">
        <div className="card pg-section">
          <h3>Daily volume, 30 days</h3>
          <QueryState
            query={volume}
            label="volume"
            isEmpty={(v) => v.every((d) => d.volumeUsd === 0)}
            empty="No loans in the last 30 days."
          >
            {(days) => (
              <ColumnChart
                title="Principal lent per day (USD)"
                labels={days.map((d) => new Date(d.date * 1000).toISOString().slice(5, 10))}
                values={days.map((d) => d.volumeUsd)}
                format={compactUsd}
              />
            )}
          </QueryState>
        </div>
        <div className="card pg-section">
          <h3>By collection</h3>
          <QueryState query={collections} label="collection stats" isEmpty={(c) => c.length === 0}>
            {(rows) => (
              <BarList
                title="Volume per collection (USD)"
                items={rows.map((r) => ({
                  label: `${name(r.collection)} · ${r.ongoingLoans}/${r.totalLoans} ongoing`,
                  value: r.volumeUsd,
                  title: r.collection,
                }))}
                format={formatUsd}
              />
            )}
          </QueryState>
        </div>
        <div className="card pg-section">
          <h3>Top borrowers</h3>
          <QueryState query={top} label="top users" isEmpty={(u) => u.length === 0}>
            {(users) => (
              <ol className="pg-ranking" data-testid="top-users">
                {users.map((u) => (
                  <li key={u.user}>
                    <span title={u.user}>{shortenAddress(u.user)}</span>
                    <span>{u.loans} loans</span>
                    <strong>{formatUsd(u.volumeUsd)}</strong>
                  </li>
                ))}
              </ol>
            )}
          </QueryState>
        </div>
      </div>
    </section>
  );
}
