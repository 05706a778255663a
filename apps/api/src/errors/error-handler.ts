import {
  isSolanaError,
  SOLANA_ERROR__ADDRESSES__INVALID_BASE58_ENCODED_ADDRESS,
  SOLANA_ERROR__ADDRESSES__INVALID_BYTE_LENGTH,
  SOLANA_ERROR__ADDRESSES__STRING_LENGTH_OUT_OF_RANGE,
} from "@solana/kit";
import type { FastifyError, FastifyInstance } from "fastify";
import { ADDRESS_FORMAT } from "../http/schemas.ts";
import { ApiError, ERROR_CODES } from "./api-error.ts";

/** Body of every error answer: a stable code and a message safe to show. */
export interface ErrorBody {
  code: number;
  message: string;
}

/** Protocol codes that mean "the request was wrong" (400) rather than "cannot process" (422). */
function protocolStatus(code: number): number {
  if (code === ERROR_CODES.NOT_FOUND) return 404;
  if (code === ERROR_CODES.UNPROCESSABLE || code === ERROR_CODES.IMAGE_REJECTED) return 422;
  if (code >= 1000 && code < 4000) return 400;
  if (code >= 7000 && code < 8000) return 400;
  return 422;
}

/** A @cistern/protocol CisternError (checked structurally so any copy of the class is recognised). */
function isProtocolError(error: unknown): error is { code: number; message: string } {
  return (
    error instanceof Error &&
    error.name === "CisternError" &&
    typeof (error as { code?: unknown }).code === "number"
  );
}

/** @solana/kit address errors: a string that is not base58 of 32 bytes reached address(). */
const INVALID_ADDRESS_CODES: ReadonlySet<number> = new Set([
  SOLANA_ERROR__ADDRESSES__INVALID_BYTE_LENGTH,
  SOLANA_ERROR__ADDRESSES__STRING_LENGTH_OUT_OF_RANGE,
  SOLANA_ERROR__ADDRESSES__INVALID_BASE58_ENCODED_ADDRESS,
]);

/** Whether `error` is @solana/kit's "not a valid address" error (a client mistake, never a 500). */
export function isInvalidAddressError(error: unknown): boolean {
  return isSolanaError(error) && INVALID_ADDRESS_CODES.has(error.context.__code);
}

/** Maps any thrown value to an HTTP status and an ErrorBody; 5xx bodies never carry internals. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof ApiError) {
    const status = error.statusCode;
    return {
      status,
      body: { code: error.code, message: status >= 500 ? publicMessage(status) : error.message },
    };
  }
  if (isInvalidAddressError(error)) {
    return {
      status: 400,
      body: {
        code: ERROR_CODES.INVALID_INPUT,
        message: `Invalid address: ${(error as Error).message} (an address is base58 of 32 bytes)`,
      },
    };
  }
  if (isProtocolError(error)) {
    return { status: protocolStatus(error.code), body: { code: error.code, message: error.message } };
  }
  const fastifyError = error as Partial<FastifyError> | undefined;
  if (fastifyError?.validation !== undefined) {
    const context = fastifyError.validationContext ?? "request";
    const details = fastifyError.validation
      .map((v) => {
        const path = `${context}${v.instancePath.replaceAll("/", ".")}`;
        if (v.keyword === "format" && v.params?.format === ADDRESS_FORMAT)
          return `${path} is not a valid address (base58 of 32 bytes)`;
        return `${path} ${v.message ?? "is invalid"}`;
      })
      .join(", ");
    return { status: 400, body: { code: ERROR_CODES.INVALID_INPUT, message: details } };
  }
  const status = typeof fastifyError?.statusCode === "number" ? fastifyError.statusCode : 500;
  if (status >= 400 && status < 500) {
    // Fastify's own client errors (bad JSON, unsupported media type, body too large ...): their text is safe.
    const code = status === 404 ? ERROR_CODES.NOT_FOUND : ERROR_CODES.INVALID_INPUT;
    return { status, body: { code, message: fastifyError?.message ?? `Unknown error ${status}` } };
  }
  return { status: 500, body: { code: ERROR_CODES.INTERNAL, message: publicMessage(500) } };
}

function publicMessage(status: number): string {
  return status === 502 ? "Upstream service unavailable" : "Internal server error";
}

/** Installs the one error handler and the not-found handler of the API. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toErrorResponse(error);
    if (status >= 500) request.log.error({ err: error }, "request failed");
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({
      code: ERROR_CODES.NOT_FOUND,
      message: `Route ${request.method} ${request.url.split("?")[0]} not found`,
    });
  });
}
