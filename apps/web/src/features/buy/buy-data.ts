import type { MortgageTerms } from "@cistern/protocol";
import { useQuery } from "@tanstack/react-query";
import { useAppContext } from "../../app-context.ts";
import { useSettings } from "../../settings/settings-store.ts";
import { requestJson } from "../../tx/http-client.ts";
import { getQuoteOptions } from "../../tx/quote-options.ts";

/**
 * An NFT for sale (GET /nft/mortgage-listings), with the mortgage-enabled pools that would lend on it (none for a
 * compressed NFT); every one is bought outright through POST /nft/buy, whatever its standard.
 */
export interface MortgageListing {
  listing: {
    mint: string;
    collection: string;
    seller: string;
    currency: string;
    price: string;
    /** The NFT's standard when the market records it: a loan buys a classic NFT or a Core asset, the others outright. */
    standard?: "classic" | "programmable" | "core" | "compressed";
  };
  pools: { pool: string; mortgageAprBps: number; ltvBps: number; maxDurationSeconds: number }[];
}

/** NFTs for sale (in the collections of mortgage-enabled pools, and compressed ones), by currency, cheapest first. */
export function useMortgageListings() {
  const { config } = useAppContext();
  return useQuery({
    queryKey: ["market", "mortgage-listings"],
    queryFn: () => requestJson<MortgageListing[]>(`${config.apiUrl}/nft/mortgage-listings`),
  });
}

/** The exact terms of buying `mint` with a mortgage of `durationSeconds` (POST /nft/take-mortgage-quote). */
export function useMortgageTerms(input: { buyer: string; mint: string; durationSeconds: number }) {
  const { config } = useAppContext();
  // the fee options the build sends, so the costs the quote measures are the built transaction's
  const options = getQuoteOptions(useSettings());
  return useQuery({
    queryKey: ["market", "mortgage-quote", input.buyer, input.mint, input.durationSeconds, options],
    queryFn: () =>
      requestJson<MortgageTerms>(`${config.apiUrl}/nft/take-mortgage-quote`, {
        body: { buyer: input.buyer, nftMint: input.mint, duration: input.durationSeconds, options },
      }),
    retry: false,
  });
}

/** Durations a buyer may choose, days: a week, two, a month, up to the pools' longest. */
export function getMortgageDurationsDays(maxDurationSeconds: number): number[] {
  const longest = Math.floor(maxDurationSeconds / 86_400);
  const choices = [7, 14, 30, 60, 90].filter((d) => d <= longest);
  return choices.length > 0 && choices.at(-1) === longest
    ? choices
    : [...choices, longest].filter((d) => d >= 1);
}
