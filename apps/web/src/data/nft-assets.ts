import { useQueries } from "@tanstack/react-query";
import { useAppContext } from "../app-context.ts";
import { type NftStandard, parseNftStandard } from "../features/borrow/nft-standard.ts";
import { requestJson } from "../tx/http-client.ts";

/** An NFT's name, image and standard as the API reads them (GET /asset/asset). */
export interface NftAsset {
  mint: string;
  name: string;
  /** Image URL; "" when the metadata has none. */
  image: string;
  /** Its standard as the API names it (nftType); null when the answer names none. */
  standard: NftStandard | null;
}

/** Parses GET /asset/asset: null for an unknown mint or an answer without a name. */
export function parseNftAsset(body: unknown): NftAsset | null {
  if (body === null || typeof body !== "object") return null;
  const raw = body as Record<string, unknown>;
  if (typeof raw.mint !== "string" || typeof raw.name !== "string" || raw.name.trim() === "") return null;
  return {
    mint: raw.mint,
    name: raw.name.trim(),
    image: typeof raw.image === "string" ? raw.image : "",
    standard: parseNftStandard(raw.nftType),
  };
}

/**
 * Names and images of NFT mints from the API (one GET /asset/asset each, cached for ten minutes); a mint the API
 * does not know is left out, never guessed.
 */
export function useNftAssets(mints: readonly string[]): Map<string, NftAsset> {
  const { config } = useAppContext();
  const unique = [...new Set(mints.filter((m) => m !== ""))].sort();
  const results = useQueries({
    queries: unique.map((mint) => ({
      queryKey: ["nft-asset", config.apiUrl, mint],
      queryFn: async () =>
        parseNftAsset(
          await requestJson<unknown>(`${config.apiUrl}/asset/asset?mint=${encodeURIComponent(mint)}`),
        ),
      staleTime: 10 * 60_000,
      retry: false,
    })),
  });
  const out = new Map<string, NftAsset>();
  for (const result of results) if (result.data) out.set(result.data.mint, result.data);
  return out;
}
