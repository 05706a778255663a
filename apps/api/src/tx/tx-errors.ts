import { decodeLendingError, isSdkError } from "@cistern/sdk";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";
import { isInvalidAddressError } from "../errors/error-handler.ts";

/** A 400: the request is wrong (missing/invalid field, unknown pool, foreign owner ...). */
export function badRequest(message: string): ApiError {
  return new ApiError(ERROR_CODES.INVALID_INPUT, message);
}

/** A 422: the request is well formed but cannot be carried out now (no pool fits, chain refuses ...). */
export function unprocessable(message: string): ApiError {
  return new ApiError(ERROR_CODES.UNPROCESSABLE, message);
}

/** Turns sdk argument errors and invalid addresses into 400s; everything else passes through unchanged. */
export function toRequestError(error: unknown): unknown {
  if (isSdkError(error)) return badRequest(error.message);
  if (isInvalidAddressError(error))
    return badRequest(`Invalid address: ${(error as Error).message} (an address is base58 of 32 bytes)`);
  return error;
}

/** Human message of a failed simulation or transaction: the lending program error when there is one. */
export function describeChainFailure(err: unknown, logs: readonly string[], programId: string): string {
  const decoded =
    decodeLendingError(logs, { programAddress: programId as never }) ?? decodeLendingError({ err });
  if (decoded) return `${decoded.name} (${decoded.code}): ${decoded.message}`;
  const failed = logs.find((l) => / failed: /.test(l));
  if (failed) return failed.replace(/^Program \w+ /, "Program ");
  return `Transaction failed: ${typeof err === "string" ? err : JSON.stringify(err)}`;
}
