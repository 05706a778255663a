import { getRefreshScopes } from "@cistern/protocol";
import { useCallback } from "react";
import { type TransactionRequest, type UseTransactionResult, useTransaction } from "../tx/use-transaction.ts";
import { useRefreshAfterIndexing } from "./page-kit.tsx";

/**
 * The shell's transaction hook, plus a second and third refresh of the action's scopes once the
 * API's indexer has had time to see the confirmed transaction.
 */
export function usePageTransaction(): UseTransactionResult {
  const tx = useTransaction();
  const refreshLater = useRefreshAfterIndexing();
  const { run: runTransaction } = tx;
  const run = useCallback(
    async (request: TransactionRequest) => {
      const signature = await runTransaction(request);
      if (signature !== null) {
        refreshLater([
          ...getRefreshScopes(request.action, { isTokenLoan: request.isTokenLoan }),
          "pool",
          "mypool",
          "loans",
          "stats",
        ]);
      }
      return signature;
    },
    [runTransaction, refreshLater],
  );
  return { ...tx, run };
}
