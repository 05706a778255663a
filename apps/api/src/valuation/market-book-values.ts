import { address } from "@cistern/sdk";
import type { NftMarketVenue } from "../venues/nft/nft-market-venue.ts";
import { decideNftValue, summariseBook } from "./nft-value-rule.ts";
import type { CollectionReading, CollectionValueSource } from "./valuation-types.ts";

const SOL_MINT = "So11111111111111111111111111111111111111112";
const SOL_DECIMALS = 9;

/**
 * Collection values on the localnet from the local NFT market program's live book (its listings and collection
 * bids, read through the market venue): every listing and bid in a currency with a reliable price is converted
 * into lamports (rounded down) and the conservative rule (nft-value-rule.ts) decides the value.
 */
export function createMarketBookValueSource(
  market: NftMarketVenue,
  options: { refreshMs?: number; now?: () => number; decimals: (mint: string) => number },
): CollectionValueSource {
  const now = options.now ?? (() => Date.now() / 1000);
  return {
    name: "nft-market",
    refreshMs: options.refreshMs ?? 1_000,
    async fetchCollections(collections, tokens) {
      const sol = tokens.get(SOL_MINT);
      // SOL first: its book is read whatever the other prices; others only with SOL's and their own price
      const currencies = [SOL_MINT, ...(sol ? [...tokens.keys()].filter((m) => m !== SOL_MINT) : [])];
      const toLamports = (amount: bigint, mint: string): bigint => {
        if (mint === SOL_MINT) return amount;
        const price = tokens.get(mint)!.priceNanos;
        return (
          (amount * price * 10n ** BigInt(SOL_DECIMALS)) /
          (10n ** BigInt(options.decimals(mint)) * sol!.priceNanos)
        );
      };
      const out = new Map<string, CollectionReading>();
      const at = now();
      await Promise.all(
        collections.map(async (c, n) => {
          // the whole book is read fresh once a refresh (by the first collection's first view, which starts the
          // read before the others ask); every other view reuses that read
          const books = [];
          for (const [i, mint] of currencies.entries())
            books.push(
              await market.collection({
                collection: address(c.collectionId),
                currencyMint: address(mint),
                fresh: n === 0 && i === 0,
              }),
            );
          const listings = books.flatMap((b) => b.listings.map((l) => toLamports(l.price, b.currencyMint)));
          const bids = books.flatMap((b) => b.bids.map((x) => toLamports(x.price, b.currencyMint)));
          const decided = decideNftValue(summariseBook(listings, bids));
          out.set(c.collectionId, {
            collection: c.collectionId,
            ...decided,
            observedAt: at,
            source: "nft-market",
          });
        }),
      );
      return out;
    },
  };
}
