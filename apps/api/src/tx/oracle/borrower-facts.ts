import type { TxValuation } from "../calculator/valuation.ts";
import { requireJsonRpc } from "../chain/json-rpc.ts";
import type { TxContext } from "../tx-context.ts";

/** What pools' borrower conditions are checked against (attested by the oracle). */
export interface BorrowerFacts {
  /** Seconds since the wallet's oldest transaction (0 for a wallet without history). */
  walletAgeSeconds: bigint;
  /** Loans the wallet repaid with the lending program. */
  pastLoans: bigint;
  /** Principal of those loans in micro-USD at current prices. */
  volumeMicroUsd: bigint;
}

const TTL_MS = 15_000;
const cache = new WeakMap<TxContext, Map<string, { at: number; facts: Promise<BorrowerFacts> }>>();

async function compute(tx: TxContext, borrower: string, valuation: TxValuation): Promise<BorrowerFacts> {
  const [signatures, loans, now] = await Promise.all([
    requireJsonRpc<{ blockTime: number | null }[]>(tx.app.rpc.url, "getSignaturesForAddress", [
      borrower,
      { limit: 1000, commitment: "confirmed" },
    ]),
    tx.state.getBorrowerLoans(borrower),
    tx.clock.unixTime(),
  ]);
  const times = signatures.map((s) => s.blockTime).filter((t): t is number => typeof t === "number");
  const oldest = times.length > 0 ? Math.min(...times) : now;
  let pastLoans = 0n;
  let volumeMicroUsd = 0n;
  for (const { loan } of loans) {
    if (loan.status !== "Repaid") continue;
    pastLoans++;
    volumeMicroUsd += valuation.usdMicro(loan.principal, loan.currencyMint) ?? 0n;
  }
  return { walletAgeSeconds: BigInt(Math.max(0, now - oldest)), pastLoans, volumeMicroUsd };
}

/** The borrower's facts, computed from the chain (cached for 15 s per borrower). */
export function getBorrowerFacts(
  tx: TxContext,
  borrower: string,
  valuation: TxValuation,
): Promise<BorrowerFacts> {
  let byBorrower = cache.get(tx);
  if (byBorrower === undefined) {
    byBorrower = new Map();
    cache.set(tx, byBorrower);
  }
  const hit = byBorrower.get(borrower);
  if (hit !== undefined && Date.now() - hit.at < TTL_MS) return hit.facts;
  const facts = compute(tx, borrower, valuation);
  byBorrower.set(borrower, { at: Date.now(), facts });
  facts.catch(() => byBorrower.delete(borrower));
  return facts;
}
