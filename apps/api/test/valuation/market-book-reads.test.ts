import { describe, expect, it } from "vitest";
import { createMarketBookValueSource } from "../../src/valuation/market-book-values.ts";
import type { TokenReading } from "../../src/valuation/valuation-types.ts";
import type { NftMarketVenue } from "../../src/venues/nft/nft-market-venue.ts";

const SOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const COLLECTIONS = [
  "Gz1cuWmuaQymLXD5XVqKey3DwDFsJqVT9yVRPwmKxU7Q",
  "DMRNzqaFoaoaVmVnzTv4YsCHM8rVUrymgtyv2MYeebsL",
  "9svEWxYEKTrY1fvt6rRMaVJk4wvhu8R6RScWzAvVv7rQ",
];

/** A market whose book answers every view empty, counting the views that asked for a fresh read. */
function countingMarket() {
  const asked = { fresh: 0, all: 0 };
  const market = {
    name: "local",
    async collection({ collection, currencyMint, fresh }) {
      asked.all++;
      if (fresh) asked.fresh++;
      return { collection, currencyMint, floorPrice: null, bestBidPrice: null, listings: [], bids: [] };
    },
  } as Pick<NftMarketVenue, "name" | "collection"> as NftMarketVenue;
  return { market, asked };
}

const reading = (mint: string, priceNanos: bigint): TokenReading => ({
  mint,
  priceNanos,
  confidenceNanos: 0n,
  observedAt: 0,
  source: "test",
});

describe("collection values from the local market's book", () => {
  it("read the whole book fresh once a refresh, whatever the number of collections and currencies", async () => {
    const { market, asked } = countingMarket();
    const source = createMarketBookValueSource(market, { decimals: (m) => (m === SOL ? 9 : 6) });
    const tokens = new Map([
      [SOL, reading(SOL, 150_000_000_000n)],
      [USDC, reading(USDC, 1_000_000_000n)],
    ]);
    await source.fetchCollections(
      COLLECTIONS.map((collectionId) => ({
        collectionId,
        name: collectionId,
        magicEdenSlug: "",
        tensorSlug: "",
      })),
      tokens,
    );
    expect(asked).toEqual({ fresh: 1, all: COLLECTIONS.length * 2 });
  });
});
