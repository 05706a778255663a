import { type Bank, getCurrencyByMint } from "@cistern/protocol";
import { useId, useState } from "react";
import { formatMoney, parseAmountInput } from "../../kit/format.ts";
import { Stats } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";

/** Checks a deposit or withdrawal amount; returns base units or the message to show. */
export function checkBankAmount(
  text: string,
  mint: string,
  limit: bigint,
  kind: "deposit" | "withdraw",
): { ok: true; amount: bigint } | { ok: false; message: string } {
  const currency = getCurrencyByMint(mint);
  if (!currency) return { ok: false, message: "Unsupported currency." };
  if (text.trim() === "") return { ok: false, message: "Enter an amount." };
  const { amount, error } = parseAmountInput(text, currency.decimals);
  if (amount === null) return { ok: false, message: error };
  if (amount > limit) {
    return {
      ok: false,
      message:
        kind === "deposit"
          ? `Your wallet holds ${formatMoney(limit, mint)}.`
          : `Only ${formatMoney(limit, mint)} is not lent out and can be withdrawn.`,
    };
  }
  return { ok: true, amount };
}

/** A lender's bank for one currency with deposit and withdraw forms. */
export function BankPanel({
  bank,
  owner,
  walletBalance,
}: {
  bank: Bank;
  owner: string;
  walletBalance: bigint | undefined;
}) {
  const tx = usePageTransaction();
  return (
    <section
      className="card pg-section"
      aria-label={`Bank ${getCurrencyByMint(bank.mint)?.symbol ?? ""}`}
      data-testid="bank"
    >
      <h3>{getCurrencyByMint(bank.mint)?.symbol ?? bank.mint} bank</h3>
      <Stats
        items={[
          { label: "Total", value: formatMoney(bank.totalLiquidity, bank.mint) },
          { label: "Available", value: formatMoney(bank.availableLiquidity, bank.mint) },
          { label: "Lent out", value: formatMoney(bank.borrowedLiquidity, bank.mint) },
        ]}
      />
      <div className="pg-row">
        <AmountAction
          label="Deposit"
          mint={bank.mint}
          limit={walletBalance}
          kind="deposit"
          busy={tx.busy}
          onSubmit={(amount) =>
            tx.run({
              action: "Add Liquidity",
              path: "/bank/deposit",
              payload: { owner, mint: bank.mint, amount: amount.toString() },
            })
          }
        />
        <AmountAction
          label="Withdraw"
          mint={bank.mint}
          limit={bank.availableLiquidity}
          kind="withdraw"
          busy={tx.busy}
          onSubmit={(amount) =>
            tx.run({
              action: "Withdraw",
              path: "/bank/withdraw",
              payload: { owner, mint: bank.mint, amount: amount.toString() },
            })
          }
        />
      </div>
    </section>
  );
}

function AmountAction({
  label,
  mint,
  limit,
  kind,
  busy,
  onSubmit,
}: {
  label: string;
  mint: string;
  limit: bigint | undefined;
  kind: "deposit" | "withdraw";
  busy: boolean;
  onSubmit(amount: bigint): Promise<string | null>;
}) {
  const id = useId();
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  return (
    <form
      className="pg-inline-form"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy) return;
        const result = checkBankAmount(text, mint, limit ?? 0n, kind);
        if (!result.ok) {
          setError(result.message);
          return;
        }
        setError("");
        if (await onSubmit(result.amount)) setText("");
      }}
    >
      <label htmlFor={id}>
        {label} ({getCurrencyByMint(mint)?.symbol})
      </label>
      <span className="pg-input-group">
        <input
          id={id}
          inputMode="decimal"
          value={text}
          aria-invalid={error !== ""}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className="button" disabled={busy} data-testid={`bank-${kind}`}>
          {label}
        </button>
      </span>
      <small className="error-text" role="alert">
        {error}
      </small>
    </form>
  );
}
