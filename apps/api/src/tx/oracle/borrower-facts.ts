import { ACCOUNT_TAG, address, decodeBankAccount, decodePoolAccount, findBankPda } from "@cistern/sdk";
import type { TxValuation } from "../calculator/valuation.ts";
import { requireJsonRpc } from "../chain/json-rpc.ts";
import type { TxContext } from "../tx-context.ts";

/** What pools' borrower conditions are checked against (attested by the oracle). */
export interface BorrowerFacts {
  /** Seconds since the wallet's oldest transaction (0 for a wallet without history). */
  walletAgeSeconds: bigint;
  /**
   * Loans the wallet repaid with the lending program, counting only loans from pools and banks owned by
   * someone else and not closed by Extend (an extension is the same loan continued), so a borrower cannot
   * farm the figure by lending to itself or extending repeatedly.
   */
  pastLoans: bigint;
  /** Principal of those loans in micro-USD at current prices. */
  volumeMicroUsd: bigint;
}

const TTL_MS = 15_000;
const cache = new WeakMap<TxContext, Map<string, { at: number; facts: Promise<BorrowerFacts> }>>();

/**
 * The borrower's facts read from the chain now (uncached): wallet age from its oldest signature, and
 * repaid loans / volume counted as described on {@link BorrowerFacts}.
 */
export async function computeBorrowerFacts(
  tx: TxContext,
  borrower: string,
  valuation: TxValuation,
): Promise<BorrowerFacts> {
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
  const repaid = loans.filter(({ loan }) => loan.status === "Repaid" && loan.extendedTo === null);
  const owners = await ownersOf(tx, [
    ...repaid.map(({ loan }) => loan.pool),
    ...repaid.map(({ loan }) => loan.bank),
  ]);
  let pastLoans = 0n;
  let volumeMicroUsd = 0n;
  for (const { loan } of repaid) {
    // The bank PDA is ["bank", owner, mint]: the borrower's own bank is recognised even once closed.
    const [ownBank] = await findBankPda(tx.programId, address(borrower), loan.currencyMint);
    if (loan.bank === ownBank) continue;
    if (owners.get(loan.pool) === borrower || owners.get(loan.bank) === borrower) continue;
    pastLoans++;
    volumeMicroUsd += valuation.usdMicro(loan.principal, loan.currencyMint) ?? 0n;
  }
  return { walletAgeSeconds: BigInt(Math.max(0, now - oldest)), pastLoans, volumeMicroUsd };
}

/** Owners of the given pools and banks that still exist (one getMultipleAccounts per 100). */
async function ownersOf(tx: TxContext, accounts: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(accounts)];
  const owners = new Map<string, string>();
  for (let i = 0; i < unique.length; i += 100) {
    const chunk = unique.slice(i, i + 100);
    const found = await tx.state.getAccounts(chunk);
    found.forEach((account, j) => {
      if (account === null || account.owner !== tx.programId) return;
      const key = chunk[j]!;
      try {
        const decoded =
          account.data[0] === ACCOUNT_TAG.Pool
            ? decodePoolAccount(account.data)
            : decodeBankAccount(account.data);
        owners.set(key, decoded.owner);
      } catch {
        // Not a pool or bank: unknown owner, not counted.
      }
    });
  }
  return owners;
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
  const facts = computeBorrowerFacts(tx, borrower, valuation);
  byBorrower.set(borrower, { at: Date.now(), facts });
  facts.catch(() => byBorrower.delete(borrower));
  return facts;
}
