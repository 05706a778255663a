import { useConnection, useWallet } from "@solana/wallet-adapter-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { refreshAgainAfterIndexing } from "../data/refresh.ts";
import { navigate } from "../lib/location.ts";
import { openWalletModal } from "../wallet/wallet-modal-store.ts";
import { LINK_PREFETCH_MARGIN, prefetchRoute } from "./prefetch.ts";

/** A page frame: title, optional lead text and actions. */
export function Page({
  title,
  lead,
  actions,
  children,
}: {
  title: string;
  lead?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Cistern`;
  }, [title]);
  return (
    <main className="page pg">
      <div className="pg-head">
        <div>
          <h1>{title}</h1>
          {lead ? <p className="muted pg-lead">{lead}</p> : null}
        </div>
        {actions ? <div className="pg-actions">{actions}</div> : null}
      </div>
      {children}
    </main>
  );
}

/** A client-side link. */
export function Link({
  to,
  children,
  className,
  onNavigate,
  ...rest
}: {
  to: string;
  children: ReactNode;
  className?: string;
  "aria-current"?: "page";
  /** Called on every click that navigates, also to the page already open (a menu closes on it). */
  onNavigate?: () => void;
}) {
  const ref = useRef<HTMLAnchorElement>(null);
  // the page behind the link starts loading as the link comes within 200 px of the screen
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          prefetchRoute(new URL(to, window.location.href).pathname);
          observer.disconnect();
        }
      },
      { rootMargin: LINK_PREFETCH_MARGIN },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [to]);
  return (
    <a
      {...rest}
      ref={ref}
      href={to}
      className={className}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        onNavigate?.();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** Loading, error and empty states of a query, then the content. */
export function QueryState<T>({
  query,
  label,
  isEmpty,
  empty,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined; refetch(): unknown };
  label: string;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isError) {
    return (
      <div className="pg-state pg-error" role="alert" data-testid="state-error">
        <p>
          Could not load {label}: {query.error instanceof Error ? query.error.message : String(query.error)}
        </p>
        <button type="button" className="button" onClick={() => query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  if (query.isPending || query.data === undefined) {
    return (
      <div className="pg-state" aria-busy="true" data-testid="state-loading">
        <span className="pg-spinner" aria-hidden="true" /> Loading {label}…
      </div>
    );
  }
  if (isEmpty?.(query.data)) {
    return (
      <div className="pg-state pg-empty" data-testid="state-empty">
        {empty ?? `No ${label} yet.`}
      </div>
    );
  }
  return <>{children(query.data)}</>;
}

/** Asks for a wallet before showing wallet-bound content. */
export function RequireWallet({
  what,
  children,
}: {
  what: string;
  children: (address: string) => ReactNode;
}) {
  const { publicKey } = useWallet();
  if (!publicKey) {
    return (
      <div className="pg-state pg-empty" data-testid="connect-required">
        <p>Connect a wallet to {what}.</p>
        <button type="button" className="button button-primary" onClick={openWalletModal}>
          Connect Wallet
        </button>
      </div>
    );
  }
  return <>{children(publicKey.toBase58())}</>;
}

/** A row of figures. */
export function Stats({ items }: { items: { label: string; value: ReactNode; hint?: string }[] }) {
  return (
    <dl className="pg-stats">
      {items.map((item) => (
        <div key={item.label} title={item.hint}>
          <dt>{item.label}</dt>
          <dd>{item.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * "Now" in epoch seconds on the chain's clock (the latest block time, so a localnet whose clock was
 * advanced is respected), ticking every second. Falls back to the wall clock.
 */
export function useChainNow(): number {
  const { connection } = useConnection();
  const clock = useQuery({
    queryKey: ["chain-clock", connection.rpcEndpoint],
    queryFn: async () => {
      const slot = await connection.getSlot("confirmed");
      const blockTime = await connection.getBlockTime(slot);
      return { blockTime, atMs: Date.now() };
    },
    refetchInterval: 30_000,
    retry: false,
  });
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    return () => clearInterval(timer);
  }, []);
  const nowMs = Date.now();
  const data = clock.data;
  if (!data || data.blockTime === null) return Math.floor(nowMs / 1000);
  return data.blockTime + Math.floor((nowMs - data.atMs) / 1000);
}

/**
 * After a confirmed transaction the shell refreshes the action's scopes at once; the API's indexer
 * may take a moment to see the change, so the page reloads the same scopes again shortly after.
 */
export function useRefreshAfterIndexing(): (scopes: readonly string[]) => void {
  const queryClient = useQueryClient();
  return useCallback((scopes) => refreshAgainAfterIndexing(queryClient, scopes), [queryClient]);
}

/**
 * A row of tabs (WAI-ARIA tabs: arrow keys, Home and End move between them; only the selected one
 * is in the Tab order). The content below is labelled by the selected tab.
 */
export function Tabs<T extends string>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: readonly { value: T; label: string }[];
  value: T;
  onChange(value: T): void;
}) {
  const move = (from: number, delta: number, target: HTMLElement) => {
    const next = (from + delta + options.length) % options.length;
    onChange(options[next]!.value);
    const buttons = target.parentElement?.querySelectorAll<HTMLButtonElement>("[role=tab]");
    buttons?.[next]?.focus();
  };
  return (
    <div className="pg-tabs" role="tablist" aria-label={label}>
      {options.map((option, index) => (
        <button
          key={option.value}
          type="button"
          role="tab"
          aria-selected={option.value === value}
          tabIndex={option.value === value ? 0 : -1}
          className={option.value === value ? "pg-tab is-active" : "pg-tab"}
          onClick={() => onChange(option.value)}
          onKeyDown={(event) => {
            const target = event.currentTarget;
            if (event.key === "ArrowRight") move(index, 1, target);
            else if (event.key === "ArrowLeft") move(index, -1, target);
            else if (event.key === "Home") move(0, 0, target);
            else if (event.key === "End") move(options.length - 1, 0, target);
            else return;
            event.preventDefault();
          }}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}

/**
 * A wide table's scroll container: a labelled region reachable with the keyboard, so a table that scrolls
 * sideways on a phone can be scrolled without a mouse.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll by keyboard
    <section className="pg-table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

/** A term of a loan or trade: label, value and an optional hint after the value. */
export type Term = readonly [label: string, value: string, hint?: string];

/** A list of terms; each row's test id is `${testIdPrefix}-<label in kebab case>`. */
export function TermsList({ terms, testIdPrefix }: { terms: readonly Term[]; testIdPrefix: string }) {
  return (
    <dl>
      {terms.map(([label, value, hint]) => (
        <div key={label} data-testid={`${testIdPrefix}-${label.toLowerCase().replace(/\s+/g, "-")}`}>
          <dt>{label}</dt>
          <dd>
            {value}
            {hint ? <small className="muted"> {hint}</small> : null}
          </dd>
        </div>
      ))}
    </dl>
  );
}
