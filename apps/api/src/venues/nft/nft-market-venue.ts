import type { Address, Instruction } from "@solana/kit";

/** An NFT for sale at a fixed price. Amounts in base units of `currencyMint`. */
export interface NftListing {
  mint: Address;
  collection: Address;
  seller: Address;
  currencyMint: Address;
  price: bigint;
  /** The venue's listing account (local market) or order id (Tensor), as its buy instruction needs it. */
  listing: string;
}

/** An offer to buy any NFT of a collection. Amounts in base units of `currencyMint`. */
export interface CollectionBid {
  collection: Address;
  bidder: Address;
  currencyMint: Address;
  price: bigint;
  /** The venue's bid account. */
  bid: Address;
}

/** The market's side of one collection in one currency: listings cheapest first, bids best first. */
export interface CollectionMarket {
  collection: Address;
  currencyMint: Address;
  /** The cheapest listing's price (null: nothing listed). */
  floorPrice: bigint | null;
  /** The best bid's price (null: no bid). */
  bestBidPrice: bigint | null;
  listings: NftListing[];
  bids: CollectionBid[];
}

/**
 * An NFT market in the production API's shapes (Tensor: collection stats, active listings, buy and sell
 * transactions), so the builder has one interface whichever venue answers: the local NFT market program on
 * localnet, Tensor in production.
 */
export interface NftMarketVenue {
  readonly name: "local" | "tensor";
  /**
   * Listings and bids of `collection` in `currencyMint` (`slug`: the collection's Tensor slug, when known).
   * `fresh`: read now, not a cached answer (a builder deciding a sale).
   */
  collection(input: {
    collection: Address;
    currencyMint: Address;
    slug?: string;
    fresh?: boolean;
  }): Promise<CollectionMarket>;
  /** The listing of one NFT, or null when it is not for sale. */
  listingOf(mint: Address): Promise<NftListing | null>;
  /**
   * The venue instruction that buys `listing` for `buyer` (a signer of the transaction), paying from `payFrom`
   * at most `maxPrice` and delivering the NFT to `nftDestination` (a loan's escrow, for a mortgage; for a Core
   * asset, its new owner).
   */
  buyInstruction(input: {
    listing: NftListing;
    buyer: Address;
    payFrom: Address;
    nftDestination: Address;
    maxPrice: bigint;
  }): Promise<Instruction>;
  /**
   * The instructions that sell the NFT in `nftSource` (authority `seller`; `sellerSignsByCpi` when a program
   * signs for it, as a loan does for its escrow) into `bid`, paying at least `minPrice` into `proceeds`.
   * `setup` runs before the sale (e.g. the bidder's token account for the NFT, paid by `payer`). A Metaplex Core
   * asset (`core`: the collection it names): `nftMint` and `nftSource` are the asset, `seller` its owner.
   */
  sellInstructions(input: {
    bid: CollectionBid;
    nftMint: Address;
    seller: Address;
    sellerSignsByCpi: boolean;
    nftSource: Address;
    proceeds: Address;
    minPrice: bigint;
    payer: Address;
    core?: { collection: Address };
  }): Promise<{ setup: Instruction[]; sale: Instruction }>;
}
