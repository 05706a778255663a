import { lazy, Suspense } from "react";
import "./pages.css";

const MarketPage = lazy(() =>
  import("../features/lend/market-page.tsx").then((m) => ({ default: m.MarketPage })),
);
const PoolsPage = lazy(() =>
  import("../features/pools/pools-page.tsx").then((m) => ({ default: m.PoolsPage })),
);
const PoolPage = lazy(() => import("../features/pools/pool-page.tsx").then((m) => ({ default: m.PoolPage })));
const BorrowPage = lazy(() =>
  import("../features/borrow/borrow-page.tsx").then((m) => ({ default: m.BorrowPage })),
);
const MarginPage = lazy(() =>
  import("../features/margin/margin-page.tsx").then((m) => ({ default: m.MarginPage })),
);
const LoansPage = lazy(() =>
  import("../features/loans/loans-page.tsx").then((m) => ({ default: m.LoansPage })),
);
const DashboardPage = lazy(() =>
  import("../features/dashboard/dashboard-page.tsx").then((m) => ({ default: m.DashboardPage })),
);
const MyPoolsPage = lazy(() =>
  import("../features/my-pools/my-pools-page.tsx").then((m) => ({ default: m.MyPoolsPage })),
);
const CreatePoolPage = lazy(() =>
  import("../features/my-pools/my-pools-page.tsx").then((m) => ({ default: m.CreatePoolPage })),
);
const EditPoolPage = lazy(() =>
  import("../features/my-pools/my-pools-page.tsx").then((m) => ({ default: m.EditPoolPage })),
);

/** Navigation entries of the feature pages (path, label). */
export const PAGE_LINKS: readonly { path: string; label: string }[] = [
  { path: "/borrow", label: "Borrow" },
  { path: "/margin", label: "Margin" },
  { path: "/lend", label: "Lend" },
  { path: "/pools", label: "Pools" },
  { path: "/my-pools", label: "My pools" },
  { path: "/loans", label: "Loans" },
  { path: "/dashboard", label: "Dashboard" },
];

const ADDRESS = "([1-9A-HJ-NP-Za-km-z]{32,44})";

function match(path: string) {
  const clean = path.replace(/\/+$/, "") || "/";
  switch (clean) {
    case "/borrow":
      return <BorrowPage />;
    case "/margin":
      return <MarginPage />;
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
