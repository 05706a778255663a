import { getCurrencyByMint } from "@cistern/protocol";
import { usePrices } from "../../data/prices.ts";
import { useApiQuery } from "../../kit/api.ts";
import { formatBps, formatMoney, formatUsdValue } from "../../kit/format.ts";
import type { LoanRowView } from "./loan-model.ts";

/** GET /loan/refinance-offer as the row reads it; null when nothing is cheaper. */
export function parseRefinanceOffer(body: unknown): { pool: string; aprBps: number; saving: bigint } | null {
  if (body === null || typeof body !== "object") return null;
  const b = body as Record<string, unknown>;
  if (typeof b.pool !== "string" || typeof b.saving !== "string" || !/^\d+$/.test(b.saving)) return null;
  return { pool: b.pool, aprBps: Number(b.apr ?? 0), saving: BigInt(b.saving) };
}

/**
 * "A cheaper offer exists" on an ongoing loan: another pool would lend the same until about the same due date
 * for less, with the saving in the loan's currency and in USD, and the button that moves the loan there.
 */
export function RefinanceHint({
  row,
  busy,
  onMove,
}: {
  row: LoanRowView;
  busy: boolean;
  onMove(row: LoanRowView): void;
}) {
  const offer = useApiQuery("loans", "/loan/refinance-offer", { loan: row.loan.pubkey }, parseRefinanceOffer);
  const prices = usePrices();
  const o = offer.data ?? null;
  if (o === null || row.phase === "liquidatable") return null;
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
        onClick={() => onMove(row)}
        data-testid="refinance"
      >
        Move to cheaper pool
      </button>
    </span>
  );
}
