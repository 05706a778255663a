import { getCurrencyByMint, type LoanNetworkCosts, type LoanQuote, SOL_MINT } from "@cistern/protocol";
import { formatBps, formatDateTime, formatDuration, formatMoney, formatUsd } from "../../kit/format.ts";
import { type Term, TermsList } from "../../kit/page-kit.tsx";
import { getLoanSchedule } from "./borrow-model.ts";

/**
 * Every term of a loan before signing: what you receive, interest (with Cistern's share), APR,
 * what you repay and by when, the grace period and what happens after it.
 */
export function QuotePanel({
  quote,
  network,
  currency,
  nowSeconds,
  collateralLabel,
}: {
  quote: LoanQuote;
  /** Network fee and rent the wallet pays to open the loan (lamports), from the rule-book's offer. */
  network?: LoanNetworkCosts;
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
  if (network) {
    rows.push(
      ["Network fee", formatMoney(network.feeLamports, SOL_MINT, "up"), "paid to Solana"],
      [
        "Account rent",
        formatMoney(network.loanAccountRentLamports + network.escrowRentLamports, SOL_MINT, "up"),
        `${formatMoney(network.refundableOnRepayLamports, SOL_MINT)} comes back when you repay`,
      ],
    );
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
