import { getErrorCodeName } from "@cistern/protocol";
import {
  isSolanaError,
  SOLANA_ERROR__ADDRESSES__INVALID_BASE58_ENCODED_ADDRESS,
  SOLANA_ERROR__ADDRESSES__INVALID_BYTE_LENGTH,
  SOLANA_ERROR__ADDRESSES__STRING_LENGTH_OUT_OF_RANGE,
} from "@solana/kit";
import type { FastifyError, FastifyInstance } from "fastify";
import { ADDRESS_FORMAT } from "../http/schemas.ts";
import { ApiError, ERROR_CODES } from "./api-error.ts";

/**
 * Body of every error answer: a stable numeric code, its name, a message safe to show and typed parameters
 * (strings; amounts in base units with the currency `mint`), so a client turns the code into its own sentence.
 */
export interface ErrorBody {
  code: number;
  name: string;
  message: string;
  params: Record<string, string>;
}

function body(code: number, name: string, message: string, params: Record<string, string> = {}): ErrorBody {
  return { code, name, message, params };
}

function apiCodeName(code: number): string {
  return Object.entries(ERROR_CODES).find(([, c]) => c === code)?.[0] ?? "ERROR";
}

/** An error carrying the rule-book's refusal (the program's code, name and params): see tx-errors offerRefused. */
function refusalOf(
  error: unknown,
): { code: number; name: string; params: Record<string, string> } | undefined {
  const refusal = (error as { refusal?: unknown } | null)?.refusal as
    | { code?: unknown; name?: unknown; params?: unknown }
    | undefined;
  if (refusal === undefined || typeof refusal.code !== "number" || typeof refusal.name !== "string")
    return undefined;
  return { code: refusal.code, name: refusal.name, params: (refusal.params ?? {}) as Record<string, string> };
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
    if (status >= 500)
      return { status, body: body(error.code, apiCodeName(error.code), publicMessage(status)) };
    const refusal = refusalOf(error);
    if (refusal !== undefined)
      return { status, body: body(refusal.code, refusal.name, error.message, refusal.params) };
    return { status, body: body(error.code, apiCodeName(error.code), error.message, error.params) };
  }
  if (isInvalidAddressError(error)) {
    const message = `Invalid address: ${(error as Error).message} (an address is base58 of 32 bytes)`;
    return { status: 400, body: body(ERROR_CODES.INVALID_INPUT, "INVALID_INPUT", message) };
  }
  if (isProtocolError(error)) {
    const name = getErrorCodeName(error.code) ?? "ERROR";
    const params = Object.fromEntries(
      Object.entries((error as { context?: Record<string, unknown> }).context ?? {}).map(([k, v]) => [
        k,
        String(v),
      ]),
    );
    return { status: protocolStatus(error.code), body: body(error.code, name, error.message, params) };
  }
  const fastifyError = error as Partial<FastifyError> | undefined;
  if (fastifyError?.validation !== undefined) {
    const context = fastifyError.validationContext ?? "request";
    const first = fastifyError.validation[0];
    const describe = (v: NonNullable<typeof first>) => {
      const path = `${context}${v.instancePath.replaceAll("/", ".")}`;
      if (v.keyword === "format" && v.params?.format === ADDRESS_FORMAT)
        return { field: path, text: `${path} is not a valid address (base58 of 32 bytes)` };
      if (v.keyword === "additionalProperties") {
        const extra = String(v.params?.additionalProperty ?? "");
        const what = context === "querystring" ? "query parameter" : "field";
        return { field: `${path}.${extra}`, text: `unknown ${what} '${extra}'` };
      }
      if (v.keyword === "required") {
        const missing = String(v.params?.missingProperty ?? "");
        return { field: `${path}.${missing}`, text: `${path} must have required property '${missing}'` };
      }
      return { field: path, text: `${path} ${v.message ?? "is invalid"}` };
    };
    const details = fastifyError.validation.map(describe);
    const params: Record<string, string> = first === undefined ? {} : { field: details[0]!.field };
    return {
      status: 400,
      body: body(ERROR_CODES.INVALID_INPUT, "INVALID_INPUT", details.map((d) => d.text).join(", "), params),
    };
  }
  const status = typeof fastifyError?.statusCode === "number" ? fastifyError.statusCode : 500;
  if (status >= 400 && status < 500) {
    // Fastify's own client errors (bad JSON, unsupported media type, body too large ...): their text is safe.
    const code = status === 404 ? ERROR_CODES.NOT_FOUND : ERROR_CODES.INVALID_INPUT;
    return {
      status,
      body: body(code, apiCodeName(code), fastifyError?.message ?? `Unknown error ${status}`),
    };
  }
  return { status: 500, body: body(ERROR_CODES.INTERNAL, "INTERNAL", publicMessage(500)) };
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
    void reply
      .status(404)
      .send(
        body(
          ERROR_CODES.NOT_FOUND,
          "NOT_FOUND",
          `Route ${request.method} ${request.url.split("?")[0]} not found`,
        ),
      );
  });
}
