import {
  computeRefinanceCostLamports,
  getCurrencyByMint,
  isRefinanceWorthwhile,
  parseUnitsFloor,
  SOL_MINT,
} from "@cistern/protocol";
import { type PriceMap, usePrices } from "../../data/prices.ts";
import { useApiQuery } from "../../kit/api.ts";
import { formatBps, formatDateTime, formatDuration, formatMoney, formatUsdValue } from "../../kit/format.ts";
import { QueryState, type Term, TermsList } from "../../kit/page-kit.tsx";
import { poolName } from "../pools/pool-cards.tsx";
import { usePool } from "../pools/pool-data.ts";
import type { LoanRowView } from "./loan-model.ts";

/** GET /loan/refinance-offer as the row reads it; null when nothing is cheaper. Amounts in base units. */
export interface RefinanceOffer {
  pool: string;
  aprBps: number;
  /** The new loan's duration, seconds (the old loan's remaining time in whole days). */
  durationSeconds: number;
  /** Interest owed on the old loan now: what the borrower pays when the move lands. */
  owedNow: bigint;
  /** Interest of the new loan by its due date. */
  newInterest: bigint;
  saving: bigint;
}

const digits = (v: unknown): v is string => typeof v === "string" && /^\d+$/.test(v);

export function parseRefinanceOffer(body: unknown): RefinanceOffer | null {
  if (body === null || typeof body !== "object") return null;
  const b = body as Record<string, unknown>;
  if (typeof b.pool !== "string" || !digits(b.saving)) return null;
  return {
    pool: b.pool,
    aprBps: Number(b.apr ?? 0),
    durationSeconds: Number(b.duration ?? 0),
    owedNow: digits(b.owedNow) ? BigInt(b.owedNow) : 0n,
    newInterest: digits(b.newInterest) ? BigInt(b.newInterest) : 0n,
    saving: BigInt(b.saving),
  };
}

/** Micro-USD per whole token of a price-feed entry, or undefined without one. */
function microUsd(prices: PriceMap | undefined, mint: string): bigint | undefined {
  const price = prices?.[mint];
  if (price === undefined) return undefined;
  try {
    return parseUnitsFloor(price, 6);
  } catch {
    return undefined;
  }
}

/**
 * The rule for offering a move: the saving must be worth more than the move costs the wallet (two signatures' fees,
 * the priority fee at its maximum and the new loan record's rent: computeRefinanceCostLamports), compared at the
 * price feed's USD prices (lamports for a SOL loan).
 */
export function isOfferWorthMoving(
  offer: RefinanceOffer,
  currency: string,
  prices: PriceMap | undefined,
): boolean {
  return isRefinanceWorthwhile({
    savingBaseUnits: offer.saving,
    isSol: currency === SOL_MINT,
    currencyDecimals: getCurrencyByMint(currency)?.decimals ?? 0,
    currencyPriceMicroUsd: microUsd(prices, currency),
    solPriceMicroUsd: microUsd(prices, SOL_MINT),
  });
}

/** The loan's refinance offer (scope "loans"), refreshed every 30 s so the hint never names a pool gone by. */
export function useRefinanceOffer(loan: string) {
  return useApiQuery("loans", "/loan/refinance-offer", { loan }, parseRefinanceOffer, {
    refetchIntervalMs: 30_000,
  });
}

/**
 * "A cheaper offer exists" on an ongoing loan, when the saving is worth a transaction (isOfferWorthMoving): another
 * pool would lend the same until about the same due date for less. The button opens the new terms (RefinancePanel).
 */
export function RefinanceHint({
  row,
  busy,
  onOpen,
}: {
  row: LoanRowView;
  busy: boolean;
  onOpen(row: LoanRowView): void;
}) {
  const offer = useRefinanceOffer(row.loan.pubkey);
  const prices = usePrices();
  const o = offer.data ?? null;
  if (o === null || row.phase === "liquidatable" || !isOfferWorthMoving(o, row.loan.currency, prices.data))
    return null;
  const decimals = getCurrencyByMint(row.loan.currency)?.decimals ?? 0;
  return (
    <span className="pg-refinance" data-testid="refinance-hint">
      <small>
        A cheaper offer exists: {formatBps(o.aprBps)} APR saves {formatMoney(o.saving, row.loan.currency)}{" "}
        {formatUsdValue(o.saving, decimals, prices.data?.[row.loan.currency])}.
      </small>
      <button
        type="button"
        className="button"
        disabled={busy}
        onClick={() => onOpen(row)}
        data-testid="refinance"
      >
        Move to cheaper pool…
      </button>
    </span>
  );
}

/**
 * Moving a loan to a cheaper pool, before signing: the new pool, its APR, the new due date, what is paid now (the
 * old loan's interest so far; the principal is not paid out again) and what it saves, read afresh. Confirming moves
 * the loan to exactly this pool (the builder is given it), never to another one picked later.
 */
export function RefinancePanel({
  row,
  now,
  busy,
  onConfirm,
  onCancel,
}: {
  row: LoanRowView;
  now: number;
  busy: boolean;
  onConfirm(offer: RefinanceOffer): void;
  onCancel(): void;
}) {
  const offer = useRefinanceOffer(row.loan.pubkey);
  return (
    <section className="card pg-section pg-extend" aria-label="Move loan" data-testid="refinance-panel">
      <h3>Move to a cheaper pool</h3>
      <QueryState query={offer} label="the cheaper pool's terms">
        {(o) =>
          o === null ? (
            <p className="error-text" data-testid="refinance-gone">
              No other pool lends this loan for less any more.
            </p>
          ) : (
            <RefinanceTerms row={row} offer={o} now={now} busy={busy} onConfirm={onConfirm} />
          )
        }
      </QueryState>
      <div className="pg-buttons">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

function RefinanceTerms({
  row,
  offer,
  now,
  busy,
  onConfirm,
}: {
  row: LoanRowView;
  offer: RefinanceOffer;
  now: number;
  busy: boolean;
  onConfirm(offer: RefinanceOffer): void;
}) {
  const pool = usePool(offer.pool);
  const { currency, amount } = row.loan;
  const cost = computeRefinanceCostLamports();
  const terms: Term[] = [
    ["New pool", pool.data ? poolName(pool.data) : "…"],
    ["New APR", formatBps(offer.aprBps), `now ${formatBps(row.loan.aprBps ?? 0)}`],
    ["New due date", formatDateTime(now + offer.durationSeconds), formatDuration(offer.durationSeconds)],
    ["Pay now", formatMoney(offer.owedNow, currency, "up"), "the interest owed so far"],
    ["Principal", formatMoney(amount, currency), "stays borrowed, now from the new pool"],
    ["Repay by the new due date", formatMoney(amount + offer.newInterest, currency, "up")],
    ["You save", formatMoney(offer.saving, currency)],
    ["Network cost", `at most ${formatMoney(cost, SOL_MINT, "up")}`, "fees and the new loan's record"],
  ];
  return (
    <>
      <section className="pg-quote" aria-label="New terms" data-testid="refinance-terms">
        <TermsList terms={terms} testIdPrefix="refinance" />
        <p className="muted pg-small">
          The old lender is paid off and your collateral moves to the new loan without leaving escrow.
        </p>
      </section>
      <div className="pg-buttons">
        <button
          type="button"
          className="button button-primary"
          disabled={busy}
          onClick={() => onConfirm(offer)}
          data-testid="refinance-submit"
        >
          {busy ? "Moving…" : "Move the loan"}
        </button>
      </div>
    </>
  );
}
