/**
 * HTTP error mapping (spec section 8): 400, 404 and 422 become an error carrying the server's
 * message (a list joined with commas) or error text, else 'Unknown error {status}'.
 */
import { CisternError, ERROR_CODES } from "./errors.ts";
import { isRecord } from "./server-fields.ts";

const CODE_BY_STATUS = {
  400: ERROR_CODES.HTTP_BAD_REQUEST,
  404: ERROR_CODES.HTTP_NOT_FOUND,
  422: ERROR_CODES.HTTP_UNPROCESSABLE_ENTITY,
} as const;

/** Statuses with a mapped message. */
export type MappedHttpStatus = keyof typeof CODE_BY_STATUS;

/** True for 400, 404 and 422. */
export function isMappedHttpStatus(status: number): status is MappedHttpStatus {
  return status === 400 || status === 404 || status === 422;
}

/**
 * The user-facing message of an error body: `message` (a list is joined with ", "), else `error`,
 * else a plain-text body, else 'Unknown error {status}'.
 */
export function getHttpErrorMessage(status: number, body: unknown): string {
  if (isRecord(body)) {
    const { message, error } = body;
    if (Array.isArray(message) && message.length > 0) return message.map(String).join(", ");
    if (typeof message === "string" && message.length > 0) return message;
    if (typeof error === "string" && error.length > 0) return error;
  } else if (typeof body === "string" && body.trim().length > 0) {
    return body.trim();
  }
  return `Unknown error ${status}`;
}

/**
 * Error for a failed HTTP response: HTTP_BAD_REQUEST (4400), HTTP_NOT_FOUND (4404),
 * HTTP_UNPROCESSABLE_ENTITY (4422) with the server's message; other statuses give
 * HTTP_UNEXPECTED_STATUS (4001) 'Request failed with status {status}'.
 */
export function createHttpError(status: number, body: unknown): CisternError {
  // The server's coded body `{code, name, message, params}` stays the cause, so its code reaches the user.
  const cause = isRecord(body) && typeof body.code === "number" ? { cause: body } : undefined;
  if (isMappedHttpStatus(status)) {
    return new CisternError(CODE_BY_STATUS[status], { message: getHttpErrorMessage(status, body) }, cause);
  }
  return new CisternError(ERROR_CODES.HTTP_UNEXPECTED_STATUS, { status }, cause);
}
