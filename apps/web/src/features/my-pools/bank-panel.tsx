import { type Bank, getCurrencyByMint } from "@cistern/protocol";
import { useId, useState } from "react";
import { formatMoney } from "../../kit/format.ts";
import { Stats } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { checkBankAmount } from "./bank-amount.ts";
import { DelegationPanel } from "./delegation-panel.tsx";

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
          { label: "In the lending venue", value: formatMoney(bank.delegatedLiquidity, bank.mint) },
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
      <DelegationPanel bank={bank} owner={owner} />
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
