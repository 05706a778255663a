import { CodedError, getCodeName } from "@cistern/protocol";

/**
 * Stable numeric codes of errors raised by @cistern/bootstrap, range 12000-12099 (protocol owns 1xxx-9xxx,
 * the sdk 10000-10099, the api 11000-11099). Never reuse or reorder a code.
 */
export const BOOTSTRAP_ERROR = {
  INVALID_OPTIONS: 12000,
  PROGRAM_FILE_MISSING: 12001,
  RPC_UNREACHABLE: 12002,
  INSUFFICIENT_FUNDS: 12003,
  LOCALNET_ADMIN_UNAVAILABLE: 12004,
  DEPLOY_FAILED: 12005,
  CONFIG_ADMIN_MISMATCH: 12006,
  DEMO_WORLD_MISSING: 12007,
  TRANSACTION_FAILED: 12008,
  CLUSTER_INFO_MISSING: 12009,
  CLUSTER_INFO_INVALID: 12010,
  KEY_FILE_INVALID: 12011,
  DEMO_ACCOUNT_MISMATCH: 12012,
  API_UNREACHABLE: 12013,
  POOLS_NOT_INDEXED: 12014,
  METADATA_REJECTED: 12015,
} as const;

/** One of the bootstrap's numeric error codes. */
export type BootstrapErrorCode = (typeof BOOTSTRAP_ERROR)[keyof typeof BOOTSTRAP_ERROR];

/** The bootstrap's errors: the one error type (protocol's CodedError) with the bootstrap's code table. */
export class BootstrapError extends CodedError {
  declare readonly code: BootstrapErrorCode;
  constructor(code: BootstrapErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, getCodeName(BOOTSTRAP_ERROR, code), message, options);
    this.name = "BootstrapError";
  }
}

/** Type guard for {@link BootstrapError}, optionally with a given code. */
export function isBootstrapError(error: unknown, code?: BootstrapErrorCode): error is BootstrapError {
  return error instanceof BootstrapError && (code === undefined || error.code === code);
}
