import {
  type Bank,
  type LoanList,
  type ParsedPool,
  parseBank,
  parseLoanList,
  parsePool,
} from "@cistern/protocol";
import { useApiQuery } from "../../kit/api.ts";

/** A page of pools with their banks. */
export interface PoolPage {
  pools: ParsedPool[];
  banks: Bank[];
  totalCount: number;
}

/** Parses `{pools, banks, totalCount}`. */
export function parsePoolPage(body: unknown): PoolPage {
  const raw = (body ?? {}) as { pools?: unknown[]; banks?: unknown[]; totalCount?: unknown };
  return {
    pools: (raw.pools ?? []).map(parsePool),
    banks: (raw.banks ?? []).map(parseBank),
    totalCount: Number(raw.totalCount ?? 0),
  };
}

/** One NFT collection of the catalogue. */
export interface CollectionInfo {
  id: string;
  name: string;
  thumbnail: string;
  /** Floor, lamports. */
  floorPriceLamports: bigint;
  supply: number;
  currentLoan: number;
}

/** One token of the catalogue. */
export interface TokenInfo {
  mint: string;
  symbol: string;
  name: string;
  decimals: number;
  image: string;
  isLendingCurrency: boolean;
}

/** Parses GET /collection/collections. */
export function parseCollections(body: unknown): CollectionInfo[] {
  if (!Array.isArray(body)) return [];
  return body.map((c: Record<string, unknown>) => {
    const metadata = (c.metadata ?? {}) as Record<string, unknown>;
    return {
      id: String(c.collectionId),
      name: String(metadata.collectionName ?? ""),
      thumbnail: String(metadata.thumbnail ?? ""),
      floorPriceLamports: BigInt(String(c.floorPrice ?? "0")),
      supply: Number(c.supply ?? 0),
      currentLoan: Number(c.currentLoan ?? 0),
    };
  });
}

/** Parses GET /currency/currencies (keyed by mint). */
export function parseTokens(body: unknown): Record<string, TokenInfo> {
  const out: Record<string, TokenInfo> = {};
  if (typeof body !== "object" || body === null) return out;
  for (const [mint, value] of Object.entries(body as Record<string, Record<string, unknown>>)) {
    const metadata = (value.metadata ?? {}) as Record<string, unknown>;
    out[mint] = {
      mint,
      symbol: String(metadata.symbol ?? ""),
      name: String(metadata.name ?? ""),
      decimals: Number(metadata.decimals ?? 0),
      image: String(value.image ?? ""),
      isLendingCurrency: metadata.isLendingCurrency === true,
    };
  }
  return out;
}

/** Pools of the market (scope "pool"). */
export function usePools(filters: { currency?: string; type?: string; limit?: number }) {
  return useApiQuery("pool", "/dirty/pools", { limit: 100, ...filters }, parsePoolPage);
}

/** One pool (null when unknown). */
export function usePool(pubkey: string) {
  return useApiQuery("pool", "/pool/pool", { pubkey }, (body) => (body === null ? null : parsePool(body)));
}

/** A wallet's pools and banks (scope "mypool"). */
export function useOwnerPools(owner: string | null) {
  return useApiQuery("mypool", "/pool/get-by-owner", { owner, limit: 100 }, parsePoolPage, {
    enabled: owner !== null,
  });
}

/** Loans of a pool (scope "loans"). */
export function usePoolLoans(pool: string, status?: string) {
  return useApiQuery(
    "loans",
    "/loan/pool",
    { pubkey: pool, status, limit: 100 },
    (b): LoanList => parseLoanList(b),
  );
}

/** NFT collections of the catalogue, by id. */
export function useCollections() {
  return useApiQuery("catalogue", "/collection/collections", {}, (body) => {
    const list = parseCollections(body);
    return new Map(list.map((c) => [c.id, c]));
  });
}

/** Tokens of the catalogue, by mint. */
export function useTokens() {
  return useApiQuery("catalogue", "/currency/currencies", {}, parseTokens);
}
