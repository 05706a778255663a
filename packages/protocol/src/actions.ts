/**
 * User actions that end in a transaction, by the names the spec shows in error toasts.
 */
import { CisternError, ERROR_CODES, getErrorText } from "./errors.ts";

/**
 * Action names, verbatim from the spec's error catalogue, plus Cistern's own "Liquidate Loan" (the spec
 * lists no liquidation; a lender liquidates a loan unpaid past expiry + grace), "Swap" (the swap widget's
 * trade on the swap venue), "Buy NFT" (an outright purchase of a market listing), "Refinance Loan", the loan request
 * actions (post, cancel, fill) and "Upgrade Pool" (Migrate after a program upgrade).
 */
export const ACTION_NAMES = [
  "Close Pool",
  "Withdraw",
  "Add Liquidity",
  "Market Sell",
  "Market Sell NFT",
  "Take Mortgage",
  "Buy NFT",
  "Repay Loan",
  "Extend Loan",
  "Create Pool",
  "Update Pool",
  "Borrow Tokens",
  "Borrow NFT",
  "Margin Swap",
  "Multiple Repay",
  "Delegate Funds",
  "Withdraw Delegated Funds",
  "Liquidate Loan",
  "Swap",
  "Refinance Loan",
  "Post Loan Request",
  "Cancel Loan Request",
  "Fill Loan Request",
  "Upgrade Pool",
] as const;

/** One of {@link ACTION_NAMES}. */
export type ActionName = (typeof ACTION_NAMES)[number];

/** True when `value` is one of the action names. */
export function isActionName(value: unknown): value is ActionName {
  return typeof value === "string" && (ACTION_NAMES as readonly string[]).includes(value);
}

/** The error toast of a failed action: 'Error in {action}: {message}', with the stack as detail. */
export interface ActionErrorToast {
  type: "error";
  title: string;
  /** Full stack (or text) of the error, for the "Copy full error" button. */
  detail: string;
}

/**
 * Wrap a failure of `action` in a CisternError ACTION_FAILED (8000) whose message is
 * 'Error in {action}: {message}' and whose cause is the original error.
 */
export function createActionError(
  action: ActionName,
  error: unknown,
): CisternError<typeof ERROR_CODES.ACTION_FAILED> {
  return new CisternError(
    ERROR_CODES.ACTION_FAILED,
    { action, message: getErrorText(error) },
    { cause: error },
  );
}

/** The toast shown when `action` fails with `error`. */
export function getActionErrorToast(action: ActionName, error: unknown): ActionErrorToast {
  const wrapped = createActionError(action, error);
  const detail = error instanceof Error && error.stack ? error.stack : getErrorText(error);
  return { type: "error", title: wrapped.message, detail };
}
