import { CodedError, getCodeName } from "@cistern/protocol";

/**
 * Stable numeric error codes the API answers with. Client-facing codes reuse @cistern/protocol's
 * numbers (4400/4404/4422 HTTP, 7000 public key, 7002 image URL) so the web app switches on one
 * catalogue; server-only failures use 11000-11099 (protocol owns 1xxx-9xxx, the sdk 10000-10099). Never reuse or reorder.
 */
export const ERROR_CODES = {
  /** Request input failed validation (400); same number as protocol HTTP_BAD_REQUEST. */
  INVALID_INPUT: 4400,
  /** A route or resource does not exist (404); protocol HTTP_NOT_FOUND. */
  NOT_FOUND: 4404,
  /** Well-formed but cannot be processed (422); protocol HTTP_UNPROCESSABLE_ENTITY. */
  UNPROCESSABLE: 4422,
  /** A public key parameter is not a valid address (400); protocol INVALID_PUBLIC_KEY. */
  INVALID_PUBKEY: 7000,
  /** Image URL rejected by the image check (422); protocol IMAGE_URL_REJECTED. */
  IMAGE_REJECTED: 7002,
  /** An upstream service (RPC, price API, asset API) failed (502). */
  UPSTREAM_FAILED: 11000,
  /** Configuration is invalid (process start). */
  CONFIG_INVALID: 11001,
  /** Database migration failed (process start). */
  MIGRATION_FAILED: 11002,
  /** A wallet signature does not verify, or the signed message is not in the issued form (400). */
  SIGNATURE_INVALID: 11003,
  /** A signed message the API did not issue for this wallet and purpose, or that expired (400). */
  SIGNED_MESSAGE_REFUSED: 11004,
  /** A signed message that was already accepted once (409: sign a new one). */
  SIGNED_MESSAGE_REPLAYED: 11005,
  /** Jito mode was asked for on a cluster without Jito's tip accounts (422: nothing was built). */
  JITO_UNAVAILABLE: 11006,
  /** Too many requests from one client to a rate-limited route (429, with Retry-After). */
  RATE_LIMITED: 11007,
  /** One item's transaction is over the 1,232-byte packet, with the protocol's lookup table (422); protocol's code. */
  TRANSACTION_TOO_LARGE: 5007,
  /** No fresh, tight price for the collateral or the currency: no quote, no co-signature (422); protocol's code. */
  NO_RELIABLE_PRICE: 2010,
  /** Unexpected internal failure (500, message never leaks internals). */
  INTERNAL: 11099,
} as const;

export type ApiErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

const HTTP_STATUS: Record<ApiErrorCode, number> = {
  2010: 422,
  4400: 400,
  4404: 404,
  4422: 422,
  5007: 422,
  7000: 400,
  7002: 422,
  11000: 502,
  11001: 500,
  11002: 500,
  11003: 400,
  11004: 400,
  11005: 409,
  11006: 422,
  11007: 429,
  11099: 500,
};

/**
 * The API's errors: the one error type (protocol's CodedError) with the API's code table; the message is
 * safe to show to clients, `params` feed the client's own sentence.
 */
export class ApiError extends CodedError {
  declare readonly code: ApiErrorCode;
  constructor(
    code: ApiErrorCode,
    message: string,
    options?: { cause?: unknown; params?: Record<string, string> },
  ) {
    super(code, getCodeName(ERROR_CODES, code), message, options);
    this.name = "ApiError";
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
