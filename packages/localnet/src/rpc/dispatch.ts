import { isLocalnetRpcError, RPC_ERROR } from "../errors.ts";
import { accountMethods } from "./account-methods.ts";
import { adminMethods } from "./admin-methods.ts";
import { blockMethods } from "./block-methods.ts";
import { clusterMethods } from "./cluster-methods.ts";
import type { RpcContext, RpcHandler } from "./context.ts";
import { dasMethods } from "./das-methods.ts";
import { tokenMethods } from "./token-methods.ts";
import { transactionMethods } from "./transaction-methods.ts";

/** Largest accepted batch (entries). */
export const MAX_BATCH_SIZE = 1000;

const PUBLIC_METHODS: Record<string, RpcHandler> = {
  ...clusterMethods,
  ...accountMethods,
  ...tokenMethods,
  ...transactionMethods,
  ...blockMethods,
  ...dasMethods,
};

const ALL_METHODS: Record<string, RpcHandler> = { ...PUBLIC_METHODS, ...adminMethods };

type Id = string | number | null;
interface Response {
  jsonrpc: "2.0";
  id: Id;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const errorResponse = (id: Id, code: number, message: string, data?: unknown): Response => ({
  jsonrpc: "2.0",
  id,
  error: data === undefined ? { code, message } : { code, message, data },
});

function validId(v: unknown): v is Id {
  return v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

function toError(id: Id, e: unknown): Response {
  if (isLocalnetRpcError(e)) return errorResponse(id, e.code, e.message, e.data ?? undefined);
  return errorResponse(
    id,
    RPC_ERROR.INTERNAL_ERROR,
    `Internal error: ${e instanceof Error ? e.message : String(e)}`,
  );
}

/** Handles one request object; resolves to a response, or null for a notification (no id). */
function handleOne(req: unknown, ctx: RpcContext): Response | null | Promise<Response | null> {
  if (!req || typeof req !== "object" || Array.isArray(req))
    return errorResponse(null, RPC_ERROR.INVALID_REQUEST, "Invalid request");
  const r = req as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id: Id = validId(r.id) ? r.id : null;
  if (r.jsonrpc !== "2.0" || typeof r.method !== "string" || (r.id !== undefined && !validId(r.id)))
    return errorResponse(id, RPC_ERROR.INVALID_REQUEST, "Invalid request");
  const isNotification = r.id === undefined;
  const table = ctx.adminEnabled ? ALL_METHODS : PUBLIC_METHODS;
  const handler = Object.hasOwn(table, r.method) ? table[r.method] : undefined;
  if (!handler)
    return isNotification ? null : errorResponse(id, RPC_ERROR.METHOD_NOT_FOUND, "Method not found");
  try {
    const out = handler(r.params === undefined ? [] : (r.params as unknown[]), ctx);
    if (out instanceof Promise)
      return out.then(
        (result) => (isNotification ? null : { jsonrpc: "2.0", id, result: result ?? null }),
        (e) => (isNotification ? null : toError(id, e)),
      );
    return isNotification ? null : { jsonrpc: "2.0", id, result: out ?? null };
  } catch (e) {
    return isNotification ? null : toError(id, e);
  }
}

/**
 * Handles a raw JSON-RPC body (single or batch) and returns the response text, or null when
 * nothing is to be answered (only notifications).
 */
export function handleRpcBody(body: string, ctx: RpcContext): string | null | Promise<string | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return serialize(errorResponse(null, RPC_ERROR.PARSE_ERROR, "Parse error"));
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0)
      return serialize(errorResponse(null, RPC_ERROR.INVALID_REQUEST, "Invalid request"));
    if (parsed.length > MAX_BATCH_SIZE)
      return serialize(
        errorResponse(
          null,
          RPC_ERROR.INVALID_REQUEST,
          `Invalid request: batch of ${parsed.length} exceeds ${MAX_BATCH_SIZE}`,
        ),
      );
    const results = parsed.map((r) => handleOne(r, ctx));
    const finish = (list: (Response | null)[]) => {
      const answered = list.filter((x): x is Response => x !== null);
      return answered.length === 0 ? null : serialize(answered);
    };
    if (results.some((x) => x instanceof Promise)) return Promise.all(results).then(finish);
    return finish(results as (Response | null)[]);
  }
  const one = handleOne(parsed, ctx);
  if (one instanceof Promise) return one.then((r) => (r ? serialize(r) : null));
  return one ? serialize(one) : null;
}

const RENT_EPOCH_JSON = /"rentEpoch":18446744073709552000/g; // JSON.stringify(2 ** 64)

/** JSON text with u64::MAX rentEpoch written exactly. */
export function serialize(v: unknown): string {
  const s = JSON.stringify(v);
  return s.includes('"rentEpoch"') ? s.replace(RENT_EPOCH_JSON, '"rentEpoch":18446744073709551615') : s;
}
