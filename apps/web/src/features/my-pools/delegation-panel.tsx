import { type Bank, getCurrencyByMint } from "@cistern/protocol";
import { useEffect, useId, useState } from "react";
import { useApiQuery } from "../../kit/api.ts";
import { formatBps, formatMoney } from "../../kit/format.ts";
import { Stats } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { checkBankAmount } from "./bank-amount.ts";

/** How the page names the lending venue the API answered for: marginfi v2, or the local lending venue. */
export function lendingVenueName(venue: unknown): string {
  return venue === "marginfi" ? "marginfi" : "the local lending venue";
}

/** GET /marginfi/bank as the panel reads it (amounts in base units). */
export interface BankDelegationView {
  isDelegationSupported: boolean;
  /** "marginfi" or "local" (null without a venue). */
  venue: string | null;
  venueError: string | null;
  rateBps: number;
  delegatedLiquidity: bigint;
  positionValue: bigint;
  earnedYield: bigint;
  autoDelegate: boolean;
}

export function parseBankDelegation(body: unknown): BankDelegationView | null {
  if (body === null || typeof body !== "object") return null;
  const b = body as Record<string, unknown>;
  const amount = (v: unknown) => (typeof v === "string" && /^\d+$/.test(v) ? BigInt(v) : 0n);
  return {
    isDelegationSupported: b.isDelegationSupported === true,
    venue: typeof b.venue === "string" ? b.venue : null,
    venueError: typeof b.venueError === "string" ? b.venueError : null,
    rateBps: typeof b.rateBps === "number" ? b.rateBps : 0,
    delegatedLiquidity: amount(b.delegatedLiquidity),
    positionValue: amount(b.positionValue),
    earnedYield: amount(b.earnedYield),
    autoDelegate: b.autoDelegate === true,
  };
}

/**
 * A bank's idle liquidity in the lending venue: what is delegated, what it is worth and earned, the venue's
 * rate; "Delegate idle funds" (with the hourly re-delegation choice, set on chain) and "Withdraw delegated"
 * with what each will do before it is signed.
 */
export function DelegationPanel({ bank, owner }: { bank: Bank; owner: string }) {
  const tx = usePageTransaction();
  const id = useId();
  const view = useApiQuery("mypool", "/marginfi/bank", { pubkey: bank.pubkey }, parseBankDelegation);
  const d = view.data ?? null;
  const [text, setText] = useState("");
  const [hourly, setHourly] = useState(false);
  const [error, setError] = useState("");
  useEffect(() => {
    if (d !== null) setHourly(d.autoDelegate);
  }, [d?.autoDelegate, d]);
  const symbol = getCurrencyByMint(bank.mint)?.symbol ?? "";
  if (d === null) return null;
  if (!d.isDelegationSupported)
    return (
      <p className="muted pg-small" data-testid="delegation-unavailable">
        {d.venueError ??
          `No lending venue takes ${symbol} on this cluster, so idle funds cannot be delegated.`}
      </p>
    );
  const check = checkBankAmount(text, bank.mint, bank.availableLiquidity, "withdraw");
  const preview = text.trim() !== "" && check.ok ? check.amount : null;
  return (
    <div className="pg-delegation" data-testid="delegation">
      <h4>Idle funds in the lending venue</h4>
      <p className="muted pg-small">
        Funds no borrower is using can earn {lendingVenueName(d.venue)}'s {formatBps(d.rateBps)} a year for
        this bank. A loan that needs them pulls them back in its own transaction, so borrowers are never
        turned away.
      </p>
      <Stats
        items={[
          {
            label: "Delegated",
            value: <span data-testid="delegated">{formatMoney(d.delegatedLiquidity, bank.mint)}</span>,
          },
          { label: "Worth now", value: formatMoney(d.positionValue, bank.mint) },
          {
            label: "Earned yield",
            value: <span data-testid="earned-yield">{formatMoney(d.earnedYield, bank.mint)}</span>,
          },
          { label: "Venue rate", value: `${formatBps(d.rateBps)} a year` },
        ]}
      />
      <form
        className="pg-inline-form"
        aria-label={`Delegate idle ${symbol}`}
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (tx.busy) return;
          const onlyChoice = text.trim() === "" && hourly !== d.autoDelegate;
          if (!onlyChoice && !check.ok) {
            setError(check.message.replace("can be withdrawn", "can be delegated"));
            return;
          }
          setError("");
          const amount = onlyChoice || !check.ok ? 0n : check.amount;
          const done = await tx.run({
            action: "Delegate Funds",
            path: "/bank/marginfi-deposit",
            payload: { owner, mint: bank.mint, amount: amount.toString(), autoDelegate: hourly },
          });
          if (done) setText("");
        }}
      >
        <label htmlFor={id}>Delegate idle funds ({symbol})</label>
        <span className="pg-input-group">
          <input
            id={id}
            inputMode="decimal"
            value={text}
            aria-invalid={error !== ""}
            onChange={(e) => setText(e.target.value)}
          />
          <button type="submit" className="button" disabled={tx.busy} data-testid="delegate-submit">
            {submitLabel(text, hourly, d.autoDelegate)}
          </button>
        </span>
        <label className="pg-check">
          <input type="checkbox" checked={hourly} onChange={(e) => setHourly(e.target.checked)} /> Re-delegate
          idle funds every hour (the delegation keeper may then move only this bank's idle funds into the
          venue)
        </label>
        <small className="muted" data-testid="hourly-state">
          Hourly re-delegation is {d.autoDelegate ? "on" : "off"} for this bank.
        </small>
        <small className="muted" data-testid="delegate-preview">
          {preview === null
            ? `Up to ${formatMoney(bank.availableLiquidity, bank.mint)} is idle.`
            : `Available ${formatMoney(bank.availableLiquidity, bank.mint)} → ${formatMoney(bank.availableLiquidity - preview, bank.mint)}; delegated ${formatMoney(d.delegatedLiquidity, bank.mint)} → ${formatMoney(d.delegatedLiquidity + preview, bank.mint)}.`}
        </small>
        <small className="error-text" role="alert">
          {error}
        </small>
      </form>
      {d.autoDelegate ? (
        <div className="pg-row">
          <button
            type="button"
            className="button"
            disabled={tx.busy}
            data-testid="hourly-off"
            onClick={() =>
              void tx.run({
                action: "Delegate Funds",
                path: "/bank/marginfi-deposit",
                payload: { owner, mint: bank.mint, amount: "0", autoDelegate: false },
              })
            }
          >
            Turn off hourly re-delegation
          </button>
          <small className="muted">
            Nothing moves: what is delegated stays delegated until you withdraw it.
          </small>
        </div>
      ) : null}
      {d.delegatedLiquidity > 0n ? (
        <div className="pg-row">
          <button
            type="button"
            className="button"
            disabled={tx.busy}
            data-testid="withdraw-delegated"
            onClick={() =>
              void tx.run({
                action: "Withdraw Delegated Funds",
                path: "/bank/marginfi-withdraw",
                payload: { owner, mint: bank.mint },
              })
            }
          >
            Withdraw delegated
          </button>
          <small className="muted" data-testid="withdraw-delegated-preview">
            About {formatMoney(d.positionValue, bank.mint)} comes back to available liquidity:{" "}
            {formatMoney(d.delegatedLiquidity, bank.mint)} delegated plus{" "}
            {formatMoney(d.earnedYield, bank.mint)} of yield for this bank's lenders.
          </small>
        </div>
      ) : null}
    </div>
  );
}

/**
 * The delegation form's button says what pressing it does: delegate (and turn hourly re-delegation on or off when
 * that changes too), or only turn hourly re-delegation on or off when no amount is entered.
 */
export function submitLabel(text: string, hourly: boolean, hourlyNow: boolean): string {
  const change = hourly === hourlyNow ? null : hourly ? "on" : "off";
  if (text.trim() === "") return change === null ? "Delegate" : `Turn hourly re-delegation ${change}`;
  if (change === null) return "Delegate";
  return change === "on" ? "Delegate and re-delegate hourly" : "Delegate and stop hourly re-delegation";
}
