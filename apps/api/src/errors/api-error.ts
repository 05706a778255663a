/**
 * Stable numeric error codes of the API (range 7000-7999, reserved for apps/api).
 * Never reuse or reorder; add new codes at the end of their block.
 */
export const ERROR_CODES = {
  /** Request input failed validation (400). */
  INVALID_INPUT: 7000,
  /** A public key parameter is not a valid base58 address (400). */
  INVALID_PUBKEY: 7001,
  /** A route or resource does not exist (404). */
  NOT_FOUND: 7100,
  /** The request is well-formed but cannot be processed (422). */
  UNPROCESSABLE: 7200,
  /** Image URL rejected by the image check (422). */
  IMAGE_REJECTED: 7201,
  /** An upstream service (RPC, price API, asset API) failed (502). */
  UPSTREAM_FAILED: 7300,
  /** Configuration is invalid (process start). */
  CONFIG_INVALID: 7400,
  /** Database migration failed (process start). */
  MIGRATION_FAILED: 7401,
  /** Unexpected internal failure (500, message never leaks internals). */
  INTERNAL: 7900,
} as const;

export type ApiErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

const HTTP_STATUS: Record<ApiErrorCode, number> = {
  7000: 400,
  7001: 400,
  7100: 404,
  7200: 422,
  7201: 422,
  7300: 502,
  7400: 500,
  7401: 500,
  7900: 500,
};

/** The one error class of the API: a stable numeric code plus a message safe to show to clients. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  constructor(code: ApiErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ApiError";
    this.code = code;
  }
  /** HTTP status this error maps to. */
  get statusCode(): number {
    return HTTP_STATUS[this.code];
  }
}

/** Typed guard for ApiError, optionally of one code. */
export function isApiError(error: unknown, code?: ApiErrorCode): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}
