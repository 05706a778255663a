import { computeUtilisationPercent, getDurationDays, type ParsedPool } from "@cistern/protocol";
import { formatBps, formatMoney } from "../../kit/format.ts";
import { Link } from "../../kit/page-kit.tsx";
import { useCollateralNamer } from "./collateral-name.tsx";

/** How many accepted collaterals a card names before "+N more". */
const NAMED_COLLATERALS = 3;

/** Pool name, or a fallback from its address. */
export function poolName(pool: ParsedPool): string {
  return pool.metadata.name.trim() || `Pool ${pool.pubkey.slice(0, 4)}`;
}

/** A grid of pool cards linking to each pool's page. */
export function PoolCards({ pools }: { pools: ParsedPool[] }) {
  const name = useCollateralNamer();
  return (
    <ul className="pg-grid" data-testid="pool-cards">
      {pools.map((pool) => (
        <li key={pool.pubkey} className="card pg-pool-card">
          <Link to={`/pools/${pool.pubkey}`} className="pg-card-link">
            <div className="pg-pool-title">
              {pool.metadata.thumbnail ? (
                <img src={pool.metadata.thumbnail} alt="" width={36} height={36} loading="lazy" />
              ) : (
                <span className="pg-avatar" aria-hidden="true">
                  {poolName(pool).slice(0, 1)}
                </span>
              )}
              <strong>{poolName(pool)}</strong>
              <span className="pg-badge">{pool.type === "nft-pool" ? "NFT" : "Token"}</span>
            </div>
            <dl className="pg-mini">
              <div>
                <dt>APR</dt>
                <dd>{formatBps(pool.loanCurve.apr)}</dd>
              </div>
              <div>
                <dt>Available</dt>
                <dd>{formatMoney(pool.availableLiquidity, pool.currency)}</dd>
              </div>
              <div>
                <dt>Max duration</dt>
                <dd>{getDurationDays(pool.limits.maxDuration)}d</dd>
              </div>
              <div>
                <dt>Utilisation</dt>
                <dd>{computeUtilisationPercent(pool.borrowedLiquidity, pool.totalLiquidity)}%</dd>
              </div>
            </dl>
            <p className="pg-small pg-accepts" data-testid="pool-accepts">
              Accepts{" "}
              {pool.collections
                .slice(0, NAMED_COLLATERALS)
                .map((c) => `${name(c.collection)} at ${formatBps(c.collectionLtv)} LTV`)
                .join(", ")}
              {pool.collections.length > NAMED_COLLATERALS
                ? `, +${pool.collections.length - NAMED_COLLATERALS} more`
                : ""}
              {pool.collections.length === 0 ? "nothing yet" : ""}
            </p>
          </Link>
        </li>
      ))}
    </ul>
  );
}
