import { formatUnits, getCurrencyByMint, listCurrencies, type ParsedPool } from "@cistern/protocol";
import { useState } from "react";
import { usePrices } from "../../data/prices.ts";
import { Page, QueryState } from "../../kit/page-kit.tsx";
import { PoolCards } from "./pool-cards.tsx";
import { usePools } from "./pool-data.ts";
import { DEFAULT_POOL_FILTERS, filterAndSortPools, type PoolFilters, type PoolSort } from "./pool-filters.ts";

/** All open pools (of every currency, or one) with search, type and sort. */
export function PoolsPage() {
  const currencies = listCurrencies();
  const [currency, setCurrency] = useState("");
  const [filters, setFilters] = useState<PoolFilters>(DEFAULT_POOL_FILTERS);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const active =
    (currency === "" ? 0 : 1) + (filters.type === "" ? 0 : 1) + (filters.search.trim() === "" ? 0 : 1);
  const pools = usePools(currency === "" ? {} : { currency });
  const prices = usePrices();
  const liquidityUsd = (pool: ParsedPool) => {
    const decimals = getCurrencyByMint(pool.currency)?.decimals;
    const price = Number(prices.data?.[pool.currency] ?? 0);
    return decimals === undefined ? 0 : Number(formatUnits(pool.availableLiquidity, decimals)) * price;
  };
  const set = (patch: Partial<PoolFilters>) => setFilters((f) => ({ ...f, ...patch }));
  return (
    <Page
      title="Pools"
      lead="Every open pool, its rate, duration and liquidity. Open a pool for its full terms."
    >
      {/* phones: the filters fold behind one button so the pools come first */}
      <button
        type="button"
        className="button pg-filters-toggle"
        aria-expanded={filtersOpen}
        aria-controls="pool-filters"
        onClick={() => setFiltersOpen((o) => !o)}
        data-testid="filters-toggle"
      >
        Filters and sort{active > 0 ? ` (${active} active)` : ""}
      </button>
      <form
        id="pool-filters"
        className={filtersOpen ? "pg-filters is-open" : "pg-filters"}
        aria-label="Filter pools"
        onSubmit={(e) => e.preventDefault()}
      >
        <label>
          Currency
          <select value={currency} onChange={(e) => setCurrency(e.target.value)}>
            <option value="">All</option>
            {currencies.map((c) => (
              <option key={c.mint} value={c.mint}>
                {c.symbol}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={filters.type} onChange={(e) => set({ type: e.target.value as PoolFilters["type"] })}>
            <option value="">All</option>
            <option value="nft-pool">NFT collateral</option>
            <option value="defi-pool">Token collateral</option>
          </select>
        </label>
        <label>
          Sort
          <select value={filters.sort} onChange={(e) => set({ sort: e.target.value as PoolSort })}>
            <option value="liquidity">Most liquidity</option>
            <option value="apr-high">Highest APR</option>
            <option value="apr-low">Lowest APR</option>
            <option value="duration">Longest duration</option>
            <option value="newest">Newest</option>
          </select>
        </label>
        <label className="pg-grow">
          Search
          <input
            type="search"
            placeholder="Name, pool or owner address"
            value={filters.search}
            onChange={(e) => set({ search: e.target.value })}
          />
        </label>
      </form>
      <QueryState query={pools} label="pools">
        {(page) => {
          const shown = filterAndSortPools(page.pools, filters, liquidityUsd);
          return shown.length === 0 ? (
            <div className="pg-state pg-empty" data-testid="state-empty">
              No pools match these filters.
            </div>
          ) : (
            <>
              <p className="muted" data-testid="pool-count">
                {shown.length} of {page.totalCount} pools
              </p>
              <PoolCards pools={shown} />
            </>
          );
        }}
      </QueryState>
    </Page>
  );
}
