import { computeTotalInterest, describeErrorForUser } from "@cistern/protocol";
import { useId, useState } from "react";
import {
  formatAmount,
  formatBps,
  formatDateTime,
  formatDuration,
  formatMoney,
  type Rounding,
} from "../../kit/format.ts";
import { getLoanSchedule } from "../borrow/borrow-model.ts";
import { useSwapQuote } from "./margin-data.ts";
import {
  getPrincipalAtLeverage,
  getTopLeverage,
  LEVERAGE_STEP,
  type MarginOffer,
  MIN_LEVERAGE,
} from "./margin-model.ts";

/**
 * The position at the chosen leverage in plain words: what is paid now, what is borrowed and at what rate,
 * what the swap buys (expected and at least), what to repay by when, and what happens if it is not repaid.
 */
export function MarginTerms({
  offer,
  target,
  targetSymbol,
  targetDecimals,
  durationSeconds,
  nowSeconds,
  busy,
  onOpen,
  leverage: askedLeverage,
  topLeverage,
  onLeverage,
}: {
  /** Controlled leverage (hundredths): the page picks the pool for it; the slider then runs up to `topLeverage`. */
  leverage?: number;
  topLeverage?: number;
  onLeverage?(leverage: number): void;
  offer: MarginOffer;
  target: string;
  targetSymbol: string;
  targetDecimals: number;
  durationSeconds: number;
  nowSeconds: number;
  busy: boolean;
  onOpen(principal: bigint): void;
}) {
  const ids = useId();
  const own = getTopLeverage(offer);
  const top = topLeverage ?? own;
  const [ownLeverage, setOwnLeverage] = useState(top);
  const leverage = Math.min(askedLeverage ?? ownLeverage, top);
  const setLeverage = onLeverage ?? setOwnLeverage;
  const principal = getPrincipalAtLeverage(offer, Math.min(leverage, own));
  const swap = useSwapQuote({
    inputMint: offer.currency,
    outputMint: target,
    amount: offer.downPayment + principal,
    slippageBps: offer.slippageBps,
  });
  const interest = computeTotalInterest({ aprBps: offer.aprBps, principal, durationSeconds });
  const money = (amount: bigint, rounding: Rounding = "down") =>
    formatMoney(amount, offer.currency, rounding);
  const tokens = (amount: bigint) => `${formatAmount(amount, targetDecimals)} ${targetSymbol}`;
  const { expiresAt, liquidatableAfter } = getLoanSchedule(nowSeconds, durationSeconds);
  return (
    <section className="pg-quote" aria-label="Margin terms" data-testid="margin-terms">
      <label htmlFor={`${ids}-leverage`}>
        Leverage <strong data-testid="margin-leverage">{(leverage / 100).toFixed(2)}x</strong>{" "}
        <small className="muted">
          up to {(own / 100).toFixed(2)}x in this pool (its LTV allows {offer.maxLeverage.toFixed(2)}x before
          price impact and slippage)
        </small>
        <input
          id={`${ids}-leverage`}
          type="range"
          min={MIN_LEVERAGE}
          max={top}
          step={LEVERAGE_STEP}
          value={Math.min(leverage, top)}
          onChange={(e) => setLeverage(Number(e.target.value))}
        />
      </label>
      <dl>
        <div>
          <dt>You pay now</dt>
          <dd>{money(offer.downPayment)}</dd>
        </div>
        <div>
          <dt>You borrow</dt>
          <dd data-testid="margin-principal">
            {money(principal)} <small className="muted">at {formatBps(offer.aprBps)} APR</small>
          </dd>
        </div>
        <div>
          <dt>You buy</dt>
          <dd data-testid="margin-buys">
            {swap.data ? (
              <>
                about {tokens(swap.data.outAmount)}{" "}
                <small className="muted">at least {tokens(swap.data.minimumOut)}</small>
              </>
            ) : swap.error ? (
              describeErrorForUser(swap.error, { amount: (a, mint) => formatMoney(a, mint) })
            ) : (
              "…"
            )}
          </dd>
        </div>
        <div>
          <dt>Price impact</dt>
          <dd>{swap.data ? `${(swap.data.priceImpactPct * 100).toFixed(2)}%` : "…"}</dd>
        </div>
        <div>
          <dt>Repay by expiry</dt>
          <dd data-testid="margin-repay">
            {money(principal + interest, "up")}{" "}
            <small className="muted">interest {money(interest, "up")}</small>
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{formatDateTime(expiresAt)}</dd>
        </div>
      </dl>
      <p className="muted pg-small" data-testid="margin-plain">
        Your {money(offer.downPayment)} and a {money(principal)} loan buy {targetSymbol}, locked in the loan's
        escrow. Repay {money(principal + interest, "up")} within {formatDuration(durationSeconds)} to receive
        it, or sell it from your Loans page to repay. A falling {targetSymbol} price never closes the
        position; if the loan is still unpaid after {formatDateTime(liquidatableAfter)} (expiry plus grace),
        the lender keeps the {targetSymbol}.
      </p>
      <div className="pg-buttons">
        <button
          type="button"
          className="button button-primary"
          disabled={busy || !swap.data}
          title={swap.data ? undefined : "Available once the swap is quoted"}
          onClick={() => onOpen(principal)}
          data-testid="margin-submit"
        >
          Open position
        </button>
      </div>
    </section>
  );
}
