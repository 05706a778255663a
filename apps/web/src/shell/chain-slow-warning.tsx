import { type ChainPerformance, getChainSlowness } from "../data/chain-status.ts";

/**
 * The borrower's outage warning: shown only while Solana is really running slow (slot time by the protocol rule,
 * never transactions per second: an idle chain is not a slow one), nothing otherwise.
 */
export function ChainSlowWarning({ performance }: { performance: ChainPerformance | undefined }) {
  const slowness = getChainSlowness(performance);
  if (slowness === null) return null;
  return (
    <div className="pg-warning" role="status" data-testid="outage-warning">
      Solana is running slow right now ({slowness}), so transactions may take longer to land. Repay early: the
      on-chain due dates and grace period do not change during an outage.
    </div>
  );
}
