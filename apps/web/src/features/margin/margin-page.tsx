import { describeErrorForUser, getCurrencyByMint } from "@cistern/protocol";
import { useId, useState } from "react";
import { useCurrencyBalance } from "../../data/balances.ts";
import {
  formatBps,
  formatMoney,
  parseAmountInput,
  SLIPPAGE_CHOICES_BPS,
  symbolOf,
} from "../../kit/format.ts";
import { Page, QueryState, RequireWallet, useChainNow } from "../../kit/page-kit.tsx";
import { usePageTransaction } from "../../kit/use-page-transaction.ts";
import { useOpenPools } from "../borrow/borrow-data.ts";
import { useTokens } from "../pools/pool-data.ts";
import { SwapWidget } from "../swap/swap-widget.tsx";
import { useMarginOffers } from "./margin-data.ts";
import {
  getCheapestMarginOffer,
  getMarginDurations,
  getMarginMarkets,
  getTopLeverage,
  getTopLeverageOf,
} from "./margin-model.ts";
import { MarginTerms } from "./margin-terms.tsx";

/** Margin: buy a token with a down payment and a fixed-term loan, the token locked as the loan's collateral. */
export function MarginPage() {
  return (
    <Page
      title="Margin"
      lead="Buy a token with leverage: your down payment plus a fixed-term loan are swapped into the token, which stays locked until you repay. No price liquidations: only an unpaid loan after its grace period is liquidated."
    >
      <RequireWallet what="open a margin position">{(owner) => <MarginForm owner={owner} />}</RequireWallet>
    </Page>
  );
}

function MarginForm({ owner }: { owner: string }) {
  const pools = useOpenPools("defi-pool");
  const catalogue = useTokens();
  const now = useChainNow();
  const tx = usePageTransaction();
  const ids = useId();
  const [targetChoice, setTarget] = useState("");
  const [currencyChoice, setCurrency] = useState("");
  const [downText, setDownText] = useState("");
  const [days, setDays] = useState(7);
  const [slippageBps, setSlippageBps] = useState(100);
  const list = pools.data?.pools ?? [];
  const markets = getMarginMarkets(list);
  const target = markets.has(targetChoice) ? targetChoice : ([...markets.keys()][0] ?? "");
  const currencies = [...(markets.get(target) ?? [])];
  const currency = currencies.includes(currencyChoice) ? currencyChoice : (currencies[0] ?? "");
  const longest = Math.max(
    0,
    ...list
      .filter((p) => p.currency === currency && p.collections.some((c) => c.collection === target))
      .map((p) => p.limits.maxDuration),
  );
  const durations = getMarginDurations(longest);
  const duration = durations.includes(days) ? days : (durations.at(-1) ?? 1);
  const decimals = getCurrencyByMint(currency)?.decimals ?? 0;
  const held = useCurrencyBalance(currency) ?? 0n;
  const parsed = parseAmountInput(downText, decimals);
  const downPayment = parsed.amount;
  let downError = parsed.error;
  if (downPayment !== null && downPayment > held) downError = `You hold ${formatMoney(held, currency)}.`;
  const offers = useMarginOffers({
    owner,
    target,
    currency,
    downPayment: downError === "" ? downPayment : null,
    days: duration,
    slippageBps,
  });
  // the pool: the one the user chose while it still offers terms, else the cheapest for the leverage asked
  const [poolChoice, setPoolChoice] = useState<string | null>(null);
  const [leverageAsked, setLeverageAsked] = useState<number | null>(null);
  const quoted = offers.data ?? [];
  const chosenOffer = quoted.find((o) => o.pool === poolChoice);
  const topLeverage = chosenOffer ? getTopLeverage(chosenOffer) : getTopLeverageOf(quoted);
  const leverage = Math.min(leverageAsked ?? topLeverage, topLeverage);
  const offer = chosenOffer ?? getCheapestMarginOffer(quoted, leverage);
  const poolName = (pool: string) => list.find((p) => p.pubkey === pool)?.metadata.name || "Unnamed pool";
  const targetSymbol = symbolOf(target, catalogue.data);
  const targetDecimals = catalogue.data?.[target]?.decimals ?? 0;
  return (
    <QueryState
      query={pools}
      label="the pools"
      isEmpty={() => markets.size === 0}
      empty="No open token pool lends for margin positions yet."
    >
      {() => (
        <div className="pg-split">
          <section className="card pg-section" aria-label="Margin position">
            <div className="pg-row">
              <label>
                Token to buy
                <select value={target} onChange={(e) => setTarget(e.target.value)}>
                  {[...markets.keys()].map((mint) => (
                    <option key={mint} value={mint}>
                      {symbolOf(mint, catalogue.data)}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Pay with
                <select value={currency} onChange={(e) => setCurrency(e.target.value)}>
                  {currencies.map((mint) => (
                    <option key={mint} value={mint}>
                      {symbolOf(mint)}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <div className="pg-row">
              <label>
                Down payment ({symbolOf(currency)})
                <input
                  name="down-payment"
                  inputMode="decimal"
                  value={downText}
                  aria-invalid={downError !== ""}
                  onChange={(e) => setDownText(e.target.value)}
                />
                <small className="muted">You hold {formatMoney(held, currency)}</small>
              </label>
              <label>
                Duration
                <select value={duration} onChange={(e) => setDays(Number(e.target.value))}>
                  {durations.map((d) => (
                    <option key={d} value={d}>
                      {d} {d === 1 ? "day" : "days"}
                    </option>
                  ))}
                </select>
              </label>
              <label htmlFor={`${ids}-slippage`}>
                Slippage
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
            </div>
            <p className="error-text" role="alert" data-testid="down-payment-error">
              {downError}
            </p>
            {offers.isFetching && !offers.data ? (
              <p className="pg-state">Finding the best leverage…</p>
            ) : null}
            {offers.error ? (
              <p className="error-text" role="alert" data-testid="margin-error">
                {describeErrorForUser(offers.error, { amount: (a, mint) => formatMoney(a, mint) })}
              </p>
            ) : null}
            {offers.data?.length === 0 ? (
              <p className="pg-state pg-empty" data-testid="margin-none">
                No pool lends against {targetSymbol} in {symbolOf(currency)} for this down payment and
                duration. Try a larger down payment or a shorter duration.
              </p>
            ) : null}
            {offer && downPayment !== null && quoted.length > 1 ? (
              <fieldset className="pg-pool-choice" data-testid="margin-pools">
                <legend>Pool</legend>
                {[...quoted]
                  .sort((a, b) => a.aprBps - b.aprBps || getTopLeverage(b) - getTopLeverage(a))
                  .map((o) => (
                    <label key={o.pool} data-testid="margin-pool-option">
                      <input
                        type="radio"
                        name={`${ids}-pool`}
                        value={o.pool}
                        checked={o.pool === offer.pool}
                        onChange={() => setPoolChoice(o.pool)}
                      />{" "}
                      {poolName(o.pool)}{" "}
                      <small className="muted">
                        {formatBps(o.aprBps)} APR, up to {(getTopLeverage(o) / 100).toFixed(2)}x
                        {o.pool === offer.pool && chosenOffer === undefined
                          ? " · cheapest for this leverage"
                          : ""}
                      </small>
                    </label>
                  ))}
                {chosenOffer ? (
                  <button type="button" className="button button-small" onClick={() => setPoolChoice(null)}>
                    Use the cheapest pool
                  </button>
                ) : null}
              </fieldset>
            ) : null}
            {offer && downPayment !== null ? (
              <p className="pg-small" data-testid="margin-pool">
                From <strong>{poolName(offer.pool)}</strong> at {formatBps(offer.aprBps)} APR
              </p>
            ) : null}
            {offer && downPayment !== null ? (
              <MarginTerms
                key={`${downPayment}:${duration}:${slippageBps}`}
                offer={offer}
                leverage={leverage}
                topLeverage={topLeverage}
                onLeverage={setLeverageAsked}
                target={target}
                targetSymbol={targetSymbol}
                targetDecimals={targetDecimals}
                durationSeconds={duration * 86_400}
                nowSeconds={now}
                busy={tx.busy}
                onOpen={async (principal) => {
                  const signature = await tx.run({
                    action: "Margin Swap",
                    path: "/defi/margin-swap",
                    payload: {
                      borrower: owner,
                      collateralMint: target,
                      pool: offer.pool,
                      downPayment: downPayment!.toString(),
                      amount: principal.toString(),
                      duration: duration * 86_400,
                      slippageBps,
                    },
                    isTokenLoan: true,
                  });
                  if (signature) setDownText("");
                }}
              />
            ) : downPayment === null ? (
              <p className="muted">Enter a down payment to see how much {targetSymbol} you can buy.</p>
            ) : null}
          </section>
          <SwapWidget owner={owner} />
        </div>
      )}
    </QueryState>
  );
}
