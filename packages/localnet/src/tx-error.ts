import * as internal from "litesvm/dist/internal";

/** A TransactionError in agave's JSON shape ("BlockhashNotFound", {InstructionError:[0,{Custom:1}]}, ...). */
export type TransactionErrorJson = string | Record<string, unknown>;

function reverse(e: unknown): Record<number, string> {
  const out: Record<number, string> = {};
  for (const [k, v] of Object.entries(e as Record<string, unknown>)) if (typeof v === "number") out[v] = k;
  return out;
}
const TX_ERR = reverse((internal as unknown as Record<string, unknown>).TransactionErrorFieldless);
const IX_ERR = reverse((internal as unknown as Record<string, unknown>).InstructionErrorFieldless);

/** Numeric codes of the fieldless transaction errors the server reacts to. */
export const TX_ERROR_CODE = { ALREADY_PROCESSED: 6, BLOCKHASH_NOT_FOUND: 7, SIGNATURE_FAILURE: 11 } as const;

/** Maps a LiteSVM failure to agave's JSON TransactionError. */
export function toTransactionErrorJson(failed: internal.FailedTransactionMetadata): TransactionErrorJson {
  const e = failed.err();
  if (typeof e === "number") return TX_ERR[e] ?? `TransactionError${e}`;
  if (e instanceof internal.TransactionErrorInstructionError) {
    const ie = e.err();
    const inner =
      typeof ie === "number"
        ? (IX_ERR[ie] ?? `InstructionError${ie}`)
        : ie instanceof internal.InstructionErrorCustom
          ? { Custom: ie.code }
          : { BorshIoError: (ie as internal.InstructionErrorBorshIo).msg };
    return { InstructionError: [e.index, inner] };
  }
  if (e instanceof internal.TransactionErrorDuplicateInstruction) return { DuplicateInstruction: e.index };
  if (e instanceof internal.TransactionErrorInsufficientFundsForRent)
    return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  return {
    ProgramExecutionTemporarilyRestricted: {
      account_index: (e as internal.TransactionErrorProgramExecutionTemporarilyRestricted).accountIndex,
    },
  };
}

/** The fieldless code of a failure, or null when the error carries fields. */
export function fieldlessCode(failed: internal.FailedTransactionMetadata): number | null {
  const e = failed.err();
  return typeof e === "number" ? e : null;
}

/** Human text for a preflight failure message, close to agave's Display impl. */
export function describeTransactionError(err: TransactionErrorJson): string {
  if (typeof err === "string") {
    const words: Record<string, string> = {
      BlockhashNotFound: "Blockhash not found",
      AlreadyProcessed: "This transaction has already been processed",
      AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
      InsufficientFundsForFee: "Insufficient funds for fee",
      SignatureFailure: "Transaction did not pass signature verification",
    };
    return words[err] ?? err;
  }
  const ie = (err as { InstructionError?: [number, unknown] }).InstructionError;
  if (ie) {
    const detail = ie[1];
    const text =
      typeof detail === "string"
        ? detail
        : (detail as { Custom?: number }).Custom !== undefined
          ? `custom program error: 0x${(detail as { Custom: number }).Custom.toString(16)}`
          : JSON.stringify(detail);
    return `Error processing Instruction ${ie[0]}: ${text}`;
  }
  return JSON.stringify(err);
}
