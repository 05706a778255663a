import type { MarketLeaf } from "@cistern/sdk";
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
  /**
   * The NFT's standard, when the venue knows it (the local market records it in the listing). A compressed NFT
   * (Bubblegum V1 leaf; `mint` is its asset id) is bought through `compressed.buy` with its leaf read from DAS, not
   * `buyInstruction` (nor a mortgage: the lending program buys only mints into a loan).
   */
  standard?: "classic" | "programmable" | "core" | "compressed";
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
 * A venue's instructions for compressed NFTs (Bubblegum V1 leaves). Each takes the leaf as DAS states it now (a
 * fresh proof and the root it was taken against, the leaf's hashes and MetadataArgs): a proof goes stale when
 * another leaf of the tree changes, so a builder reads it at build time.
 */
export interface CompressedMarketActions {
  /** Lists the seller's leaf at `price` (base units of `currencyMint`); the listing account is returned. */
  list(input: {
    seller: Address;
    leaf: MarketLeaf;
    currencyMint: Address;
    price: bigint;
  }): Promise<Instruction & { listing: Address }>;
  /** Takes the seller's listed leaf back. */
  delist(input: { seller: Address; listing: NftListing; leaf: MarketLeaf }): Promise<Instruction>;
  /** Buys `listing` for `buyer` (a signer), paying from `payFrom` at most `maxPrice`; the leaf goes to `newOwner`. */
  buy(input: {
    listing: NftListing;
    buyer: Address;
    payFrom: Address;
    newOwner: Address;
    leaf: MarketLeaf;
    maxPrice: bigint;
  }): Promise<Instruction>;
  /**
   * Sells `seller`'s leaf (a signer, or a program's PDA signing by CPI: `sellerSignsByCpi`) into `bid`, paying at
   * least `minPrice` into `proceeds`.
   */
  sell(input: {
    bid: CollectionBid;
    seller: Address;
    sellerSignsByCpi: boolean;
    leaf: MarketLeaf;
    proceeds: Address;
    minPrice: bigint;
  }): Promise<Instruction>;
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
   * asset or a pNFT, its new owner: a pNFT lands in the new owner's associated token account).
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
   * asset: `nftMint` and `nftSource` are the asset, `seller` its owner.
   */
  /**
   * The instructions that list `nftMint` (a classic NFT or pNFT in `seller`'s associated token account, or a Core
   * asset `seller` owns) at `price` in `currencyMint`, with the accounts its standard needs read from the chain.
   * Absent: the venue takes no listings through this API.
   */
  listInstructions?(input: {
    seller: Address;
    nftMint: Address;
    currencyMint: Address;
    price: bigint;
  }): Promise<Instruction[]>;
  /** The instructions that withdraw `seller`'s listing of `nftMint` (the NFT back to the seller). */
  delistInstructions?(input: { seller: Address; nftMint: Address }): Promise<Instruction[]>;
  sellInstructions(input: {
    bid: CollectionBid;
    nftMint: Address;
    seller: Address;
    sellerSignsByCpi: boolean;
    nftSource: Address;
    proceeds: Address;
    minPrice: bigint;
    payer: Address;
  }): Promise<{ setup: Instruction[]; sale: Instruction }>;
  /** Compressed NFTs' listings, purchases and sales; absent when the venue takes none through Cistern. */
  readonly compressed?: CompressedMarketActions;
}
