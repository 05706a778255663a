import { formatUnits, getCurrencyByMint, SECONDS_PER_DAY } from "@cistern/protocol";
import { useId, useState } from "react";
import { formatBps, formatMoney } from "../../kit/format.ts";
import { poolName } from "../pools/pool-cards.tsx";
import { type BorrowCheck, checkBorrow, type Offer } from "./borrow-model.ts";
import { QuotePanel } from "./quote-panel.tsx";

/** What the page sends once the borrower confirms. */
export interface BorrowSubmit {
  offer: Offer;
  amount: bigint;
  durationSeconds: number;
}

/**
 * Pick a pool among the offers, an amount and a duration; the full quote shows as soon as the
 * input is valid, and the borrow button only sends a valid request.
 */
export function BorrowForm({
  offers,
  kind,
  nowSeconds,
  collateralLabel,
  preferredPool,
  onSubmit,
  busy,
}: {
  offers: Offer[];
  kind: "nft" | "token";
  nowSeconds: number;
  collateralLabel: string;
  preferredPool?: string | null;
  onSubmit(request: BorrowSubmit): Promise<unknown>;
  busy: boolean;
}) {
  const ids = useId();
  const initial = offers.find((o) => o.pool.pubkey === preferredPool) ?? offers[0];
  const [poolKey, setPoolKey] = useState(initial?.pool.pubkey ?? "");
  const offer = offers.find((o) => o.pool.pubkey === poolKey) ?? offers[0];
  const [amountText, setAmountText] = useState("");
  const [daysText, setDaysText] = useState(() =>
    initial ? String(Math.floor(initial.pool.limits.maxDuration / SECONDS_PER_DAY)) : "",
  );
  const [touched, setTouched] = useState(false);
  if (!offer) {
    return (
      <p className="pg-state pg-empty" data-testid="no-offers">
        No open pool lends against this {kind === "nft" ? "collection" : "token"} right now.
      </p>
    );
  }
  const check: BorrowCheck = checkBorrow({ amountText, durationDaysText: daysText }, offer);
  const showError = !check.ok && (touched || amountText !== "");
  const decimals = getCurrencyByMint(offer.pool.currency)?.decimals ?? 0;
  return (
    <form
      className="pg-form"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        setTouched(true);
        if (!check.ok || busy) return;
        await onSubmit({ offer, amount: check.amount, durationSeconds: check.durationSeconds });
      }}
    >
      <fieldset className="pg-offers">
        <legend>Offers ({offers.length})</legend>
        {offers.map((o) => (
          <label key={o.pool.pubkey} className={o === offer ? "pg-offer is-selected" : "pg-offer"}>
            <input
              type="radio"
              name={`${ids}-pool`}
              value={o.pool.pubkey}
              checked={o === offer}
              onChange={() => setPoolKey(o.pool.pubkey)}
            />
            <span className="pg-offer-name">{poolName(o.pool)}</span>
            <span>
              {formatMoney(o.minBorrow, o.pool.currency)} to {formatMoney(o.maxBorrow, o.pool.currency)}
            </span>
            <span>{formatBps(o.pool.loanCurve.apr)} APR</span>
            <span>LTV {formatBps(o.ltvBps)}</span>
            <span>≤ {Math.floor(o.pool.limits.maxDuration / SECONDS_PER_DAY)} days</span>
          </label>
        ))}
      </fieldset>
      <div className="pg-row">
        <label htmlFor={`${ids}-amount`}>
          Amount ({getCurrencyByMint(offer.pool.currency)?.symbol})
          <span className="pg-input-group">
            <input
              id={`${ids}-amount`}
              name="amount"
              inputMode="decimal"
              autoComplete="off"
              value={amountText}
              aria-invalid={showError && !check.ok && check.field === "amount"}
              aria-describedby={`${ids}-error`}
              onChange={(e) => setAmountText(e.target.value)}
            />
            <button
              type="button"
              className="button pg-max"
              onClick={() => setAmountText(formatUnits(offer.maxBorrow, decimals))}
            >
              Max
            </button>
          </span>
        </label>
        <label htmlFor={`${ids}-days`}>
          Duration (days)
          <input
            id={`${ids}-days`}
            name="duration"
            inputMode="numeric"
            value={daysText}
            aria-invalid={showError && !check.ok && check.field === "duration"}
            onChange={(e) => setDaysText(e.target.value)}
          />
        </label>
      </div>
      <p id={`${ids}-error`} className="error-text" role="alert" data-testid="borrow-error">
        {showError && !check.ok ? check.message : ""}
      </p>
      {check.ok ? (
        <QuotePanel
          quote={check.quote}
          network={check.offer.network}
          currency={offer.pool.currency}
          nowSeconds={nowSeconds}
          collateralLabel={collateralLabel}
        />
      ) : null}
      <button
        type="submit"
        className="button button-primary pg-submit"
        disabled={busy}
        data-testid="borrow-submit"
      >
        {busy
          ? "Borrowing…"
          : check.ok
            ? `Borrow ${formatMoney(check.amount, offer.pool.currency)}`
            : "Borrow"}
      </button>
    </form>
  );
}
