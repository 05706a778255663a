import {
  describeErrorForUser,
  type InstantSellQuote,
  parseTransactionCosts,
  SOL_MINT,
} from "@cistern/protocol";
import { useQuery } from "@tanstack/react-query";
import { useAppContext } from "../../app-context.ts";
import { getCostTerms } from "../../kit/cost-terms.ts";
import { FigureAtLeast } from "../../kit/figure-at-least.tsx";
import { formatMoney, type Rounding } from "../../kit/format.ts";
import { TermsList } from "../../kit/page-kit.tsx";
import { useSettings } from "../../settings/settings-store.ts";
import { requestJson } from "../../tx/http-client.ts";
import { getQuoteOptions } from "../../tx/quote-options.ts";
import type { LoanRowView } from "./loan-model.ts";

/**
 * Selling an NFT loan's collateral to the best collection bid to repay it: the bid, what repays the loan and
 * what the borrower keeps, before signing. Without a bid that covers the loan, it says so and cannot be signed.
 */
export function InstantSellPanel({
  row,
  owner,
  busy,
  onConfirm,
  onCancel,
}: {
  row: LoanRowView;
  owner: string;
  busy: boolean;
  onConfirm(quote: InstantSellQuote): void;
  onCancel(): void;
}) {
  const { config } = useAppContext();
  const options = getQuoteOptions(useSettings());
  const quote = useQuery({
    queryKey: ["loans", "instant-sell-quote", row.loan.pubkey, options],
    queryFn: () =>
      requestJson<InstantSellQuote>(`${config.apiUrl}/nft/instant-sell-quote`, {
        body: { borrower: owner, loan: row.loan.pubkey, options },
      }),
    retry: false,
  });
  const money = (amount: string, mint: string, rounding: Rounding = "down") =>
    formatMoney(BigInt(amount), mint, rounding);
  const q = quote.data;
  // the SOL the sale's transaction takes besides the currency it settles (a SOL sale's keep arrives in SOL too)
  const costs = q ? parseTransactionCosts(q.costs) : null;
  return (
    <section className="card pg-section pg-extend" aria-label="Instant sell" data-testid="instant-sell-panel">
      <h3>Sell the NFT now and repay</h3>
      <p className="muted pg-small">
        Your NFT goes to the best offer for its collection in the same transaction that repays the loan. If
        the offer no longer covers what you owe, nothing happens.
      </p>
      {quote.isPending ? <p className="pg-state">Finding the best offer…</p> : null}
      {quote.error ? (
        <p className="error-text" role="alert" data-testid="instant-sell-error">
          {describeErrorForUser(quote.error, { amount: (a, mint) => formatMoney(a, mint) })}
        </p>
      ) : null}
      {q ? (
        <dl className="pg-quote" data-testid="instant-sell-quote">
          <div>
            <dt>Best offer</dt>
            <dd data-testid="instant-sell-bid">{money(q.bidPrice, q.currency)}</dd>
          </div>
          <div>
            <dt>Repays the loan</dt>
            <dd>{money(q.owedNow, q.currency, "up")}</dd>
          </div>
          <div>
            <dt>You keep</dt>
            <dd data-testid="instant-sell-keep">
              <FigureAtLeast
                expected={money(q.borrowerKeeps, q.currency)}
                atLeast={money(q.borrowerKeepsAtLeast, q.currency)}
              />
            </dd>
          </div>
        </dl>
      ) : null}
      {q && costs ? (
        <div className="pg-quote" data-testid="instant-sell-costs">
          <TermsList
            testIdPrefix="instant-sell"
            terms={getCostTerms(costs, {
              solAmountLamports: q.currency === SOL_MINT ? -BigInt(q.borrowerKeeps) : 0n,
            })}
          />
        </div>
      ) : null}
      <div className="pg-buttons">
        <button
          type="button"
          className="button button-primary"
          disabled={busy || !q}
          title={q ? undefined : "Available once an offer covers what you owe"}
          onClick={() => q && onConfirm(q)}
          data-testid="instant-sell-submit"
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
