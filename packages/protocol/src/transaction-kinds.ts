/**
 * Transaction kinds returned by the builder and how the sender handles them.
 */
import { CisternError, ERROR_CODES } from "./errors.ts";
import { isRecord, readRecord, readSafeInteger, readString } from "./server-fields.ts";

/** Kinds of built transactions. Co-signed kinds are co-signed by the server's oracle key. */
export const TransactionKind = {
  Normal: "Normal",
  Bundle: "Bundle",
  NormalCoSigned: "NormalCoSigned",
  BundleCoSigned: "BundleCoSigned",
} as const;
/** One of {@link TransactionKind}. */
export type TransactionKind = (typeof TransactionKind)[keyof typeof TransactionKind];

/** Sender endpoint (POST) for each kind. */
export const SENDER_PATH_BY_KIND: Readonly<Record<TransactionKind, string>> = Object.freeze({
  Normal: "/send-transaction",
  Bundle: "/send-bundle",
  NormalCoSigned: "/send-cos-transaction",
  BundleCoSigned: "/send-cos-bundle",
});

/** True when `value` is a transaction kind. */
export function isTransactionKind(value: unknown): value is TransactionKind {
  return typeof value === "string" && Object.hasOwn(TransactionKind, value);
}

/** The kind, or CisternError UNKNOWN_TRANSACTION_KIND (5001) 'Unknown transaction kind'. */
export function parseTransactionKind(value: unknown): TransactionKind {
  if (!isTransactionKind(value)) throw new CisternError(ERROR_CODES.UNKNOWN_TRANSACTION_KIND);
  return value;
}

/** True for kinds sent as one bundle (all transactions land together or not at all). */
export function isBundleKind(kind: TransactionKind): boolean {
  return kind === TransactionKind.Bundle || kind === TransactionKind.BundleCoSigned;
}

/** True for kinds the server co-signs before sending. */
export function isCoSignedKind(kind: TransactionKind): boolean {
  return kind === TransactionKind.NormalCoSigned || kind === TransactionKind.BundleCoSigned;
}

/** Throws CisternError NO_TRANSACTIONS_PROVIDED (5000) for an empty (or missing) list. */
export function assertTransactionsProvided<T>(
  transactions: readonly T[] | null | undefined,
): asserts transactions is readonly [T, ...T[]] {
  if (!transactions || transactions.length === 0)
    throw new CisternError(ERROR_CODES.NO_TRANSACTIONS_PROVIDED);
}

/** A sender response: a signature (`result`) or an error. */
export interface SendResponse {
  result?: string | null;
  error?: unknown;
}

/**
 * The signature of a sender response. A response with an error throws that error (as a
 * CisternError TRANSACTION_SEND_FAILED 5004 carrying its text, or the block-height error 5003);
 * a response without a result throws NO_SIGNATURE_CONFIRMATION (5002) 'No signature confirmation'.
 */
export function getSignatureFromSendResponse(response: SendResponse | null | undefined): string {
  if (response?.error !== undefined && response.error !== null) {
    const error = response.error;
    if (error instanceof CisternError) throw error;
    const message =
      error instanceof Error
        ? error.message
        : typeof error === "string"
          ? error
          : typeof error === "object" &&
              error !== null &&
              "message" in error &&
              typeof error.message === "string"
            ? error.message
            : JSON.stringify(error);
    // a compressed NFT's proof gone stale keeps its code (the client builds again, once), and so does a pNFT's rule
    // set refusing the loan (its own sentence)
    if (
      typeof error === "object" &&
      "code" in error &&
      (error.code === ERROR_CODES.TRANSACTION_SEND_STALE_PROOF ||
        error.code === ERROR_CODES.TRANSACTION_SEND_RULE_SET_REFUSED)
    )
      throw new CisternError(error.code, undefined, { cause: error });
    if (message.includes("block height exceeded")) {
      throw new CisternError(ERROR_CODES.BLOCK_HEIGHT_EXCEEDED, undefined, { cause: error });
    }
    throw new CisternError(ERROR_CODES.TRANSACTION_SEND_FAILED, { message }, { cause: error });
  }
  if (typeof response?.result !== "string" || response.result.length === 0) {
    throw new CisternError(ERROR_CODES.NO_SIGNATURE_CONFIRMATION);
  }
  return response.result;
}

/** The transaction builder's answer. */
export interface TransactionBuildResponse {
  /** Serialized transactions, base64. */
  transactions: [string, ...string[]];
  kind: TransactionKind;
  lastValidBlockHeight: number;
  metadata: { dynamicSlippageReport?: unknown } & Record<string, unknown>;
}

/**
 * Validate a builder response: a non-empty list of base64 strings ('No transactions provided'
 * otherwise), a known kind ('Unknown transaction kind'), a block height.
 */
export function parseTransactionBuildResponse(input: unknown): TransactionBuildResponse {
  const raw = readRecord("transactionBuild", "response", input);
  const list = Array.isArray(raw.transactions) ? raw.transactions : undefined;
  assertTransactionsProvided(list);
  const transactions = list.map((tx, i) => readString("transactionBuild", `transactions[${i}]`, tx)) as [
    string,
    ...string[],
  ];
  return {
    transactions,
    kind: parseTransactionKind(raw.kind),
    lastValidBlockHeight: readSafeInteger(
      "transactionBuild",
      "lastValidBlockHeight",
      raw.lastValidBlockHeight,
    ),
    metadata: isRecord(raw.metadata) ? raw.metadata : {},
  };
}
