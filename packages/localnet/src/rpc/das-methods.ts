/**
 * The DAS read methods (Metaplex Digital Asset Standard API) on the localnet's RPC port: getAsset, getAssetBatch,
 * getAssetsByOwner, getAssetProof, getAssetProofBatch. Params are named (an object), as DAS clients send them, or
 * positional. Answers come from the chain's in-memory DAS index.
 */
import { decodeAddress } from "../base58.ts";
import type { DasAssetJson } from "../das/das-asset.ts";
import type { DisplayOptions } from "../das/das-index.ts";
import { invalidParams, LocalnetRpcError, RPC_ERROR } from "../errors.ts";
import type { RpcHandler } from "./context.ts";

/** Most ids one batch call takes, and most items of a getAssetsByOwner page (DAS limits). */
export const DAS_MAX_BATCH = 1000;

const notFound = () => new LocalnetRpcError(RPC_ERROR.DAS_NOT_FOUND, "Asset Not Found");

/** Named params, or the first positional ones mapped to `names`. */
function named(params: unknown, names: string[]): Record<string, unknown> {
  if (Array.isArray(params)) {
    if (
      params.length === 1 &&
      params[0] !== null &&
      typeof params[0] === "object" &&
      !Array.isArray(params[0])
    )
      return params[0] as Record<string, unknown>;
    return Object.fromEntries(names.map((n, i) => [n, params[i]]));
  }
  if (params !== null && typeof params === "object") return params as Record<string, unknown>;
  throw invalidParams("Invalid params: expected an object of named parameters");
}

function address(v: unknown, what: string): string {
  if (typeof v !== "string") throw invalidParams(`Invalid params: missing or invalid ${what}`);
  decodeAddress(v);
  return v;
}

function ids(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0)
    throw invalidParams("Invalid params: ids must be a non-empty array");
  if (v.length > DAS_MAX_BATCH) throw invalidParams(`Invalid params: at most ${DAS_MAX_BATCH} ids`);
  return v.map((id) => address(id, "id"));
}

function displayOptions(p: Record<string, unknown>): DisplayOptions {
  const d = (p.displayOptions ?? p.options ?? {}) as Record<string, unknown>;
  if (typeof d !== "object" || d === null)
    throw invalidParams("Invalid params: displayOptions must be an object");
  return {
    showFungible: d.showFungible === true,
    showUnverifiedCollections: d.showUnverifiedCollections === true,
  };
}

function positiveInt(v: unknown, what: string, fallback: number, max: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1 || v > max)
    throw invalidParams(`Invalid params: ${what} must be an integer from 1 to ${max}`);
  return v;
}

type Sorted = { asset: DasAssetJson; created: number };
const SORTS: Record<string, (a: Sorted, b: Sorted) => number> = {
  created: (a, b) => a.created - b.created,
  id: (a, b) => (a.asset.id < b.asset.id ? -1 : a.asset.id > b.asset.id ? 1 : 0),
};

export const dasMethods: Record<string, RpcHandler> = {
  getAsset(params, ctx) {
    const p = named(params, ["id"]);
    const asset = ctx.chain.das.asset(address(p.id, "id"), displayOptions(p));
    if (!asset) throw notFound();
    return asset;
  },

  getAssetBatch(params, ctx) {
    const p = named(params, ["ids"]);
    const options = displayOptions(p);
    return ids(p.ids).map((id) => ctx.chain.das.asset(id, options));
  },

  getAssetsByOwner(params, ctx) {
    const p = named(params, ["ownerAddress", "page", "limit"]);
    const owner = address(p.ownerAddress, "ownerAddress");
    if (p.before !== undefined || p.after !== undefined || p.cursor !== undefined)
      throw invalidParams(
        "Invalid params: this server pages with page and limit (before/after/cursor are not supported)",
      );
    const page = positiveInt(p.page, "page", 1, Number.MAX_SAFE_INTEGER);
    const limit = positiveInt(p.limit, "limit", DAS_MAX_BATCH, DAS_MAX_BATCH);
    const sort = (p.sortBy ?? {}) as { sortBy?: unknown; sortDirection?: unknown };
    const by = sort.sortBy === undefined || sort.sortBy === "none" ? "created" : String(sort.sortBy);
    const compare = SORTS[by];
    if (!compare) throw invalidParams(`Invalid params: sortBy ${by} is not supported (created, id, none)`);
    const all = ctx.chain.das.assetsByOwner(owner, displayOptions(p)).sort(compare);
    if (sort.sortDirection === "desc") all.reverse();
    const items = all.slice((page - 1) * limit, page * limit).map((s) => s.asset);
    // as the DAS servers answer: `total` counts the items of this page
    return { total: items.length, limit, page, items };
  },

  getAssetProof(params, ctx) {
    const p = named(params, ["id"]);
    const proof = ctx.chain.das.proof(address(p.id, "id"));
    if (!proof) throw notFound();
    return proof;
  },

  getAssetProofBatch(params, ctx) {
    const p = named(params, ["ids"]);
    return Object.fromEntries(ids(p.ids).map((id) => [id, ctx.chain.das.proof(id)]));
  },
};
