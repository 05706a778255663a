import {
  LOAN_CLOSINGS,
  LOAN_STATUS_ONGOING,
  type Loan,
  type LoanClosedBy,
  PROGRAM_ERROR_CODE,
} from "@cistern/protocol";
import { decodeLoanAccount } from "@cistern/sdk/accounts/loan";
import { useConnection } from "@solana/wallet-adapter-react";
import { type Connection, PublicKey } from "@solana/web3.js";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import { refreshAgainAfterIndexing, refreshScopes } from "../../data/refresh.ts";
import { createStore, useStore } from "../../lib/create-store.ts";

/** How a loan ended, as its account on chain holds it. */
export interface LoanEnding {
  status: "Repaid" | "Liquidated" | "Sold";
  /** How it closed (Repaid, Extended, Refinanced, Liquidated, Sold, AutoSold); null for an account at layout v1. */
  closedBy: string | null;
  /** Epoch seconds (0 = not that way). */
  repaidAt: number;
  liquidatedAt: number;
  soldAt: number;
  /** Principal + interest paid, base units. */
  repaidAmount: bigint;
  /** The loan that continues this one when an Extend or Refinance closed it. */
  extendedTo: string | undefined;
}

/** The ending a Loan account's bytes record, or null while the loan is Ongoing (or the bytes are no loan). */
export function readLoanEnding(data: Uint8Array): LoanEnding | null {
  let loan: ReturnType<typeof decodeLoanAccount>;
  try {
    loan = decodeLoanAccount(data);
  } catch {
    return null;
  }
  if (loan.status === "Ongoing") return null;
  return {
    status: loan.status,
    closedBy: loan.closedBy,
    repaidAt: Number(loan.repaidAt),
    liquidatedAt: Number(loan.liquidatedAt),
    soldAt: Number(loan.soldAt),
    repaidAmount: loan.repaidAmount,
    extendedTo: loan.extendedTo ?? undefined,
  };
}

/**
 * Endings the chain showed before the API's lists did, by loan address. The API's indexer follows the chain a
 * moment behind; until its list says so too, the lists read these (so a loan the keeper ended never offers an
 * action for that moment). Final statuses never change, so an entry never goes stale.
 */
const endingsStore = createStore<ReadonlyMap<string, LoanEnding>>(new Map());

/** Records what the chain says of a loan's ending. */
export function recordLoanEnding(pubkey: string, ending: LoanEnding): void {
  const current = endingsStore.get();
  if (current.get(pubkey)?.status === ending.status) return;
  const next = new Map(current);
  next.set(pubkey, ending);
  endingsStore.set(next);
}

/** The loans with the chain's endings over the API's answer for those the API still calls Ongoing. */
export function applyLoanEndings(loans: readonly Loan[], endings: ReadonlyMap<string, LoanEnding>): Loan[] {
  return loans.map((loan) => {
    const ending = endings.get(loan.pubkey);
    if (ending === undefined || loan.status !== LOAN_STATUS_ONGOING) return loan;
    return {
      ...loan,
      status: ending.status,
      repaidAt: ending.repaidAt,
      liquidatedAt: ending.liquidatedAt,
      soldAt: ending.soldAt,
      // Repaid: what was paid; auto-sold (Liquidated with proceeds): what the sale brought the bank
      repaidAmount: ending.repaidAmount > 0n ? ending.repaidAmount : loan.repaidAmount,
      extendedTo: ending.extendedTo,
      closedBy: (LOAN_CLOSINGS as readonly string[]).includes(ending.closedBy ?? "")
        ? (ending.closedBy as LoanClosedBy)
        : loan.closedBy,
    };
  });
}

/** What a loan's ending changes on screen: the loan lists, the pools' figures, the wallet's assets. */
const ENDING_SCOPES = ["loans", "mypool", "assets", "balance"] as const;

/**
 * Loan lists that follow the chain: subscribes (RPC websocket, accountSubscribe at the connection's commitment) to
 * every Ongoing loan listed, reads them once at once (the API's answer may be a moment behind the chain), and when
 * one ends — repaid, liquidated by the keeper or anyone, sold — shows its ending at once and reloads the lists (now
 * and again once the indexer has seen it). Returns the loans with those endings applied.
 */
export function useLoansFollowingChain(loans: readonly Loan[] | undefined): Loan[] | undefined {
  const { connection } = useConnection();
  const queryClient = useQueryClient();
  const endings = useStore(endingsStore);
  const followed = useMemo(
    () => (loans === undefined ? undefined : applyLoanEndings(loans, endings)),
    [loans, endings],
  );
  const watched = (followed ?? [])
    .filter((loan) => loan.status === LOAN_STATUS_ONGOING)
    .map((loan) => loan.pubkey)
    .sort()
    .join(",");
  useEffect(() => {
    if (watched === "") return;
    const keys = watched.split(",");
    let live = true;
    const seen = (pubkey: string, data: Uint8Array) => {
      const ending = readLoanEnding(data);
      if (!live || ending === null) return;
      recordLoanEnding(pubkey, ending);
      void refreshScopes(queryClient, ENDING_SCOPES);
      refreshAgainAfterIndexing(queryClient, ENDING_SCOPES);
    };
    const ids = keys.map((key) =>
      connection.onAccountChange(new PublicKey(key), (info) => seen(key, info.data)),
    );
    connection
      .getMultipleAccountsInfo(keys.map((key) => new PublicKey(key)))
      .then((infos) => {
        infos.forEach((info, i) => {
          if (info) seen(keys[i]!, info.data);
        });
      })
      .catch(() => undefined);
    return () => {
      live = false;
      for (const id of ids) void connection.removeAccountChangeListener(id).catch(() => undefined);
    };
  }, [connection, watched, queryClient]);
  return followed;
}

/**
 * Explains a failed action on `loan` by the chain: when the loan is no longer Ongoing there (the keeper or someone
 * else ended it first), the failure is the program's LoanNotOngoing with how it ended, who reads it and what the
 * collateral is, so the toast says it in one sentence (packages/protocol's error sentences), and the lists show the
 * ending at once. Otherwise the failure stands as it was.
 */
export async function explainLoanFailure(
  connection: Connection,
  loans: readonly Loan[],
  viewer: "lender" | "borrower",
  error: unknown,
): Promise<unknown> {
  const infos = await connection.getMultipleAccountsInfo(loans.map((loan) => new PublicKey(loan.pubkey)));
  for (const [i, loan] of loans.entries()) {
    const info = infos[i];
    const ending = info ? readLoanEnding(info.data) : null;
    if (ending === null) continue;
    recordLoanEnding(loan.pubkey, ending);
    return {
      code: PROGRAM_ERROR_CODE.LoanNotOngoing,
      name: "LoanNotOngoing",
      message: `the loan is ${ending.status}, not Ongoing`,
      params: {
        status: ending.closedBy ?? ending.status,
        viewer,
        collateral: loan.isDefi ? "tokens" : "NFT",
      },
    };
  }
  return error;
}
