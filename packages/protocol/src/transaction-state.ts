/**
 * Transaction progress as a state machine: a discriminated union of actions and one pure reducer.
 *
 * PREPARING(0) -> WAITING_FOR_SIGNATURE(1) -> SENDING(2) -> CONFIRMED(3); ERROR(4) from any step
 * (including before PREPARING, when an action fails while validating its input). On CONFIRMED or
 * ERROR the UI shows the toast and then dispatches `clear`, returning to idle (`null`).
 */
import type { ActionName } from "./actions.ts";
import { TRANSACTION_TOAST_DURATION_MS } from "./constants.ts";
import { ERROR_CODES, ERROR_MESSAGES } from "./errors.ts";

/** Transaction steps with the spec's numbers. */
export const TransactionStep = {
  PREPARING: 0,
  WAITING_FOR_SIGNATURE: 1,
  SENDING: 2,
  CONFIRMED: 3,
  ERROR: 4,
} as const;
/** One of the {@link TransactionStep} numbers. */
export type TransactionStep = (typeof TransactionStep)[keyof typeof TransactionStep];

/** True for CONFIRMED and ERROR: the UI shows the toast, then dispatches `clear`. */
export function isFinalTransactionStep(step: number): boolean {
  return step === TransactionStep.CONFIRMED || step === TransactionStep.ERROR;
}

/** A transaction in progress (or just finished). Idle is `null`. */
export interface TransactionState {
  step: TransactionStep;
  /** The user action this transaction belongs to, when known. */
  action?: ActionName;
  /** Transaction signature once known (explorer links). */
  signature?: string;
  /** Error text when step is ERROR. */
  errorMessage?: string;
}

/** Reducer input: idle is null. */
export type TransactionMachineState = TransactionState | null;

/** Everything that moves a transaction along. */
export type TransactionAction =
  | { type: "prepare"; action?: ActionName }
  | { type: "requestSignature" }
  | { type: "send"; signature?: string }
  | { type: "confirm"; signature: string }
  | { type: "fail"; message: string }
  | { type: "clear" };

const ACTIVE: ReadonlySet<TransactionStep> = new Set([
  TransactionStep.PREPARING,
  TransactionStep.WAITING_FOR_SIGNATURE,
  TransactionStep.SENDING,
]);

/** True when `action` is a legal move from `state` (illegal moves leave the state unchanged). */
export function canApplyTransactionAction(
  state: TransactionMachineState,
  action: TransactionAction,
): boolean {
  const step = state?.step;
  switch (action.type) {
    case "prepare":
      return step === undefined || step === TransactionStep.CONFIRMED || step === TransactionStep.ERROR;
    case "requestSignature":
      return step === TransactionStep.PREPARING;
    case "send":
      return step === TransactionStep.WAITING_FOR_SIGNATURE || step === TransactionStep.SENDING;
    case "confirm":
      return step === TransactionStep.SENDING;
    case "fail":
      return step === undefined || ACTIVE.has(step);
    case "clear":
      return true;
  }
}

/**
 * The one pure reducer of transaction progress. Illegal moves return the same state object
 * (so React skips a render) instead of throwing inside the UI.
 */
export function transactionReducer(
  state: TransactionMachineState,
  action: TransactionAction,
): TransactionMachineState {
  if (!canApplyTransactionAction(state, action)) return state;
  switch (action.type) {
    case "prepare":
      return action.action === undefined
        ? { step: TransactionStep.PREPARING }
        : { step: TransactionStep.PREPARING, action: action.action };
    case "requestSignature":
      return { ...state, step: TransactionStep.WAITING_FOR_SIGNATURE };
    case "send":
      return action.signature === undefined
        ? { ...state, step: TransactionStep.SENDING }
        : { ...state, step: TransactionStep.SENDING, signature: action.signature };
    case "confirm":
      return { ...state, step: TransactionStep.CONFIRMED, signature: action.signature };
    case "fail":
      return { ...state, step: TransactionStep.ERROR, errorMessage: action.message };
    case "clear":
      return null;
  }
}

/** What the toaster shows for a transaction state. */
export interface TransactionToast {
  type: "loading" | "success" | "error" | "info";
  title: string;
  description?: string;
  /** Signature for an explorer link (SENDING once known, CONFIRMED). */
  signature?: string;
  /** How long the toast stays; loading toasts last 65 s. */
  durationMs?: number;
  /** Full error text for the 'Copy full error' button. */
  detail?: string;
}

/** Support line under a failed-transaction toast (with a Discord link). */
export const TRANSACTION_SUPPORT_TEXT = "Please reach out to us on Discord if you need assistance.";

/**
 * The message a failed transaction shows: the block-height text when the error says
 * 'block height exceeded', otherwise the error text itself.
 */
export function getTransactionErrorDisplayMessage(message: string): string {
  return message.includes("block height exceeded")
    ? ERROR_MESSAGES[ERROR_CODES.BLOCK_HEIGHT_EXCEEDED]
    : message;
}

/**
 * Toast for a transaction state (spec section 4). Unknown steps give the info toast
 * 'Transaction Info'. Idle (null) shows nothing.
 */
export function getTransactionToast(
  state: TransactionMachineState | { step: number; signature?: string; errorMessage?: string },
): TransactionToast | null {
  if (state === null) return null;
  const withSignature = state.signature === undefined ? {} : { signature: state.signature };
  switch (state.step) {
    case TransactionStep.PREPARING:
      return {
        type: "loading",
        title: "Preparing Transaction",
        description: "Transaction is being prepared",
        durationMs: TRANSACTION_TOAST_DURATION_MS,
      };
    case TransactionStep.WAITING_FOR_SIGNATURE:
      return {
        type: "loading",
        title: "Waiting for signature approve",
        description: "Please approve the transaction in your wallet",
        durationMs: TRANSACTION_TOAST_DURATION_MS,
      };
    case TransactionStep.SENDING:
      return {
        type: "loading",
        title: "Processing Transaction",
        ...withSignature,
        durationMs: TRANSACTION_TOAST_DURATION_MS,
      };
    case TransactionStep.CONFIRMED:
      return { type: "success", title: "Transaction Success", ...withSignature };
    case TransactionStep.ERROR: {
      const raw = state.errorMessage ?? "";
      return {
        type: "error",
        title: `Transaction Failed (${getTransactionErrorDisplayMessage(raw)})`,
        description: TRANSACTION_SUPPORT_TEXT,
        detail: raw,
      };
    }
    default:
      return { type: "info", title: "Transaction Info" };
  }
}
