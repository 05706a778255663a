import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";
import { type JsonAnswer, postJson } from "../../http/post-json.ts";

/** A JSON-RPC error as the node sends it (data carries simulation logs for preflight failures). */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: { logs?: string[] | null; err?: unknown } & Record<string, unknown>;
}

/** Result or error of one JSON-RPC call; transport failures throw ApiError UPSTREAM_FAILED. */
export type JsonRpcOutcome<T> = { ok: true; result: T } | { ok: false; error: JsonRpcError };

let nextId = 1;

/**
 * Calls `method` on the node at `url` and returns the result or the node's error object (kept whole,
 * unlike the read side's client, so the sender can decode program errors from preflight logs).
 */
export async function callJsonRpc<T>(
  url: string,
  method: string,
  params: unknown[],
  timeoutMs = 30_000,
): Promise<JsonRpcOutcome<T>> {
  let answer: JsonAnswer;
  try {
    answer = await postJson(url, JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }), timeoutMs);
  } catch (cause) {
    throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `RPC ${method} unreachable`, { cause });
  }
  const body = answer.body as { result?: T; error?: JsonRpcError } | null;
  if (body?.error) return { ok: false, error: body.error };
  if (body === null || typeof body !== "object" || !("result" in body))
    throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `RPC ${method} answered ${answer.status}`);
  return { ok: true, result: body.result as T };
}

/** Like {@link callJsonRpc} but a node error becomes ApiError UPSTREAM_FAILED. */
export async function requireJsonRpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const outcome = await callJsonRpc<T>(url, method, params);
  if (!outcome.ok)
    throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `RPC ${method} failed: ${outcome.error.message}`);
  return outcome.result;
}
