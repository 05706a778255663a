import { invalidParams, LocalnetRpcError, RPC_ERROR } from "../errors.ts";

/** Params as received (array form; named params are not used by Solana clients). */
export type Params = unknown[];

/** Reads params into an array; a non-array params value is invalid. */
export function asParams(params: unknown): Params {
  if (params === undefined || params === null) return [];
  if (!Array.isArray(params)) throw invalidParams("Invalid params: expected an array of parameters");
  return params;
}

/** A required string parameter. */
export function str(p: Params, i: number, what: string): string {
  const v = p[i];
  if (v === undefined) throw invalidParams(`Invalid params: missing ${what}`);
  if (typeof v !== "string")
    throw invalidParams(`Invalid params: invalid type: ${typeOf(v)}, expected a string (${what})`);
  return v;
}

/** A required non-negative safe integer. */
export function uint(p: Params, i: number, what: string): number {
  const v = p[i];
  if (v === undefined) throw invalidParams(`Invalid params: missing ${what}`);
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
    throw invalidParams(`Invalid params: invalid type: ${typeOf(v)}, expected u64 (${what})`);
  return v;
}

/** An optional config object (undefined/null -> {}). */
export function config(p: Params, i: number): Record<string, unknown> {
  const v = p[i];
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v))
    throw invalidParams(`Invalid params: invalid type: ${typeOf(v)}, expected a config map`);
  return v as Record<string, unknown>;
}

/** A required array of strings with a maximum length. */
export function strArray(p: Params, i: number, what: string, max: number): string[] {
  const v = p[i];
  if (!Array.isArray(v))
    throw invalidParams(`Invalid params: invalid type: ${typeOf(v)}, expected a sequence (${what})`);
  if (v.length > max) throw invalidParams(`Too many inputs provided; max ${max}`);
  for (const s of v)
    if (typeof s !== "string") throw invalidParams(`Invalid params: ${what} must be strings`);
  return v as string[];
}

/** Rejects a request whose minContextSlot is ahead of the node. */
export function checkMinContextSlot(cfg: Record<string, unknown>, slot: number): void {
  const m = cfg.minContextSlot;
  if (typeof m === "number" && m > slot)
    throw new LocalnetRpcError(
      RPC_ERROR.MIN_CONTEXT_SLOT_NOT_REACHED,
      "Minimum context slot has not been reached",
      {
        contextSlot: slot,
      },
    );
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "sequence";
  if (typeof v === "number") return Number.isInteger(v) ? `integer \`${v}\`` : `floating point \`${v}\``;
  if (typeof v === "string") return `string "${v.slice(0, 40)}"`;
  return typeof v;
}

export { RPC_ERROR };
