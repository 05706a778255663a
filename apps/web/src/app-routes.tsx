import { lazy, Suspense } from "react";
import "./kit/pages.css";
import { setRoutePrefetcher } from "./kit/prefetch.ts";

/** Each feature page's code (one chunk per page, loaded on first visit or when a link to it nears the screen). */
const load = {
  lend: () => import("./features/lend/market-page.tsx"),
  pools: () => import("./features/pools/pools-page.tsx"),
  pool: () => import("./features/pools/pool-page.tsx"),
  borrow: () => import("./features/borrow/borrow-page.tsx"),
  margin: () => import("./features/margin/margin-page.tsx"),
  buy: () => import("./features/buy/buy-page.tsx"),
  loans: () => import("./features/loans/loans-page.tsx"),
  dashboard: () => import("./features/dashboard/dashboard-page.tsx"),
  myPools: () => import("./features/my-pools/my-pools-page.tsx"),
};

const MarketPage = lazy(() => load.lend().then((m) => ({ default: m.MarketPage })));
const PoolsPage = lazy(() => load.pools().then((m) => ({ default: m.PoolsPage })));
const PoolPage = lazy(() => load.pool().then((m) => ({ default: m.PoolPage })));
const BorrowPage = lazy(() => load.borrow().then((m) => ({ default: m.BorrowPage })));
const MarginPage = lazy(() => load.margin().then((m) => ({ default: m.MarginPage })));
const BuyPage = lazy(() => load.buy().then((m) => ({ default: m.BuyPage })));
const LoansPage = lazy(() => load.loans().then((m) => ({ default: m.LoansPage })));
const DashboardPage = lazy(() => load.dashboard().then((m) => ({ default: m.DashboardPage })));
const MyPoolsPage = lazy(() => load.myPools().then((m) => ({ default: m.MyPoolsPage })));
const CreatePoolPage = lazy(() => load.myPools().then((m) => ({ default: m.CreatePoolPage })));
const EditPoolPage = lazy(() => load.myPools().then((m) => ({ default: m.EditPoolPage })));

/** The page code behind a path, for link prefetch (null for the home page and unknown paths). */
function loaderOf(path: string): (() => Promise<unknown>) | null {
  const [, first = "", second] = (path.replace(/\/+$/, "") || "/").split("/");
  switch (first) {
    case "lend":
      return load.lend;
    case "pools":
      return second === undefined ? load.pools : load.pool;
    case "borrow":
      return load.borrow;
    case "margin":
      return load.margin;
    case "buy":
      return load.buy;
    case "loans":
      return load.loans;
    case "dashboard":
      return load.dashboard;
    case "my-pools":
      return load.myPools;
    default:
      return null;
  }
}

setRoutePrefetcher((path) => {
  loaderOf(path)?.().catch(() => undefined);
});

const ADDRESS = "([1-9A-HJ-NP-Za-km-z]{32,44})";

function match(path: string) {
  const clean = path.replace(/\/+$/, "") || "/";
  switch (clean) {
    case "/borrow":
      return <BorrowPage />;
    case "/margin":
      return <MarginPage />;
    case "/buy":
      return <BuyPage />;
    case "/lend":
      return <MarketPage />;
    case "/pools":
      return <PoolsPage />;
    case "/my-pools":
      return <MyPoolsPage />;
    case "/my-pools/new":
      return <CreatePoolPage />;
    case "/loans":
      return <LoansPage />;
    case "/dashboard":
      return <DashboardPage />;
  }
  const pool = new RegExp(`^/pools/${ADDRESS}$`).exec(clean);
  if (pool) return <PoolPage key={pool[1]} pubkey={pool[1]!} />;
  const edit = new RegExp(`^/my-pools/${ADDRESS}$`).exec(clean);
  if (edit) return <EditPoolPage key={edit[1]} pubkey={edit[1]!} />;
  return null;
}

function PageFallback() {
  return (
    <main className="page pg">
      <div className="pg-state" aria-busy="true">
        <span className="pg-spinner" aria-hidden="true" /> Loading…
      </div>
    </main>
  );
}

/**
 * The feature page for a path (each page's code loads on first visit), or null when no feature
 * page has this path.
 */
export function renderFeaturePage(path: string) {
  const page = match(path);
  return page === null ? null : <Suspense fallback={<PageFallback />}>{page}</Suspense>;
}
