import { describeErrorForUser, SOL_MINT } from "@cistern/protocol";
import { useState } from "react";
import { useCurrencyBalance } from "../../data/balances.ts";
import { formatAmount, formatMoney, parseAmountInput, symbolOf } from "../../kit/format.ts";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { useSwapQuote } from "../margin/margin-data.ts";
import { useTokens } from "../pools/pool-data.ts";

const SLIPPAGE_BPS = 100;

/**
 * The swap widget: trade one token for another on the swap venue (the local AMM on localnet, Jupiter through
 * the API in production), with the expected and least amount received before signing.
 */
export function SwapWidget({ owner }: { owner: string }) {
  const catalogue = useTokens();
  const tx = usePageTransaction();
  const mints = Object.values(catalogue.data ?? {}).map((t) => t.mint);
  const [fromChoice, setFrom] = useState(SOL_MINT);
  const [toChoice, setTo] = useState("");
  const [amountText, setAmountText] = useState("");
  const from = mints.includes(fromChoice) ? fromChoice : (mints[0] ?? "");
  const to = mints.includes(toChoice) && toChoice !== from ? toChoice : (mints.find((m) => m !== from) ?? "");
  const decimalsOf = (mint: string) => catalogue.data?.[mint]?.decimals ?? 0;
  const held = useCurrencyBalance(from) ?? 0n;
  const parsed = parseAmountInput(amountText, decimalsOf(from));
  const amount = parsed.amount;
  let amountError = parsed.error;
  if (amount !== null && amount > held)
    amountError = `You hold ${formatAmount(held, decimalsOf(from))} ${symbolOf(from, catalogue.data)}.`;
  const quote = useSwapQuote({
    inputMint: from,
    outputMint: to,
    amount: amountError === "" ? amount : null,
    slippageBps: SLIPPAGE_BPS,
  });
  const tokens = (value: bigint, mint: string) =>
    `${formatAmount(value, decimalsOf(mint))} ${symbolOf(mint, catalogue.data)}`;
  const options = mints.map((mint) => (
    <option key={mint} value={mint}>
      {symbolOf(mint, catalogue.data)}
    </option>
  ));
  return (
    <section className="card pg-section" aria-label="Swap" data-testid="swap-widget">
      <h2 className="pg-h2">Swap</h2>
      <div className="pg-row">
        <label>
          From
          <select aria-label="From" value={from} onChange={(e) => setFrom(e.target.value)}>
            {options}
          </select>
        </label>
        <label>
          To
          <select aria-label="To" value={to} onChange={(e) => setTo(e.target.value)}>
            {options.filter((o) => o.key !== from)}
          </select>
        </label>
      </div>
      <label>
        Amount ({symbolOf(from, catalogue.data)})
        <input
          name="swap-amount"
          inputMode="decimal"
          value={amountText}
          aria-invalid={amountError !== ""}
          onChange={(e) => setAmountText(e.target.value)}
        />
        <small className="muted">You hold {tokens(held, from)}</small>
      </label>
      <p className="error-text" role="alert" data-testid="swap-amount-error">
        {amountError}
      </p>
      {quote.error ? (
        <p className="error-text" role="alert" data-testid="swap-error">
          {describeErrorForUser(quote.error, { amount: (a, mint) => formatMoney(a, mint) })}
        </p>
      ) : null}
      {quote.data ? (
        <dl className="pg-quote" data-testid="swap-quote">
          <div>
            <dt>You receive</dt>
            <dd>
              about {tokens(quote.data.outAmount, to)}{" "}
              <small className="muted">at least {tokens(quote.data.minimumOut, to)}</small>
            </dd>
          </div>
          <div>
            <dt>Price impact</dt>
            <dd>{(quote.data.priceImpactPct * 100).toFixed(2)}%</dd>
          </div>
        </dl>
      ) : null}
      <div className="pg-buttons">
        <button
          type="button"
          className="button button-primary"
          disabled={tx.busy || !quote.data}
          title={quote.data ? undefined : "Available once the swap is quoted"}
          onClick={async () => {
            const signature = await tx.run({
              action: "Swap",
              path: "/defi/swap",
              payload: {
                wallet: owner,
                inputMint: from,
                outputMint: to,
                amount: amount!.toString(),
                slippageBps: SLIPPAGE_BPS,
              },
            });
            if (signature) setAmountText("");
          }}
          data-testid="swap-submit"
        >
          Swap
        </button>
      </div>
      <p className="muted pg-small">
        Trades on the market at most {SLIPPAGE_BPS / 100}% below the quote; a worse price cancels the trade
        and nothing moves.
      </p>
    </section>
  );
}
