import { parseTransactionCosts, type TransactionCosts } from "@cistern/protocol";
import { useQuery } from "@tanstack/react-query";
import { useAppContext } from "../../app-context.ts";
import { useApiQuery } from "../../kit/api.ts";
import { useSettings } from "../../settings/settings-store.ts";
import { requestJson } from "../../tx/http-client.ts";
import { getQuoteOptions } from "../../tx/quote-options.ts";
import { parsePoolPage } from "../pools/pool-data.ts";
import { type NftStandard, parseNftStandard } from "./nft-standard.ts";

/** An NFT of the wallet with its collection floor. */
export interface WalletNft {
  mint: string;
  name: string;
  image: string;
  collection: string | null;
  collectionName: string | null;
  /** Floor price, lamports; null when unknown. */
  floorLamports: bigint | null;
  floorUsd: number | null;
  /** The NFT's standard (NFT, programmable NFT, Core asset ...); null when the API did not say. */
  standard: NftStandard | null;
}

/** A token balance of the wallet. */
export interface WalletToken {
  mint: string;
  amount: bigint;
  decimals: number;
}

/**
 * Parses GET /asset/assets. A degraded answer (the asset service could not be read) becomes an error, so the
 * page says why the list is empty and offers to try again instead of showing "no NFTs".
 */
export function parseWalletNfts(body: unknown): WalletNft[] {
  const answer = (body ?? {}) as { nfts?: Record<string, unknown>[]; unavailable?: unknown };
  if (typeof answer.unavailable === "string") throw new Error(answer.unavailable);
  const list = answer.nfts ?? [];
  return list.map((n) => ({
    mint: String(n.mint),
    name: String(n.name ?? ""),
    image: String(n.image ?? ""),
    collection: typeof n.collection === "string" ? n.collection : null,
    collectionName: typeof n.collectionName === "string" ? n.collectionName : null,
    floorLamports: typeof n.floorPriceLamports === "string" ? BigInt(n.floorPriceLamports) : null,
    floorUsd: typeof n.floorPriceUsd === "number" ? n.floorPriceUsd : null,
    standard: parseNftStandard(n.nftType),
  }));
}

/** Parses GET /asset/tokens; a degraded answer becomes an error, as for the NFTs. */
export function parseWalletTokens(body: unknown): WalletToken[] {
  const answer = (body ?? {}) as { tokens?: Record<string, unknown>[]; unavailable?: unknown };
  if (typeof answer.unavailable === "string") throw new Error(answer.unavailable);
  return (answer.tokens ?? [])
    .map((t: Record<string, unknown>) => ({
      mint: String(t.mint),
      amount: BigInt(String(t.amount ?? "0")),
      decimals: Number(t.decimals ?? 0),
    }))
    .filter((t) => t.amount > 0n);
}

/** The wallet's NFTs of every standard (classic, programmable, Core, compressed), as the API reads them. */
export function useWalletNfts(owner: string, options: { enabled?: boolean } = {}) {
  return useApiQuery("assets", "/asset/assets", { pubkey: owner }, parseWalletNfts, options);
}

export function useWalletTokens(owner: string) {
  return useApiQuery("assets", "/asset/tokens", { pubkey: owner }, parseWalletTokens);
}

/** Open pools of a type over every currency. */
export function useOpenPools(type: "nft-pool" | "defi-pool") {
  return useApiQuery("pool", "/dirty/pools", { type, status: "Open", limit: 100 }, parsePoolPage);
}

/**
 * What borrowing `amount` against `nftMint` from `pool` takes in SOL besides the loan (fee, rent of the accounts the
 * transaction opens), measured by the API on the transaction it would build (POST /nft/quote naming the NFT and the
 * borrower); idle until every input is known.
 */
export function useLoanCosts(input: {
  nftMint: string | undefined;
  borrower: string | undefined;
  pool: string;
  amount: bigint | null;
  durationSeconds: number | null;
}) {
  const { config } = useAppContext();
  const options = getQuoteOptions(useSettings());
  const { nftMint, borrower, pool, amount, durationSeconds } = input;
  return useQuery({
    queryKey: [
      "loan-costs",
      config.apiUrl,
      nftMint,
      borrower,
      pool,
      amount?.toString(),
      durationSeconds,
      options,
    ],
    enabled: nftMint !== undefined && borrower !== undefined && amount !== null && durationSeconds !== null,
    queryFn: async (): Promise<TransactionCosts | null> => {
      const quote = await requestJson<{ costs?: unknown }>(`${config.apiUrl}/nft/quote`, {
        body: { nftMint, borrower, pool, amount: amount!.toString(), duration: durationSeconds, options },
      });
      return parseTransactionCosts(quote.costs);
    },
    retry: false,
    staleTime: 15_000,
  });
}
