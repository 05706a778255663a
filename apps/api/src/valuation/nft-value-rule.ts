/**
 * The conservative value of one NFT of a collection, from its market book (every listing and collection bid
 * converted into lamports of SOL, rounded down):
 *
 *   value = min(floor, best bid x 125%), and only when the book holds at least 2 listings and 1 bid.
 *
 * - floor: the cheapest listing. A listing can only pull the value down; to push it up, all cheaper listings must
 *   be bought first, and the value can never exceed 125% of the best standing bid.
 * - best bid: money escrowed by a buyer (anyone may sell into it), the market's own backstop; a single bid can raise
 *   the value only as far as the floor, and a single listing alone (no second listing, or no bid) gives no value.
 * At 80% LTV or less, a loan against `value` is covered by the best bid that set the cap (0.8 x 1.25 = 1).
 */
export const NFT_VALUE_MIN_LISTINGS = 2;
export const NFT_VALUE_MIN_BIDS = 1;
/** The value is at most this share of the best bid, basis points. */
export const NFT_VALUE_BID_CAP_BPS = 12_500n;

export interface NftValueDecision {
  valueLamports: bigint | null;
  floorLamports: bigint | null;
  bestBidLamports: bigint | null;
  listings: number;
  bids: number;
  /** Why there is no value ("2 listings needed, 1 found"), or null. */
  refusal: string | null;
}

/** A market's side of a collection in lamports: its floor, best bid and how many listings and bids stand. */
export interface NftBook {
  floorLamports: bigint | null;
  bestBidLamports: bigint | null;
  listings: number;
  bids: number;
}

/** The book of individual listing and bid prices (the local market's accounts). */
export function summariseBook(listingsLamports: readonly bigint[], bidsLamports: readonly bigint[]): NftBook {
  return {
    floorLamports: listingsLamports.reduce<bigint | null>((m, p) => (m === null || p < m ? p : m), null),
    bestBidLamports: bidsLamports.reduce<bigint | null>((m, p) => (m === null || p > m ? p : m), null),
    listings: listingsLamports.length,
    bids: bidsLamports.length,
  };
}

/** Applies the rule to a book. */
export function decideNftValue(book: NftBook): NftValueDecision {
  if (book.listings < NFT_VALUE_MIN_LISTINGS || book.floorLamports === null)
    return {
      ...book,
      valueLamports: null,
      refusal: `${NFT_VALUE_MIN_LISTINGS} listings needed, ${book.listings} found`,
    };
  if (book.bids < NFT_VALUE_MIN_BIDS || book.bestBidLamports === null)
    return { ...book, valueLamports: null, refusal: "no collection bid" };
  const cap = (book.bestBidLamports * NFT_VALUE_BID_CAP_BPS) / 10_000n;
  return { ...book, valueLamports: book.floorLamports < cap ? book.floorLamports : cap, refusal: null };
}
