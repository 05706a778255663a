import { CodedError, getCodeName } from "@cistern/protocol";

/**
 * Stable numeric codes of errors raised by the sdk itself, range 10000-10999 (protocol's ERROR_CODE_RANGES;
 * the program's own errors are protocol's PROGRAM_ERRORS).
 * Never reuse or reorder a code.
 */
export const SDK_ERROR = {
  ACCOUNT_DATA_TOO_SHORT: 10000,
  UNKNOWN_ACCOUNT_DISCRIMINATOR: 10001,
  INVALID_ARGUMENT: 10002,
  UNKNOWN_INSTRUCTION: 10003,
  DEPLOY_PROGRAM_ACCOUNT_MISMATCH: 10010,
  DEPLOY_AUTHORITY_MISMATCH: 10011,
  DEPLOY_EMPTY_PROGRAM: 10012,
  DEPLOY_VERIFY_FAILED: 10013,
  DEPLOY_FAILED: 10014,
  INVALID_KEYPAIR_FILE: 10020,
} as const;

/** One of the sdk's numeric error codes. */
export type SdkErrorCode = (typeof SDK_ERROR)[keyof typeof SDK_ERROR];

/** The sdk's errors: the one error type (protocol's CodedError) with the sdk's code table. */
export class SdkError extends CodedError {
  declare readonly code: SdkErrorCode;
  constructor(code: SdkErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, getCodeName(SDK_ERROR, code), message, options);
    this.name = "SdkError";
  }
}

/** Type guard for {@link SdkError}, optionally with a given code. */
export function isSdkError(error: unknown, code?: SdkErrorCode): error is SdkError {
  return error instanceof SdkError && (code === undefined || error.code === code);
}
