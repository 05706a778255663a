import { readFileSync } from "node:fs";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";

/** A lending currency or collateral token of the catalogue. */
export interface CatalogToken {
  mint: string;
  symbol: string;
  name: string;
  decimals: number;
  image: string;
  role: "currency" | "collateral";
  /** Pyth price feed id (hex) the production price source reads; absent on the localnet. */
  pythFeedId?: string | undefined;
}

/** The Metaplex standard of a collection's NFTs. */
export type CollectionStandard = "NonFungible" | "ProgrammableNonFungible" | "Core" | "Compressed";

/** An NFT collection of the catalogue, by its verified collection key. */
export interface CatalogCollection {
  collectionId: string;
  symbol: string;
  name: string;
  image: string;
  standard: CollectionStandard;
  /** The collection's symbol on Magic Eden and slug on Tensor (their stats are read by these; "" on localnet). */
  magicEdenSlug: string;
  tensorSlug: string;
  /** NFTs in the collection, when the deployment states it (0: unknown). */
  supply: number;
}

export interface Catalog {
  tokens: CatalogToken[];
  collections: CatalogCollection[];
}

/** Where currencies and collections come from: a catalogue file (catalog/catalogs/<cluster>.json or CATALOG_FILE). */
export interface CatalogSource {
  readonly name: string;
  fetchCatalog(): Promise<Catalog>;
}

const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const STANDARDS: readonly CollectionStandard[] = [
  "NonFungible",
  "ProgrammableNonFungible",
  "Core",
  "Compressed",
];

/** Parses and checks a catalogue file's JSON; throws naming the first bad entry. */
export function parseCatalog(json: unknown, origin: string): Catalog {
  const fail = (what: string): never => {
    throw new ApiError(ERROR_CODES.CONFIG_INVALID, `Invalid configuration: catalogue ${origin}: ${what}`);
  };
  const root = (json ?? {}) as { tokens?: unknown; collections?: unknown };
  if (!Array.isArray(root.tokens) || !Array.isArray(root.collections))
    fail("needs tokens and collections lists");
  const str = (v: unknown, what: string, optional = false): string => {
    if (optional && v === undefined) return "";
    if (typeof v !== "string") fail(`${what} must be a string`);
    return v as string;
  };
  const tokens = (root.tokens as Record<string, unknown>[]).map((t, i) => {
    const at = `tokens[${i}]`;
    const mint = str(t.mint, `${at}.mint`);
    if (!ADDRESS.test(mint)) fail(`${at}.mint is not an address`);
    const decimals = t.decimals;
    if (typeof decimals !== "number" || !Number.isInteger(decimals) || decimals < 0 || decimals > 18)
      fail(`${at}.decimals must be an integer from 0 to 18`);
    if (t.role !== "currency" && t.role !== "collateral") fail(`${at}.role must be currency or collateral`);
    const feed = t.pythFeedId === undefined ? undefined : str(t.pythFeedId, `${at}.pythFeedId`);
    if (feed !== undefined && !/^(0x)?[0-9a-f]{64}$/.test(feed))
      fail(`${at}.pythFeedId must be 32 bytes of hex`);
    return {
      mint,
      symbol: str(t.symbol, `${at}.symbol`),
      name: str(t.name, `${at}.name`),
      decimals: decimals as number,
      image: str(t.image, `${at}.image`, true),
      role: t.role as CatalogToken["role"],
      ...(feed !== undefined ? { pythFeedId: feed } : {}),
    };
  });
  const collections = (root.collections as Record<string, unknown>[]).map((c, i) => {
    const at = `collections[${i}]`;
    const collectionId = str(c.collectionId, `${at}.collectionId`);
    if (!ADDRESS.test(collectionId)) fail(`${at}.collectionId is not an address`);
    if (!STANDARDS.includes(c.standard as CollectionStandard))
      fail(`${at}.standard must be one of ${STANDARDS.join(", ")}`);
    const supply = c.supply ?? 0;
    if (typeof supply !== "number" || !Number.isInteger(supply) || supply < 0)
      fail(`${at}.supply must be a count`);
    return {
      collectionId,
      symbol: str(c.symbol, `${at}.symbol`),
      name: str(c.name, `${at}.name`),
      image: str(c.image, `${at}.image`, true),
      standard: c.standard as CollectionStandard,
      magicEdenSlug: str(c.magicEdenSlug, `${at}.magicEdenSlug`, true),
      tensorSlug: str(c.tensorSlug, `${at}.tensorSlug`, true),
      supply: supply as number,
    };
  });
  const seen = new Set<string>();
  for (const id of [...tokens.map((t) => t.mint), ...collections.map((c) => c.collectionId)]) {
    if (seen.has(id)) fail(`${id} is listed twice`);
    seen.add(id);
  }
  return { tokens, collections };
}

/** The catalogue file of a cluster shipped in the repo. */
export function getCatalogFilePath(cluster: string): string {
  return new URL(`../catalog/catalogs/${cluster}.json`, import.meta.url).pathname;
}

/**
 * The catalogue of a deployment read from its file, once, when the app is built: a missing or malformed file
 * stops the start (CONFIG_INVALID).
 */
export function createFileCatalogSource(path: string): CatalogSource {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (cause) {
    throw new ApiError(ERROR_CODES.CONFIG_INVALID, `Invalid configuration: catalogue ${path} unreadable`, {
      cause,
    });
  }
  const catalog = parseCatalog(json, path);
  return { name: "file", fetchCatalog: async () => catalog };
}
