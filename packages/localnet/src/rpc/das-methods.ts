/**
 * The DAS read methods (Metaplex Digital Asset Standard API) on the localnet's RPC port, by the names of the DAS
 * specification and Metaplex's reference server (digital-asset-rpc-infrastructure), with its aliases: getAsset,
 * getAssets (getAssetBatch), getAssetProof, getAssetProofs (getAssetProofBatch), getAssetsByOwner,
 * getAssetsByGroup, getAssetsByCreator, getAssetsByAuthority, searchAssets, getGrouping, getAssetSignatures,
 * getTokenAccounts, getNftEditions: every method the official umi `dasApi()` plugin calls. Params are named (an
 * object), as DAS clients send them, or positional. Answers come from the chain's in-memory DAS index.
 */
import { decodeAddress, encodeBase58 } from "../base58.ts";
import type { DasAssetJson } from "../das/das-asset.ts";
import type { DisplayOptions, SortedAsset } from "../das/das-index.ts";
import { invalidParams, LocalnetRpcError, RPC_ERROR } from "../errors.ts";
import { getMasterEditionAddress } from "../token-metadata.ts";
import type { RpcContext, RpcHandler } from "./context.ts";

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

const SORTS: Record<string, (a: SortedAsset, b: SortedAsset) => number> = {
  created: (a, b) => a.created - b.created,
  id: (a, b) => (a.asset.id < b.asset.id ? -1 : a.asset.id > b.asset.id ? 1 : 0),
};

/** page and limit (DAS servers' other pagings, before/after/cursor, are refused with a plain message). */
function paging(p: Record<string, unknown>): { page: number; limit: number } {
  if (p.before !== undefined || p.after !== undefined || p.cursor !== undefined)
    throw invalidParams(
      "Invalid params: this server pages with page and limit (before/after/cursor are not supported)",
    );
  return {
    page: positiveInt(p.page, "page", 1, Number.MAX_SAFE_INTEGER),
    limit: positiveInt(p.limit, "limit", DAS_MAX_BATCH, DAS_MAX_BATCH),
  };
}

/** A page of assets, sorted as asked (`sortBy: { sortBy, sortDirection }`), in the DAS list shape. */
function assetPage(all: SortedAsset[], p: Record<string, unknown>) {
  const { page, limit } = paging(p);
  const sort = (p.sortBy ?? {}) as { sortBy?: unknown; sortDirection?: unknown };
  const by = sort.sortBy === undefined || sort.sortBy === "none" ? "created" : String(sort.sortBy);
  const compare = SORTS[by];
  if (!compare) throw invalidParams(`Invalid params: sortBy ${by} is not supported (created, id, none)`);
  all.sort(compare);
  if (sort.sortDirection === "desc") all.reverse();
  const items = all.slice((page - 1) * limit, page * limit).map((s) => s.asset);
  // as the DAS servers answer: `total` counts the items of this page
  return { total: items.length, limit, page, items };
}

/** The unburnt assets that pass `keep`. */
function listed(ctx: RpcContext, p: Record<string, unknown>, keep: (a: DasAssetJson) => boolean) {
  return assetPage(
    ctx.chain.das.allAssets(displayOptions(p)).filter((s) => !s.asset.burnt && keep(s.asset)),
    p,
  );
}

const hasAuthority = (a: DasAssetJson, authority: string) =>
  a.authorities.some((x) => x.address === authority);
const inGroup = (a: DasAssetJson, key: string, value: string) =>
  a.grouping.some((g) => g.group_key === key && g.group_value === value);

/** searchAssets' filters this server applies; any other is refused rather than ignored. */
const SEARCH_FILTERS: Record<string, (a: DasAssetJson, v: unknown) => boolean> = {
  interface: (a, v) => a.interface === v,
  ownerAddress: (a, v) => a.ownership.owner === v,
  creatorAddress: (a, v) => a.creators.some((c) => c.address === v),
  creatorVerified: (a, v) => a.creators.some((c) => c.verified === v),
  authorityAddress: (a, v) => hasAuthority(a, String(v)),
  grouping: (a, v) => Array.isArray(v) && inGroup(a, String(v[0]), String(v[1])),
  delegateAddress: (a, v) => a.ownership.delegate === v,
  frozen: (a, v) => a.ownership.frozen === v,
  compressed: (a, v) => a.compression.compressed === v,
  compressible: (a, v) => a.compression.eligible === v,
  burnt: (a, v) => a.burnt === v,
  jsonUri: (a, v) => a.content.json_uri === v,
  name: (a, v) => a.content.metadata.name === v,
  royaltyTargetType: (a, v) => a.royalty.royalty_model === v,
  royaltyAmount: (a, v) => a.royalty.basis_points === v,
};
const SEARCH_OPTIONS = new Set([
  "negate",
  "conditionType",
  "page",
  "limit",
  "before",
  "after",
  "cursor",
  "sortBy",
  "displayOptions",
  "options",
]);

export const dasMethods: Record<string, RpcHandler> = {
  getAsset(params, ctx) {
    const p = named(params, ["id"]);
    const asset = ctx.chain.das.asset(address(p.id, "id"), displayOptions(p));
    if (!asset) throw notFound();
    return asset;
  },

  getAssets(params, ctx) {
    const p = named(params, ["ids"]);
    const options = displayOptions(p);
    return ids(p.ids).map((id) => ctx.chain.das.asset(id, options));
  },

  getAssetsByOwner(params, ctx) {
    const p = named(params, ["ownerAddress", "page", "limit"]);
    const owner = address(p.ownerAddress, "ownerAddress");
    return assetPage(ctx.chain.das.assetsByOwner(owner, displayOptions(p)), p);
  },

  getAssetsByGroup(params, ctx) {
    const p = named(params, ["groupKey", "groupValue", "page", "limit"]);
    if (typeof p.groupKey !== "string" || p.groupKey === "")
      throw invalidParams("Invalid params: missing or invalid groupKey");
    const key = p.groupKey;
    const value = address(p.groupValue, "groupValue");
    return listed(ctx, p, (a) => inGroup(a, key, value));
  },

  getAssetsByCreator(params, ctx) {
    const p = named(params, ["creatorAddress", "onlyVerified", "page", "limit"]);
    const creator = address(p.creatorAddress, "creatorAddress");
    const onlyVerified = p.onlyVerified === true;
    return listed(ctx, p, (a) =>
      a.creators.some((c) => c.address === creator && (!onlyVerified || c.verified)),
    );
  },

  getAssetsByAuthority(params, ctx) {
    const p = named(params, ["authorityAddress", "page", "limit"]);
    const authority = address(p.authorityAddress, "authorityAddress");
    return listed(ctx, p, (a) => hasAuthority(a, authority));
  },

  searchAssets(params, ctx) {
    const p = named(params, []);
    const filters: [(a: DasAssetJson, v: unknown) => boolean, unknown][] = [];
    for (const [name, value] of Object.entries(p)) {
      if (SEARCH_OPTIONS.has(name) || value === undefined || value === null) continue;
      const filter = SEARCH_FILTERS[name];
      if (!filter)
        throw invalidParams(
          `Invalid params: searchAssets filter ${name} is not supported (${Object.keys(SEARCH_FILTERS).join(", ")})`,
        );
      filters.push([filter, value]);
    }
    const any = p.conditionType === "any";
    const negate = p.negate === true;
    const keep = (a: DasAssetJson) => {
      if (filters.length === 0) return true;
      const hit = any ? filters.some(([f, v]) => f(a, v)) : filters.every(([f, v]) => f(a, v));
      return negate ? !hit : hit;
    };
    return assetPage(
      ctx.chain.das.allAssets(displayOptions(p)).filter((s) => keep(s.asset)),
      p,
    );
  },

  getGrouping(params, ctx) {
    const p = named(params, ["groupKey", "groupValue"]);
    if (typeof p.groupKey !== "string" || p.groupKey === "")
      throw invalidParams("Invalid params: missing or invalid groupKey");
    const grouping = ctx.chain.das.grouping(p.groupKey, address(p.groupValue, "groupValue"));
    if (!grouping) throw new LocalnetRpcError(RPC_ERROR.DAS_NOT_FOUND, "Group Not Found");
    return grouping;
  },

  /** A compressed asset's Bubblegum transactions: [signature, instruction] pairs, as the reference server answers. */
  getAssetSignatures(params, ctx) {
    const p = named(params, ["id", "page", "limit"]);
    let id: string;
    if (p.id !== undefined) id = address(p.id, "id");
    else {
      const tree = address(p.tree, "id or tree");
      const leafIndex = p.leafIndex ?? p.leaf_index;
      if (typeof leafIndex !== "number" || !Number.isSafeInteger(leafIndex) || leafIndex < 0)
        throw invalidParams("Invalid params: leafIndex must be a non-negative integer");
      const leaf = ctx.chain.das.compressed.all().find((l) => l.tree === tree && l.leafIndex === leafIndex);
      if (!leaf) throw notFound();
      id = leaf.id;
    }
    const { page, limit } = paging(p);
    const all = ctx.chain.das.signatures(id);
    if (!all) throw notFound();
    const ordered = p.sortDirection === "asc" || p.sort_direction === "asc" ? [...all] : [...all].reverse();
    const items = ordered
      .slice((page - 1) * limit, page * limit)
      .map((s) => [s.signature, s.instruction] as [string, string]);
    return { total: items.length, limit, page, items };
  },

  getTokenAccounts(params, ctx) {
    const p = named(params, ["ownerAddress", "mintAddress", "page", "limit"]);
    const owner = p.ownerAddress ?? p.owner;
    const mint = p.mintAddress ?? p.mint;
    if (owner === undefined && mint === undefined)
      throw invalidParams("Invalid params: ownerAddress or mintAddress is required");
    const { page, limit } = paging(p);
    const showZero =
      ((p.options ?? p.displayOptions ?? {}) as { showZeroBalance?: unknown }).showZeroBalance === true;
    const accounts =
      owner !== undefined
        ? ctx.chain.das.accounts.tokenAccountsOf(address(owner, "ownerAddress"))
        : ctx.chain.das.accounts.tokenAccountsOfMint(address(mint, "mintAddress"));
    const token_accounts = accounts
      .filter((t) => (mint === undefined || t.mint === mint) && (showZero || t.amount > 0n))
      .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
      .slice((page - 1) * limit, page * limit)
      .map((t) => ({
        address: t.address,
        mint: t.mint,
        owner: t.owner,
        amount: Number(t.amount),
        delegated_amount: Number(t.delegatedAmount),
        frozen: t.frozen,
        ...(t.delegate ? { delegate: t.delegate } : {}),
        ...(t.closeAuthority ? { close_authority: t.closeAuthority } : {}),
      }));
    return { total: token_accounts.length, limit, page, token_accounts, errors: [] };
  },

  /** A master edition's supply and its printed editions (Token Metadata `EditionV1` accounts of print mints). */
  getNftEditions(params, ctx) {
    const p = named(params, ["mintAddress", "page", "limit"]);
    const mint = address(p.mintAddress ?? p.mint, "mintAddress");
    const { page, limit } = paging(p);
    const master = getMasterEditionAddress(mint);
    const account = ctx.chain.svm.getAccount(decodeAddress(master));
    const data = account?.data();
    // Key::MasterEditionV2 (6) | MasterEditionV1 (2): supply u64, max_supply Option<u64>
    if (!data || (data[0] !== 6 && data[0] !== 2) || data.length < 10)
      throw new LocalnetRpcError(RPC_ERROR.DAS_NOT_FOUND, "Master Edition Not Found");
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const supply = Number(view.getBigUint64(1, true));
    const maxSupply = data[9] === 1 ? Number(view.getBigUint64(10, true)) : undefined;
    const editions: { mint_address: string; edition_address: string; edition: number }[] = [];
    for (const printMint of ctx.chain.das.accounts.metadataMints()) {
      const meta = ctx.chain.das.accounts.metadataOf(printMint);
      if (meta?.tokenStandard !== 3 && meta?.tokenStandard !== 5) continue;
      const editionAddress = getMasterEditionAddress(printMint);
      const e = ctx.chain.svm.getAccount(decodeAddress(editionAddress))?.data();
      // Key::EditionV1 (1): parent, edition u64
      if (e?.[0] !== 1 || e.length < 41) continue;
      if (encodeParent(e) !== master) continue;
      const number = Number(new DataView(e.buffer, e.byteOffset, e.byteLength).getBigUint64(33, true));
      editions.push({ mint_address: printMint, edition_address: editionAddress, edition: number });
    }
    editions.sort((a, b) => a.edition - b.edition);
    return {
      total: editions.length,
      limit,
      page,
      master_edition_address: master,
      supply,
      ...(maxSupply !== undefined ? { max_supply: maxSupply } : {}),
      editions: editions.slice((page - 1) * limit, page * limit),
    };
  },

  getAssetProof(params, ctx) {
    const p = named(params, ["id"]);
    const proof = ctx.chain.das.proof(address(p.id, "id"));
    if (!proof) throw notFound();
    return proof;
  },

  getAssetProofs(params, ctx) {
    const p = named(params, ["ids"]);
    return Object.fromEntries(ids(p.ids).map((id) => [id, ctx.chain.das.proof(id)]));
  },
};

// the names DAS servers also answer to (the reference server's aliases)
dasMethods.getAssetBatch = dasMethods.getAssets!;
dasMethods.getAssetProofBatch = dasMethods.getAssetProofs!;

function encodeParent(edition: Uint8Array): string {
  return encodeBase58(edition.subarray(1, 33));
}
