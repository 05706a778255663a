import { describeErrorForUser, type MarketSellQuote } from "@cistern/protocol";
import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useAppContext } from "../../app-context.ts";
import { FigureAtLeast } from "../../kit/figure-at-least.tsx";
import { formatAmount, formatMoney, type Rounding, SLIPPAGE_CHOICES_BPS } from "../../kit/format.ts";
import { requestJson } from "../../tx/http-client.ts";
import type { LoanRowView } from "./loan-model.ts";

/**
 * Selling a token loan's collateral to repay it: the sale's expected and minimum proceeds at the chosen
 * slippage, what repays the loan and what the borrower keeps, before signing. A sale that could not cover the
 * loan says so in plain words and cannot be signed.
 */
export function MarketSellPanel({
  row,
  owner,
  busy,
  onConfirm,
  onCancel,
}: {
  row: LoanRowView;
  owner: string;
  busy: boolean;
  onConfirm(slippageBps: number): void;
  onCancel(): void;
}) {
  const { config } = useAppContext();
  const ids = useId();
  const [slippageBps, setSlippageBps] = useState<number>(100);
  const quote = useQuery({
    queryKey: ["loans", "market-sell-quote", row.loan.pubkey, slippageBps],
    queryFn: () =>
      requestJson<MarketSellQuote>(`${config.apiUrl}/defi/market-sell-quote`, {
        body: { borrower: owner, loan: row.loan.pubkey, slippageBps },
      }),
    retry: false,
  });
  const money = (amount: string, mint: string, rounding: Rounding = "down") =>
    formatMoney(BigInt(amount), mint, rounding);
  const q = quote.data;
  return (
    <section className="card pg-section pg-extend" aria-label="Market sell" data-testid="market-sell-panel">
      <h3>Sell collateral and repay</h3>
      <p className="muted pg-small">
        Your collateral is sold on the market in the same transaction that repays the loan. If the sale would
        not bring enough, nothing happens.
      </p>
      <label htmlFor={`${ids}-slippage`}>
        Largest price move accepted (slippage)
        <select
          id={`${ids}-slippage`}
          value={slippageBps}
          onChange={(e) => setSlippageBps(Number(e.target.value))}
        >
          {SLIPPAGE_CHOICES_BPS.map((bps) => (
            <option key={bps} value={bps}>
              {bps / 100}%
            </option>
          ))}
        </select>
      </label>
      {quote.isPending ? <p className="pg-state">Getting the market price…</p> : null}
      {quote.error ? (
        <p className="error-text" role="alert" data-testid="market-sell-error">
          {describeErrorForUser(quote.error, { amount: (a, mint) => formatMoney(a, mint) })}
        </p>
      ) : null}
      {q ? (
        <dl className="pg-quote" data-testid="market-sell-quote">
          <div>
            <dt>You sell</dt>
            <dd>
              {formatAmount(BigInt(q.collateralSold), q.collateralDecimals)} {q.collateralSymbol}
            </dd>
          </div>
          <div>
            <dt>Expected proceeds</dt>
            <dd>
              <FigureAtLeast
                expected={money(q.expectedProceeds, q.currency)}
                atLeast={money(q.minimumProceeds, q.currency)}
              />
            </dd>
          </div>
          <div>
            <dt>Repays the loan</dt>
            <dd>{money(q.owedNow, q.currency, "up")}</dd>
          </div>
          <div>
            <dt>You keep</dt>
            <dd data-testid="market-sell-keep">
              <FigureAtLeast
                expected={money(q.borrowerKeeps, q.currency)}
                atLeast={money(q.borrowerKeepsAtLeast, q.currency)}
                about
              />
            </dd>
          </div>
          <div>
            <dt>Price impact</dt>
            <dd>{(Number(q.priceImpactPct) * 100).toFixed(2)}%</dd>
          </div>
        </dl>
      ) : null}
      <div className="pg-buttons">
        <button
          type="button"
          className="button button-primary"
          disabled={busy || !q}
          title={q ? undefined : "Available once the sale covers what you owe"}
          onClick={() => onConfirm(slippageBps)}
          data-testid="market-sell-submit"
        >
          Sell and repay
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
