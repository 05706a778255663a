import {
  checkRequestTerms,
  describeErrorForUser,
  getCurrencyByMint,
  getRequestFillTerms,
  listCurrencies,
  MAX_REQUEST_APR_BPS,
  SECONDS_PER_DAY,
} from "@cistern/protocol";
import { useId, useState } from "react";
import { formatBps, formatMoney, parseAmountInput } from "../../kit/format.ts";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";

/** What the request pledges. */
export interface RequestCollateral {
  mint: string;
  /** 1 for an NFT. */
  amount: bigint;
  isDefi: boolean;
  /** How the text names it ("Mad Lad #12", "120 JTO"). */
  label: string;
}

/** Builder payload of a loan request. */
export function requestPayload(
  owner: string,
  collateral: RequestCollateral,
  terms: { currency: string; amount: bigint; durationSeconds: number; maxAprBps: number },
) {
  const common = {
    borrower: owner,
    currency: terms.currency,
    amount: terms.amount.toString(),
    duration: terms.durationSeconds,
    maxApr: terms.maxAprBps,
  };
  return collateral.isDefi
    ? { ...common, collateralMint: collateral.mint, collateralAmount: collateral.amount.toString() }
    : { ...common, nftMint: collateral.mint };
}

/** The form's input, checked by the rule-book; the terms when valid, else one plain sentence. */
export function checkRequestInput(input: {
  currency: string;
  amountText: string;
  daysText: string;
  aprText: string;
  collateralAmount: bigint;
}): { ok: true; amount: bigint; durationSeconds: number; maxAprBps: number } | { ok: false; error: string } {
  const decimals = getCurrencyByMint(input.currency)?.decimals ?? 0;
  const { amount, error } = parseAmountInput(input.amountText, decimals);
  if (amount === null) return { ok: false, error: error || "Enter the amount you want to borrow." };
  const days = Number(input.daysText);
  if (!Number.isInteger(days) || days < 1 || days > 365)
    return { ok: false, error: "Choose a duration between 1 and 365 days." };
  const percent = Number(input.aprText);
  const maxAprBps = Math.round(percent * 100);
  if (!Number.isFinite(percent) || maxAprBps < 1 || maxAprBps > MAX_REQUEST_APR_BPS)
    return {
      ok: false,
      error: `Enter the highest APR you accept, between 0.01% and ${MAX_REQUEST_APR_BPS / 100}%.`,
    };
  const refusal = checkRequestTerms({
    principal: amount,
    durationSeconds: days * SECONDS_PER_DAY,
    maxAprBps,
    collateralAmount: input.collateralAmount,
  });
  if (refusal !== null)
    return {
      ok: false,
      error: describeErrorForUser(
        { ...refusal, message: refusal.name },
        { amount: (a, m) => formatMoney(a, m) },
      ),
    };
  return { ok: true, amount, durationSeconds: days * SECONDS_PER_DAY, maxAprBps };
}

/**
 * "No offer fits? Post a loan request": the borrower names the currency, amount, duration and the highest APR
 * they accept; the collateral is locked in the program until a lender fills the request or the borrower
 * cancels it. Everything is said in plain words before signing.
 */
export function RequestForm({
  owner,
  collateral,
  open,
}: {
  owner: string;
  collateral: RequestCollateral;
  /** Opened at first (no offer fits). */
  open: boolean;
}) {
  const ids = useId();
  const currencies = listCurrencies();
  const tx = usePageTransaction();
  const [currency, setCurrency] = useState(currencies[0]!.mint);
  const [amountText, setAmountText] = useState("");
  const [daysText, setDaysText] = useState("7");
  const [aprText, setAprText] = useState("30");
  const [touched, setTouched] = useState(false);
  const check = checkRequestInput({
    currency,
    amountText,
    daysText,
    aprText,
    collateralAmount: collateral.amount,
  });
  const terms = check.ok
    ? getRequestFillTerms({
        status: "Open",
        borrower: owner,
        isDefi: collateral.isDefi,
        currency,
        principal: check.amount,
        durationSeconds: check.durationSeconds,
        maxAprBps: check.maxAprBps,
      })
    : null;
  return (
    <details className="pg-request" open={open} data-testid="request-form">
      <summary>No offer fits? Post a loan request</summary>
      <form
        className="pg-form"
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setTouched(true);
          if (!check.ok) return;
          const signature = await tx.run({
            action: "Post Loan Request",
            path: collateral.isDefi ? "/defi/post-loan-request" : "/nft/post-loan-request",
            payload: requestPayload(owner, collateral, { currency, ...check }),
          });
          if (signature) setAmountText("");
        }}
      >
        <div className="pg-row">
          <label>
            Currency
            <select name="request-currency" value={currency} onChange={(e) => setCurrency(e.target.value)}>
              {currencies.map((c) => (
                <option key={c.mint} value={c.mint}>
                  {c.symbol}
                </option>
              ))}
            </select>
          </label>
          <label>
            Amount
            <input
              name="request-amount"
              inputMode="decimal"
              value={amountText}
              aria-invalid={touched && !check.ok}
              aria-describedby={`${ids}-error`}
              onChange={(e) => setAmountText(e.target.value)}
            />
          </label>
          <label>
            Days
            <input
              name="request-days"
              inputMode="numeric"
              value={daysText}
              onChange={(e) => setDaysText(e.target.value)}
            />
          </label>
          <label>
            Highest APR (%)
            <input
              name="request-apr"
              inputMode="decimal"
              value={aprText}
              onChange={(e) => setAprText(e.target.value)}
            />
          </label>
        </div>
        <p id={`${ids}-error`} className="error-text" role="alert" data-testid="request-error">
          {!check.ok && (touched || amountText !== "") ? check.error : ""}
        </p>
        {check.ok && terms ? (
          <p className="pg-small" data-testid="request-summary">
            You ask for <strong>{formatMoney(check.amount, currency)}</strong> for{" "}
            {check.durationSeconds / SECONDS_PER_DAY} days at up to{" "}
            <strong>{formatBps(check.maxAprBps)}</strong> APR: at most{" "}
            {formatMoney(terms.interest, currency, "up")} interest, so at most{" "}
            {formatMoney(terms.repayAtDue, currency, "up")} to repay by the due date. {collateral.label} is
            locked in the Cistern program until a lender fills the request or you cancel it; unpaid after the
            due date and its grace period, the lender may take it.
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={tx.busy} data-testid="post-request">
          Post request
        </button>
      </form>
    </details>
  );
}
