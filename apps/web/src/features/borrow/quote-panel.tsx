import { getCurrencyByMint, type LoanQuote, SOL_MINT, type TransactionCosts } from "@cistern/protocol";
import { getCostTerms } from "../../kit/cost-terms.ts";
import { formatBps, formatDateTime, formatDuration, formatMoney, formatUsd } from "../../kit/format.ts";
import { type Term, TermsList } from "../../kit/page-kit.tsx";
import { getLoanSchedule } from "./borrow-model.ts";

/**
 * Every term of a loan before signing: what you receive, interest (with Cistern's share), APR,
 * what you repay and by when, the grace period and what happens after it; and what the transaction takes in SOL
 * besides (network fee, rent of the accounts it opens), as the API measured it on the transaction it builds.
 */
export function QuotePanel({
  quote,
  costs,
  currency,
  nowSeconds,
  collateralLabel,
}: {
  quote: LoanQuote;
  /**
   * What the loan's transaction takes in SOL besides the loan, measured on the transaction the build issues:
   * undefined while it is measured (or not asked), null when it could not be.
   */
  costs?: { data: TransactionCosts | null | undefined; isPending: boolean; isError: boolean };
  currency: string;
  nowSeconds: number;
  collateralLabel: string;
}) {
  const schedule = getLoanSchedule(nowSeconds, quote.duration);
  const symbol = getCurrencyByMint(currency)?.symbol ?? "";
  const rows: Term[] = [
    ["You receive", formatMoney(quote.netBorrowAmount, currency), usd(quote.amountInUsd)],
    ["Interest", formatMoney(quote.interest, currency, "up"), usd(quote.interestInUsd)],
    ["of which Cistern fee", formatMoney(quote.cisternFees, currency), "20% of the interest"],
    ["APR", formatBps(quote.apr)],
    ["Duration", formatDuration(quote.duration)],
    ["Repay by expiry", formatMoney(quote.requiredRepayment, currency, "up")],
    ["Expires", formatDateTime(schedule.expiresAt)],
    ["Grace period", formatDuration(schedule.graceSeconds)],
  ];
  if (costs?.data) {
    rows.push(
      ...getCostTerms(costs.data, {
        // a SOL loan's principal arrives in the wallet's SOL balance
        solAmountLamports: currency === SOL_MINT ? -quote.netBorrowAmount : 0n,
        rentBackLater: { label: "the loan's NFT account", when: "when you repay" },
      }),
    );
  } else if (costs?.isError || costs?.data === null) {
    rows.push([
      "Network fee and rent",
      "could not be measured now",
      "your wallet shows them before you sign",
    ]);
  } else if (costs?.isPending) {
    rows.push(["Network fee and rent", "measuring…"]);
  }
  return (
    <section className="pg-quote" aria-label="Loan terms" data-testid="quote">
      <TermsList terms={rows} testIdPrefix="quote" />
      <p className="muted pg-small">
        Repaying early costs at least 30% of the interest, then interest accrues per hour. After expiry you
        have {formatDuration(schedule.graceSeconds)} of grace at twice the hourly rate; after{" "}
        {formatDateTime(schedule.liquidatableAfter)} the lender may claim your {collateralLabel}. The value of
        your collateral never triggers a liquidation. Amounts in {symbol}.
      </p>
    </section>
  );
}

function usd(value: number | undefined): string | undefined {
  return value === undefined ? undefined : `≈ ${formatUsd(value)}`;
}
