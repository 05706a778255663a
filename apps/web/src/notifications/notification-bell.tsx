import type { Loan } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useEffect, useState } from "react";
import { useChainPerformance } from "../data/chain-status.ts";
import { useBorrowerLoans, useLenderLoans } from "../features/loans/loan-data.ts";
import { describeLoan, useLoanLabels } from "../features/loans/loan-label.ts";
import { viewLoan } from "../features/loans/loan-model.ts";
import { useWalletRequests } from "../features/requests/request-data.ts";
import { useChainNow } from "../kit/page-kit.tsx";
import { navigate } from "../lib/location.ts";
import { type AppNotification, getNotifications } from "./notification-model.ts";
import "./notifications.css";

const SEEN_KEY = (wallet: string) => `cistern-notifications-seen:${wallet}`;
const BROWSER_KEY = (wallet: string) => `cistern-notifications-browser:${wallet}`;

function readSet(key: string): Set<string> {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(key) ?? "[]");
    return new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);
  } catch {
    return new Set();
  }
}

/** The connected wallet's notifications, computed from its loans on the chain's clock. */
function useNotifications(wallet: string): AppNotification[] {
  const borrowed = useBorrowerLoans(wallet);
  const lent = useLenderLoans(wallet);
  const requests = useWalletRequests(wallet);
  const performance = useChainPerformance();
  const now = useChainNow();
  const labels = useLoanLabels([...(borrowed.data?.loans ?? []), ...(lent.data?.loans ?? [])]);
  // countdowns in the texts need no finer grain than the minute
  const minute = Math.floor(now / 60);
  return getNotifications({
    borrowed: (borrowed.data?.loans ?? []).map((l) => viewLoan(l, wallet, minute * 60)),
    lent: (lent.data?.loans ?? []).map((l) => viewLoan(l, wallet, minute * 60)),
    requests: requests.data?.requests ?? [],
    now: minute * 60,
    describe: (loan: Loan) => describeLoan(loan, labels(loan)),
    ...(performance.data ? { performance: performance.data } : {}),
  });
}

/** Loans, on the tab and row of `loan` (the page scrolls to it and marks it). */
export function loanHref(loan: { pubkey: string; tab: "borrowed" | "lent" }): string {
  return `/loans?${loan.tab === "lent" ? "tab=lent&" : ""}loan=${loan.pubkey}`;
}

/** The header's bell: the count of notifications not seen yet, and the notification centre it opens. */
export function NotificationBell() {
  const { publicKey } = useWallet();
  if (publicKey === null) return null;
  return <Bell wallet={publicKey.toBase58()} />;
}

function Bell({ wallet }: { wallet: string }) {
  const items = useNotifications(wallet);
  const [open, setOpen] = useState(false);
  const [seen, setSeen] = useState(() => readSet(SEEN_KEY(wallet)));
  const [browser, setBrowser] = useState(() => localStorage.getItem(BROWSER_KEY(wallet)) === "on");
  const unseen = items.filter((n) => !seen.has(n.id));

  // Browser notifications for new ones while a tab is open, once the user opted in (and the browser agreed).
  useEffect(() => {
    if (!browser || typeof Notification === "undefined" || Notification.permission !== "granted") return;
    const notified = readSet(`${SEEN_KEY(wallet)}:notified`);
    for (const n of unseen.filter((u) => u.urgent && !notified.has(u.id))) {
      new Notification(n.title, { body: n.body, tag: n.id });
      notified.add(n.id);
    }
    localStorage.setItem(`${SEEN_KEY(wallet)}:notified`, JSON.stringify([...notified]));
  }, [browser, unseen, wallet]);

  const markSeen = () => {
    const next = new Set([...seen, ...items.map((n) => n.id)]);
    setSeen(next);
    localStorage.setItem(SEEN_KEY(wallet), JSON.stringify([...next]));
  };

  return (
    <div className="notify">
      <button
        type="button"
        className="icon-button notify-button"
        aria-label={unseen.length > 0 ? `Notifications, ${unseen.length} new` : "Notifications"}
        aria-expanded={open}
        data-testid="notifications-button"
        onClick={() => {
          if (open) markSeen();
          setOpen(!open);
        }}
      >
        <svg
          aria-hidden="true"
          width="18"
          height="18"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
        >
          <path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z M10 20a2 2 0 0 0 4 0" strokeLinejoin="round" />
        </svg>
        {unseen.length > 0 ? (
          <span className="notify-badge" aria-hidden="true" data-testid="notifications-count">
            {unseen.length > 99 ? "99+" : unseen.length}
          </span>
        ) : null}
      </button>
      {open ? (
        <section className="notify-panel" aria-label="Notifications" data-testid="notifications-panel">
          <header className="notify-head">
            <h2>Notifications</h2>
            <button
              type="button"
              className="notify-close"
              aria-label="Close notifications"
              onClick={() => {
                markSeen();
                setOpen(false);
              }}
            >
              ×
            </button>
          </header>
          {items.length === 0 ? (
            <p className="muted">Nothing needs your attention.</p>
          ) : (
            <ul className="notify-list">
              {items.map((n) => (
                <li
                  key={n.id}
                  className={n.urgent ? "notify-item notify-urgent" : "notify-item"}
                  data-kind={n.kind}
                >
                  {n.loan === undefined ? (
                    <>
                      <strong>{n.title}</strong>
                      <span>{n.body}</span>
                    </>
                  ) : (
                    <button
                      type="button"
                      className="notify-open"
                      data-testid="notification-open"
                      onClick={() => {
                        markSeen();
                        setOpen(false);
                        navigate(loanHref(n.loan!));
                      }}
                    >
                      <strong>{n.title}</strong>
                      <span className="notify-loan" data-testid="notification-loan">
                        {n.loan.subject}
                      </span>
                      <span>{n.body}</span>
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
          <div className="notify-foot">
            <button
              type="button"
              className="button button-small"
              onClick={() => {
                markSeen();
                setOpen(false);
                navigate("/loans");
              }}
            >
              Open Loans
            </button>
            <BrowserOptIn
              on={browser}
              onChange={(on) => {
                setBrowser(on);
                localStorage.setItem(BROWSER_KEY(wallet), on ? "on" : "off");
              }}
            />
          </div>
        </section>
      ) : null}
    </div>
  );
}

/** Browser notifications (Notification API) for urgent news while a Cistern tab is open, after the user opts in. */
function BrowserOptIn({ on, onChange }: { on: boolean; onChange(on: boolean): void }) {
  if (typeof Notification === "undefined")
    return <small className="muted">This browser cannot show notifications.</small>;
  if (Notification.permission === "denied")
    return <small className="muted">Browser notifications are blocked for this site.</small>;
  return (
    <label className="notify-optin">
      <input
        type="checkbox"
        checked={on && Notification.permission === "granted"}
        onChange={async (e) => {
          if (!e.target.checked) return onChange(false);
          const permission = await Notification.requestPermission();
          onChange(permission === "granted");
        }}
      />{" "}
      Also notify me in this browser
    </label>
  );
}
