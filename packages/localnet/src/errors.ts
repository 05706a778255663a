/**
 * The one error class of the localnet server. Codes are the JSON-RPC codes real Solana nodes use,
 * so a client sees the same numbers here as against a validator.
 */
export const RPC_ERROR = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Preflight simulation failed (data carries err and logs). */
  SEND_TRANSACTION_PREFLIGHT_FAILURE: -32002,
  TRANSACTION_SIGNATURE_VERIFICATION_FAILURE: -32003,
  BLOCK_NOT_AVAILABLE: -32004,
  TRANSACTION_HISTORY_NOT_AVAILABLE: -32011,
  UNSUPPORTED_TRANSACTION_VERSION: -32015,
  MIN_CONTEXT_SLOT_NOT_REACHED: -32016,
  /** DAS: the asset (or its proof) is not known ("Asset Not Found"), as the DAS API servers answer. */
  DAS_NOT_FOUND: -32000,
} as const;

/** One of the {@link RPC_ERROR} codes. */
export type RpcErrorCode = (typeof RPC_ERROR)[keyof typeof RPC_ERROR];

/** A JSON-RPC error answered to the client as `{ code, message, data? }`. */
export class LocalnetRpcError extends Error {
  readonly code: RpcErrorCode;
  readonly data: unknown;
  constructor(code: RpcErrorCode, message: string, data?: unknown) {
    super(message);
    this.name = "LocalnetRpcError";
    this.code = code;
    this.data = data;
  }
}

/** Type guard for {@link LocalnetRpcError}. */
export function isLocalnetRpcError(e: unknown): e is LocalnetRpcError {
  return e instanceof LocalnetRpcError;
}

/** Shorthand for an invalid-params error (-32602). */
export function invalidParams(message: string): LocalnetRpcError {
  return new LocalnetRpcError(RPC_ERROR.INVALID_PARAMS, message);
}
