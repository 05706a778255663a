import { formatUnits, getCurrencyByMint } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useId, useState } from "react";
import { formatBps, formatMoney } from "../../kit/format.ts";
import { poolName } from "../pools/pool-cards.tsx";
import { useLoanCosts } from "./borrow-data.ts";
import {
  type BorrowCheck,
  checkBorrow,
  getOfferMaxDays,
  isDurationValidFor,
  type Offer,
} from "./borrow-model.ts";
import { QuotePanel } from "./quote-panel.tsx";

/** What the page sends once the borrower confirms. */
export interface BorrowSubmit {
  offer: Offer;
  amount: bigint;
  durationSeconds: number;
}

/**
 * Pick a pool among the offers, an amount and a duration; the full quote shows as soon as the
 * input is valid, and the borrow button only sends a valid request. A chosen offer brings its own duration (its
 * longest) unless the borrower typed one it lends for; every problem of the form shows at once, each by its field.
 */
export function BorrowForm({
  offers,
  kind,
  nowSeconds,
  collateralLabel,
  preferredPool,
  nftMint,
  onSubmit,
  busy,
}: {
  offers: Offer[];
  kind: "nft" | "token";
  nowSeconds: number;
  collateralLabel: string;
  preferredPool?: string | null;
  /** The NFT borrowed against: the quote then shows what the loan's transaction takes in SOL, measured. */
  nftMint?: string;
  onSubmit(request: BorrowSubmit): Promise<unknown>;
  busy: boolean;
}) {
  const ids = useId();
  const initial = offers.find((o) => o.pool.pubkey === preferredPool) ?? offers[0];
  const [poolKey, setPoolKey] = useState(initial?.pool.pubkey ?? "");
  const offer = offers.find((o) => o.pool.pubkey === poolKey) ?? offers[0];
  const [amountText, setAmountText] = useState("");
  const [daysText, setDaysText] = useState(() => (initial ? String(getOfferMaxDays(initial)) : ""));
  /** True once the borrower typed a duration: choosing another offer keeps it when that offer lends for it. */
  const [daysTyped, setDaysTyped] = useState(false);
  const [touched, setTouched] = useState(false);
  const borrower = useWallet().publicKey?.toBase58();
  const draft = offer ? checkBorrow({ amountText, durationDaysText: daysText }, offer) : null;
  const costs = useLoanCosts({
    nftMint,
    borrower,
    pool: offer?.pool.pubkey ?? "",
    amount: draft?.ok ? draft.amount : null,
    durationSeconds: draft?.ok ? draft.durationSeconds : null,
  });
  const chooseOffer = (chosen: Offer) => {
    setPoolKey(chosen.pool.pubkey);
    if (!daysTyped || !isDurationValidFor(daysText, chosen)) setDaysText(String(getOfferMaxDays(chosen)));
  };
  if (!offer) {
    return (
      <p className="pg-state pg-empty" data-testid="no-offers">
        No open pool lends against this {kind === "nft" ? "collection" : "token"} right now.
      </p>
    );
  }
  const check: BorrowCheck = checkBorrow({ amountText, durationDaysText: daysText }, offer);
  const shown = check.ok || !(touched || amountText !== "") ? {} : check.problems;
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
              onChange={() => chooseOffer(o)}
            />
            <span className="pg-offer-name">{poolName(o.pool)}</span>
            <span>
              {formatMoney(o.minBorrow, o.pool.currency)} to {formatMoney(o.maxBorrow, o.pool.currency)}
            </span>
            <span>{formatBps(o.pool.loanCurve.apr)} APR</span>
            <span>LTV {formatBps(o.ltvBps)}</span>
            <span>≤ {getOfferMaxDays(o)} days</span>
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
              aria-invalid={shown.amount !== undefined}
              aria-describedby={shown.amount !== undefined ? `${ids}-amount-error` : undefined}
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
            aria-invalid={shown.duration !== undefined}
            aria-describedby={shown.duration !== undefined ? `${ids}-days-error` : undefined}
            onChange={(e) => {
              setDaysTyped(true);
              setDaysText(e.target.value);
            }}
          />
        </label>
      </div>
      <div className="error-text" role="alert" data-testid="borrow-error">
        {shown.amount !== undefined ? (
          <p id={`${ids}-amount-error`} data-testid="borrow-error-amount">
            {shown.amount}
          </p>
        ) : null}
        {shown.duration !== undefined ? (
          <p id={`${ids}-days-error`} data-testid="borrow-error-duration">
            {shown.duration}
          </p>
        ) : null}
      </div>
      {check.ok ? (
        <QuotePanel
          quote={check.quote}
          {...(nftMint !== undefined ? { costs } : {})}
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
