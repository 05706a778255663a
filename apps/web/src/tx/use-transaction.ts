import {
  type ActionName,
  CisternError,
  describeErrorForUser,
  ERROR_CODES,
  getActionErrorToast,
  getErrorText,
  getExplorerTransactionUrl,
  getRefreshScopes,
  getTransactionToast,
  TRANSACTION_SUPPORT_TEXT,
  type TransactionAction,
  type TransactionMachineState,
  TransactionStep,
  transactionReducer,
} from "@cistern/protocol";
import { useConnection, useWallet } from "@solana/wallet-adapter-react";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { useAppContext } from "../app-context.ts";
import { refreshAgainAfterIndexing, refreshScopes } from "../data/refresh.ts";
import { formatMoney } from "../kit/format.ts";
import { getStoredReferrer } from "../referral/referral.ts";
import { getBuilderPriorityFeeOptions } from "../settings/priority-fee.ts";
import { settingsStore } from "../settings/settings-store.ts";
import { showToast, type ToastInput, type ToastLink, updateToast } from "../toasts/toast-store.ts";
import {
  type AnyTransaction,
  buildTransactions,
  deserializeTransactions,
  prepareForWallet,
  sendSignedTransactions,
  serializeTransactions,
} from "./transactions.ts";

/** One action run through the transaction flow. */
export interface TransactionRequest {
  action: ActionName;
  /** Builder route, e.g. "/bank/deposit". */
  path: string;
  payload: Record<string, unknown>;
  /** Repaying a token loan also refreshes assets. */
  isTokenLoan?: boolean;
  /** Called with the builder's metadata (e.g. the new pool's address) once the transaction is confirmed. */
  onConfirmed?(metadata: Record<string, unknown>): void;
  /**
   * Looks at why the action failed where the page knows more (e.g. the loan already ended on chain) and answers the
   * error to word instead (a coded error), or the same error.
   */
  explainFailure?(error: unknown): Promise<unknown>;
}

export interface UseTransactionResult {
  /** Runs build -> sign -> send -> refresh; resolves with the signature, or null when it failed. */
  run(request: TransactionRequest): Promise<string | null>;
  state: TransactionMachineState;
  busy: boolean;
}

/** The support line under a failure: the spec's sentence, linking the configured support URL when there is one. */
function supportHelp(text: string, supportUrl: string | null): { text: string; link?: ToastLink } {
  return supportUrl === null ? { text } : { text, link: { href: supportUrl, label: "Discord" } };
}

/**
 * The one transaction hook every action uses: builds via the API, deserializes, has the wallet sign
 * all, sends to the sender route of the kind, shows a toast per state and refreshes the action's
 * scopes after success.
 */
export function useTransaction(): UseTransactionResult {
  const { config, rpcUrl, analytics } = useAppContext();
  const { connection } = useConnection();
  const wallet = useWallet();
  const queryClient = useQueryClient();
  const [state, setState] = useState<TransactionMachineState>(null);
  const stateRef = useRef<TransactionMachineState>(null);
  const busyRef = useRef(false);
  const [busy, setBusy] = useState(false);

  const run = useCallback(
    async (request: TransactionRequest): Promise<string | null> => {
      if (busyRef.current) return null;
      busyRef.current = true;
      setBusy(true);
      const settings = settingsStore.get();
      const explorerTarget = { cluster: config.cluster, customRpcUrl: rpcUrl };
      let toastId: string | null = null;
      /** Stack (or text) of the failure, for the failed-transaction toast's "Copy full error". */
      let fullError: string | null = null;

      const dispatch = (action: TransactionAction) => {
        const next = transactionReducer(stateRef.current, action);
        stateRef.current = next;
        setState(next);
        const toast = getTransactionToast(next);
        if (toast === null) return;
        const input: ToastInput = {
          kind: toast.type,
          title: toast.title,
          ...(toast.description ? { description: toast.description } : {}),
          ...(toast.durationMs ? { durationMs: toast.durationMs } : {}),
          ...(toast.signature
            ? {
                link: {
                  href: getExplorerTransactionUrl(settings.explorer, toast.signature, explorerTarget),
                  label: "View on explorer",
                },
              }
            : {}),
        };
        if (toast.type === "error") {
          input.help = supportHelp(toast.description ?? "", config.supportUrl);
          delete input.description;
          input.copyText = fullError ?? toast.detail ?? "";
        }
        if (toastId === null) toastId = showToast(input);
        else updateToast(toastId, input);
      };

      try {
        dispatch({ type: "prepare", action: request.action });
        const { publicKey, signAllTransactions, signTransaction } = wallet;
        const adapter = wallet.wallet?.adapter;
        if (!publicKey || !adapter) throw new Error("Wallet not connected");
        // A compressed NFT's proof can go stale between build and landing (another leaf of its tree changed):
        // the transaction is built again with a fresh proof and signed once more, once.
        const attempt = async () => {
          const built = await buildTransactions(config.apiUrl, request.path, request.payload, {
            referrer: getStoredReferrer(),
            options: { ...getBuilderPriorityFeeOptions(settings.priorityFee) },
          });
          const transactions = deserializeTransactions(built.transactions);
          await prepareForWallet(
            transactions,
            { publicKey, supportedTransactionVersions: adapter.supportedTransactionVersions },
            connection,
          );
          dispatch({ type: "requestSignature" });
          let signed: AnyTransaction[];
          if (signAllTransactions) signed = await signAllTransactions(transactions);
          else if (signTransaction) signed = [await signTransaction(transactions[0]!)];
          else throw new Error("Wallet does not support signing transactions");
          dispatch({ type: "send" });
          const signature = await sendSignedTransactions(
            config.apiUrl,
            built.kind,
            serializeTransactions(signed),
            built.lastValidBlockHeight,
            (sig) => dispatch({ type: "send", signature: sig }),
          );
          return { built, signature };
        };
        const { built, signature } = await attempt().catch((error: unknown) => {
          if (!(error instanceof CisternError) || error.code !== ERROR_CODES.TRANSACTION_SEND_STALE_PROOF)
            throw error;
          stateRef.current = transactionReducer(stateRef.current, { type: "clear" });
          dispatch({ type: "prepare", action: request.action });
          return attempt();
        });
        dispatch({ type: "confirm", signature });
        request.onConfirmed?.(built.metadata ?? {});
        analytics.action("transaction_confirmed", { action: request.action, kind: built.kind });
        dispatch({ type: "clear" });
        await refreshScopes(
          queryClient,
          getRefreshScopes(request.action, { isTokenLoan: request.isTokenLoan }),
        );
        return signature;
      } catch (error) {
        fullError = error instanceof Error && error.stack ? error.stack : getErrorText(error);
        // One toast per failure: the progress toast becomes the failure, worded from the error's code.
        const explained = request.explainFailure
          ? await request.explainFailure(error).catch(() => error)
          : error;
        const sentence = describeErrorForUser(explained, { amount: (a, mint) => formatMoney(a, mint) });
        const sent = stateRef.current?.step === TransactionStep.SENDING;
        if (sent) {
          dispatch({ type: "fail", message: sentence });
        } else {
          const failed: ToastInput = {
            kind: "error",
            title: getActionErrorToast(request.action, new Error(sentence)).title,
            help: supportHelp(TRANSACTION_SUPPORT_TEXT, config.supportUrl),
            copyText: fullError,
          };
          if (toastId === null) toastId = showToast(failed);
          else updateToast(toastId, failed);
        }
        analytics.action("transaction_failed", { action: request.action });
        stateRef.current = transactionReducer(stateRef.current, { type: "clear" });
        setState(stateRef.current);
        // What made it fail (a pool emptied, a loan closed) is on the lists the action touches and on the pool
        // lists: refresh them now and again once the indexer has seen the change, so the same failing offer is
        // not shown again.
        const scopes = [
          ...new Set([...getRefreshScopes(request.action, { isTokenLoan: request.isTokenLoan }), "pool"]),
        ];
        await refreshScopes(queryClient, scopes).catch(() => undefined);
        refreshAgainAfterIndexing(queryClient, scopes);
        return null;
      } finally {
        busyRef.current = false;
        setBusy(false);
      }
    },
    [config, rpcUrl, analytics, connection, wallet, queryClient],
  );

  return { run, state, busy };
}
