import type { Account } from "litesvm/dist/internal";
import { encodeAccount, parseAccountConfig } from "../account-encoding.ts";
import { decodeAddress, decodeBase58, encodeBase58 } from "../base58.ts";
import { invalidParams } from "../errors.ts";
import { type RpcContext, type RpcHandler, withContext } from "./context.ts";
import { asParams, checkMinContextSlot, config, str, strArray } from "./params.ts";

/** A compiled getProgramAccounts filter. */
export type AccountFilter = (data: Uint8Array) => boolean;

/** Compiles agave's filters (dataSize, memcmp, tokenAccountState); at most 4. */
export function compileFilters(raw: unknown): AccountFilter[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidParams("Invalid params: filters must be an array");
  if (raw.length > 4) throw invalidParams("Too many filters provided; max 4");
  return raw.map((f): AccountFilter => {
    const o = f as { dataSize?: unknown; memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown } };
    if (o && typeof o === "object" && "dataSize" in o) {
      if (typeof o.dataSize !== "number" || !Number.isInteger(o.dataSize) || o.dataSize < 0)
        throw invalidParams("Invalid params: dataSize must be a non-negative integer");
      const size = o.dataSize;
      return (d) => d.length === size;
    }
    if (o && typeof o === "object" && "memcmp" in o && o.memcmp && typeof o.memcmp === "object") {
      const { offset, bytes, encoding } = o.memcmp;
      if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0)
        throw invalidParams("Invalid params: memcmp offset must be a non-negative integer");
      if (typeof bytes !== "string") throw invalidParams("Invalid params: memcmp bytes must be a string");
      let needle: Uint8Array;
      if (encoding === "base64") needle = Buffer.from(bytes, "base64");
      else if (encoding === undefined || encoding === "base58") {
        if (bytes.length > 175)
          throw invalidParams("Encoded binary (base 58) data should be less than 128 bytes");
        needle = decodeBase58(bytes);
      } else throw invalidParams(`Invalid params: unknown memcmp encoding ${String(encoding)}`);
      const n = Buffer.from(needle);
      return (d) => d.length >= offset + n.length && n.equals(d.subarray(offset, offset + n.length));
    }
    if (o && typeof o === "object" && "tokenAccountState" in o) return (d) => d.length >= 165 && d[108] !== 0;
    throw invalidParams("Invalid params: unknown filter");
  });
}

function accountOrNull(ctx: RpcContext, address: string, cfg: ReturnType<typeof parseAccountConfig>) {
  const acct = ctx.chain.svm.getAccount(decodeAddress(address));
  if (!acct || (acct.lamports() === 0n && acct.data().length === 0)) return null;
  return encodeAccount(ctx.chain.svm, acct, cfg);
}

/** Accounts owned by `program` that pass every filter (read through the owner index, not a full scan). */
export function scanProgramAccounts(
  ctx: RpcContext,
  program: Uint8Array,
  filters: AccountFilter[],
): { address: Uint8Array; account: Account }[] {
  const out: { address: Uint8Array; account: Account }[] = [];
  for (const address of ctx.chain.owners.addresses(encodeBase58(program))) {
    const key = decodeBase58(address);
    const account = ctx.chain.svm.getAccount(key);
    if (!account) continue;
    const data = account.data();
    if (filters.every((f) => f(data))) out.push({ address: key, account });
  }
  return out;
}

/** Account read methods. */
export const accountMethods: Record<string, RpcHandler> = {
  getBalance: (params, ctx) => {
    const p = asParams(params);
    const key = decodeAddress(str(p, 0, "address"));
    checkMinContextSlot(config(p, 1), ctx.chain.slot);
    return withContext(ctx, Number(ctx.chain.svm.getBalance(key) ?? 0n));
  },
  getAccountInfo: (params, ctx) => {
    const p = asParams(params);
    const address = str(p, 0, "address");
    const c = config(p, 1);
    checkMinContextSlot(c, ctx.chain.slot);
    return withContext(ctx, accountOrNull(ctx, address, parseAccountConfig(c)));
  },
  getMultipleAccounts: (params, ctx) => {
    const p = asParams(params);
    const addresses = strArray(p, 0, "addresses", 100);
    const c = config(p, 1);
    checkMinContextSlot(c, ctx.chain.slot);
    const cfg = parseAccountConfig(c);
    return withContext(
      ctx,
      addresses.map((a) => accountOrNull(ctx, a, cfg)),
    );
  },
  getProgramAccounts: (params, ctx) => {
    const p = asParams(params);
    const program = decodeAddress(str(p, 0, "program id"));
    const c = config(p, 1);
    checkMinContextSlot(c, ctx.chain.slot);
    const cfg = parseAccountConfig(c);
    const filters = compileFilters(c.filters);
    const list = scanProgramAccounts(ctx, program, filters).map((e) => ({
      pubkey: encodeBase58(e.address),
      account: encodeAccount(ctx.chain.svm, e.account, cfg),
    }));
    return c.withContext === true ? withContext(ctx, list) : list;
  },
};
