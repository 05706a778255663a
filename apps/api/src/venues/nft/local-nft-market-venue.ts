import {
  type AccountReader,
  addressFromBytes,
  decodeMarketBid,
  decodeMarketListing,
  decodeMetadata,
  decodeVenuesAccount,
  findMarketListingPda,
  findMetadataPda,
  findVenuesPda,
  getBuyCompressedNftInstruction,
  getBuyCoreAssetInstruction,
  getBuyNftInstruction,
  getBuyPnftInstruction,
  getDelistCompressedNftInstruction,
  getDelistCoreAssetInstruction,
  getDelistNftInstruction,
  getDelistPnftInstruction,
  getListCompressedNftInstruction,
  getListCoreAssetInstruction,
  getListNftInstruction,
  getListPnftInstruction,
  getSellCompressedNftToBidInstruction,
  getSellCoreToBidInstruction,
  getSellPnftToBidInstruction,
  getSellToBidInstruction,
  MARKET_BID_SIZE,
  MARKET_LISTING_SIZE,
  type MarketListingAccount,
  NO_VENUE,
  type ProgrammableCustody,
  readNftCustody,
} from "@cistern/sdk";
import { type Address, getAddressDecoder } from "@solana/kit";
import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";
import type { RpcClient } from "../../solana/rpc-client.ts";
import {
  createAssociatedTokenIdempotent,
  findAssociatedTokenAddress,
} from "../../tx/builder/wire-instructions.ts";
import type {
  CollectionBid,
  CompressedMarketActions,
  NftListing,
  NftMarketVenue,
} from "./nft-market-venue.ts";

/** How long the market's accounts read for one answer are reused, milliseconds. */
export const MARKET_TTL_MS = 500;
/** How long a listed NFT's verified collection (its metadata) is reused, milliseconds. */
const COLLECTION_TTL_MS = 60_000;

interface MarketBook {
  listings: NftListing[];
  bids: CollectionBid[];
}

/** A Core or compressed listing records its collection (checked on chain when listed); a classic one does not. */
function recordsCollection(listing: MarketListingAccount): boolean {
  return listing.standard === "core" || listing.standard === "compressed";
}

/**
 * The embedded default's NFT market: the local market program that the lending program's Venues account pins
 * (deployed and seeded by the bootstrap). Its listings and bids are read from the chain (getProgramAccounts,
 * reused for at most MARKET_TTL_MS; a listing's collection is its NFT's verified collection, read from the
 * metadata, for a classic NFT and a pNFT alike; a Core or compressed listing's, the collection it records); instructions
 * are the program's Buy (BuyCore for a Core asset and BuyPnft for a pNFT, delivered to `nftDestination` as its new
 * owner) and SellToBid (SellPnftToBid for a pNFT, with the accounts its metadata names read from the chain); a
 * compressed listing is bought through `compressed.buy` with its leaf from DAS. Prices are checked again on chain.
 */
export function createLocalNftMarketVenue(rpc: RpcClient, lendingProgramId: Address): NftMarketVenue {
  let marketProgram: Address | undefined;
  let cached: { at: number; book: Promise<MarketBook> } | undefined;
  const read: AccountReader = async (addresses) =>
    (await rpc.getMultipleAccounts([...addresses])).accounts.map((a) =>
      a ? { owner: a.owner, data: a.data } : null,
    );

  /** A pNFT's Token Metadata accounts as `tokenAccount` holds it; null when the mint is not a pNFT. */
  async function programmable(mint: Address, tokenAccount: Address): Promise<ProgrammableCustody | null> {
    const custody = await readNftCustody(read, { mint, tokenAccount });
    return custody.standard === "ProgrammableNft" ? custody : null;
  }

  /** The listing of `mint` as the chain holds it now (400 when there is none). */
  async function listingAccount(mint: Address) {
    const programAddress = await program();
    const [listing] = await findMarketListingPda(programAddress, mint);
    const [account] = (await rpc.getMultipleAccounts([listing])).accounts;
    if (!account || account.owner !== programAddress || account.data.length !== MARKET_LISTING_SIZE)
      throw new ApiError(ERROR_CODES.INVALID_INPUT, "This NFT is not listed on the market.");
    return { programAddress, listing, decoded: decodeMarketListing(account.data) };
  }

  async function program(): Promise<Address> {
    if (marketProgram !== undefined) return marketProgram;
    const [venues] = await findVenuesPda(lendingProgramId);
    const [account] = (await rpc.getMultipleAccounts([venues])).accounts;
    const pinned = account ? decodeVenuesAccount(account.data).marketProgram : NO_VENUE;
    if (pinned === NO_VENUE)
      throw new ApiError(
        ERROR_CODES.UPSTREAM_FAILED,
        "no NFT market is pinned in the lending program's venues",
      );
    marketProgram = pinned;
    return pinned;
  }

  // a listed NFT's verified collection, by mint, read from its metadata at most every COLLECTION_TTL_MS (the
  // valuation reads the book every second: the listings seen before cost no PDA derivation nor metadata read)
  const collectionOfMint = new Map<string, { at: number; collection: Address | null }>();
  async function collectionsOf(mints: Address[]): Promise<(Address | null)[]> {
    const now = Date.now();
    const stale = [...new Set(mints)].filter((m) => {
      const hit = collectionOfMint.get(m);
      return hit === undefined || now - hit.at > COLLECTION_TTL_MS;
    });
    if (stale.length > 0) {
      const metadata = await Promise.all(stale.map((m) => findMetadataPda(m)));
      const metas = (await rpc.getMultipleAccounts(metadata.map(([m]) => m))).accounts;
      const decoder = getAddressDecoder();
      stale.forEach((mint, i) => {
        const meta = metas[i];
        const collection = meta ? decodeMetadata(meta.data).collection : null;
        // only verified members of a collection are offered (a mortgage checks the same on chain)
        collectionOfMint.set(mint, {
          at: now,
          collection: collection === null || !collection.verified ? null : decoder.decode(collection.key),
        });
      });
    }
    return mints.map((m) => collectionOfMint.get(m)?.collection ?? null);
  }

  async function readBook(): Promise<MarketBook> {
    const { accounts } = await rpc.getProgramAccounts(await program());
    const listings = accounts
      .filter((a) => a.data.length === MARKET_LISTING_SIZE && a.data[0] === 1)
      .map((a) => ({ address: a.pubkey, listing: decodeMarketListing(a.data) }));
    // a Core listing records the collection its asset names (checked on chain at ListCore), a compressed one the
    // collection its leaf's metadata names verified (checked by Bubblegum's transfer at ListCnft); a classic or pNFT
    // one's is its NFT's verified collection
    const classic = listings.filter(
      (l) => l.listing.standard === "classic" || l.listing.standard === "programmable",
    );
    const classicCollections = await collectionsOf(classic.map((l) => l.listing.nftMint));
    const collectionOfListing = new Map(classic.map((l, i) => [l.address, classicCollections[i]]));
    const withCollection: NftListing[] = [];
    listings.forEach((l) => {
      const collection = recordsCollection(l.listing) ? l.listing.escrow : collectionOfListing.get(l.address);
      if (collection === null || collection === undefined) return;
      withCollection.push({
        mint: l.listing.nftMint,
        collection,
        seller: l.listing.seller,
        currencyMint: l.listing.currencyMint,
        price: l.listing.price,
        listing: l.address,
        standard: l.listing.standard,
      });
    });
    const bids = accounts
      .filter((a) => a.data.length === MARKET_BID_SIZE && a.data[0] === 2)
      .map((a) => {
        const b = decodeMarketBid(a.data);
        return {
          collection: b.collection,
          bidder: b.bidder,
          currencyMint: b.currencyMint,
          price: b.price,
          bid: a.pubkey as Address,
        };
      });
    return { listings: withCollection, bids };
  }

  function book(fresh = false): Promise<MarketBook> {
    const now = Date.now();
    if (fresh || cached === undefined || now - cached.at > MARKET_TTL_MS) {
      const pending = readBook();
      cached = { at: now, book: pending };
      pending.catch(() => {
        if (cached?.book === pending) cached = undefined;
      });
    }
    return cached.book;
  }

  const compressed: CompressedMarketActions = {
    async list({ seller, leaf, currencyMint, price }) {
      return getListCompressedNftInstruction({
        programAddress: await program(),
        seller,
        leaf,
        currencyMint,
        price,
      });
    },
    async delist({ seller, listing, leaf }) {
      return getDelistCompressedNftInstruction({
        programAddress: await program(),
        seller,
        listing: listing.listing as Address,
        leaf,
      });
    },
    async buy({ listing, buyer, payFrom, newOwner, leaf, maxPrice }) {
      return getBuyCompressedNftInstruction({
        programAddress: await program(),
        buyer,
        listing: listing.listing as Address,
        payFrom,
        sellerCurrencyAccount: await findAssociatedTokenAddress(listing.seller, listing.currencyMint),
        newOwner,
        seller: listing.seller,
        leaf,
        maxPrice,
      });
    },
    async sell({ bid, seller, sellerSignsByCpi, leaf, proceeds, minPrice }) {
      const programAddress = await program();
      const { accounts } = await rpc.getMultipleAccounts([bid.bid]);
      const account = accounts[0];
      if (!account || account.owner !== programAddress)
        throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, "the bid is gone");
      return getSellCompressedNftToBidInstruction({
        programAddress,
        seller,
        sellerSignsByCpi,
        bid: bid.bid,
        vault: decodeMarketBid(account.data).vault,
        bidder: bid.bidder,
        proceeds,
        leaf,
        minPrice,
      });
    },
  };

  return {
    name: "local",
    compressed,
    async collection({ collection, currencyMint, fresh }) {
      const { listings, bids } = await book(fresh);
      const ours = listings
        .filter((l) => l.collection === collection && l.currencyMint === currencyMint)
        .sort((a, b) => (a.price < b.price ? -1 : a.price > b.price ? 1 : a.mint < b.mint ? -1 : 1));
      const offers = bids
        .filter((b) => b.collection === collection && b.currencyMint === currencyMint)
        .sort((a, b) => (a.price > b.price ? -1 : a.price < b.price ? 1 : a.bid < b.bid ? -1 : 1));
      return {
        collection,
        currencyMint,
        floorPrice: ours[0]?.price ?? null,
        bestBidPrice: offers[0]?.price ?? null,
        listings: ours,
        bids: offers,
      };
    },
    async listingOf(mint) {
      // read fresh (not the cached book): a builder request follows a listing the user just saw
      const programAddress = await program();
      const [listing] = await findMarketListingPda(programAddress, mint);
      const [metadata] = await findMetadataPda(mint);
      const [account, meta] = (await rpc.getMultipleAccounts([listing, metadata])).accounts;
      if (!account || account.owner !== programAddress || account.data.length !== MARKET_LISTING_SIZE)
        return null;
      const decoded = decodeMarketListing(account.data);
      if (recordsCollection(decoded))
        return {
          mint,
          collection: decoded.escrow,
          seller: decoded.seller,
          currencyMint: decoded.currencyMint,
          price: decoded.price,
          listing,
          standard: decoded.standard,
        };
      const collection = meta ? decodeMetadata(meta.data).collection : null;
      if (collection === null || !collection.verified) return null;
      return {
        mint,
        collection: addressFromBytes(collection.key),
        seller: decoded.seller,
        currencyMint: decoded.currencyMint,
        price: decoded.price,
        listing,
        standard: decoded.standard,
      };
    },
    async buyInstruction({ listing, buyer, payFrom, nftDestination, maxPrice }) {
      const programAddress = await program();
      const listingAddress = listing.listing as Address;
      const [decoded, sellerCurrency] = await Promise.all([
        rpc.getMultipleAccounts([listingAddress]).then(({ accounts: [a] }) => {
          if (!a || a.owner !== programAddress)
            throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, "the listing is gone");
          return decodeMarketListing(a.data);
        }),
        findAssociatedTokenAddress(listing.seller, listing.currencyMint),
      ]);
      if (decoded.standard === "compressed")
        throw new ApiError(
          ERROR_CODES.UPSTREAM_FAILED,
          "a compressed NFT's listing is bought with its leaf from DAS (the venue's compressed.buy)",
        );
      if (decoded.standard === "programmable") {
        const nft = await programmable(decoded.nftMint, decoded.escrow);
        if (nft === null)
          throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, "the listed pNFT's metadata is gone");
        return getBuyPnftInstruction({
          programAddress,
          buyer,
          payFrom,
          sellerCurrencyAccount: sellerCurrency,
          seller: listing.seller,
          newOwner: nftDestination,
          nft,
          maxPrice,
        });
      }
      if (decoded.standard === "core")
        return getBuyCoreAssetInstruction({
          programAddress,
          buyer,
          listing: listingAddress,
          payFrom,
          sellerCurrencyAccount: sellerCurrency,
          newOwner: nftDestination,
          seller: listing.seller,
          asset: decoded.nftMint,
          collection: decoded.escrow,
          maxPrice,
        });
      return getBuyNftInstruction({
        programAddress,
        buyer,
        listing: listingAddress,
        escrow: decoded.escrow,
        payFrom,
        sellerCurrencyAccount: sellerCurrency,
        nftDestination,
        seller: listing.seller,
        maxPrice,
      });
    },
    async listInstructions({ seller, nftMint, currencyMint, price }) {
      const programAddress = await program();
      const sellerNftAccount = await findAssociatedTokenAddress(seller, nftMint);
      const custody = await readNftCustody(read, { mint: nftMint, tokenAccount: sellerNftAccount });
      if (custody.standard === "ProgrammableNft")
        return [await getListPnftInstruction({ programAddress, seller, nft: custody, currencyMint, price })];
      if (custody.standard === "CoreNft") {
        if (custody.collection === null)
          throw new ApiError(
            ERROR_CODES.INVALID_INPUT,
            "This Core asset belongs to no collection, so it cannot be listed.",
          );
        return [
          await getListCoreAssetInstruction({
            programAddress,
            seller,
            asset: nftMint,
            collection: custody.collection,
            currencyMint,
            price,
          }),
        ];
      }
      if (custody.standard !== "Nft")
        throw new ApiError(
          ERROR_CODES.INVALID_INPUT,
          "A compressed NFT cannot be listed on this market yet.",
        );
      return [
        await getListNftInstruction({
          programAddress,
          seller,
          nftMint,
          sellerNftAccount,
          currencyMint,
          price,
        }),
      ];
    },
    async delistInstructions({ seller, nftMint }) {
      const { programAddress, listing, decoded } = await listingAccount(nftMint);
      if (decoded.seller !== seller)
        throw new ApiError(ERROR_CODES.INVALID_INPUT, "Only the seller can withdraw this listing.");
      if (decoded.standard === "core")
        return [
          getDelistCoreAssetInstruction({
            programAddress,
            seller,
            listing,
            asset: nftMint,
            collection: decoded.escrow,
          }),
        ];
      if (decoded.standard === "programmable") {
        const nft = await programmable(nftMint, decoded.escrow);
        if (nft === null)
          throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, "the listed pNFT's metadata is gone");
        return [await getDelistPnftInstruction({ programAddress, seller, nft })];
      }
      const back = await findAssociatedTokenAddress(seller, nftMint);
      return [
        createAssociatedTokenIdempotent(seller, back, seller, nftMint),
        getDelistNftInstruction({
          programAddress,
          seller,
          listing,
          escrow: decoded.escrow,
          sellerNftAccount: back,
        }),
      ];
    },
    async sellInstructions({ bid, nftMint, seller, sellerSignsByCpi, nftSource, proceeds, minPrice, payer }) {
      const programAddress = await program();
      const [{ accounts }, bidderNft] = await Promise.all([
        rpc.getMultipleAccounts([bid.bid]),
        findAssociatedTokenAddress(bid.bidder, nftMint),
      ]);
      const account = accounts[0];
      if (!account || account.owner !== programAddress)
        throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, "the bid is gone");
      const decoded = decodeMarketBid(account.data);
      const custody = await readNftCustody(read, { mint: nftMint, tokenAccount: nftSource });
      if (custody.standard === "CoreNft")
        return {
          setup: [],
          sale: getSellCoreToBidInstruction({
            programAddress,
            seller,
            bid: bid.bid,
            vault: decoded.vault,
            bidder: bid.bidder,
            asset: nftMint,
            collection: bid.collection,
            proceeds,
            minPrice,
          }),
        };
      const nft = custody.standard === "ProgrammableNft" ? custody : null;
      // a pNFT: Token Metadata creates the bidder's token account and record (the payer paying) in the sale
      if (nft !== null)
        return {
          setup: [],
          sale: await getSellPnftToBidInstruction({
            programAddress,
            seller,
            sellerSignsByCpi,
            payer,
            bid: bid.bid,
            vault: decoded.vault,
            bidder: bid.bidder,
            nft,
            proceeds,
            minPrice,
          }),
        };
      return {
        setup: [createAssociatedTokenIdempotent(payer, bidderNft, bid.bidder, nftMint)],
        sale: await getSellToBidInstruction({
          programAddress,
          seller,
          sellerSignsByCpi,
          bid: bid.bid,
          vault: decoded.vault,
          bidder: bid.bidder,
          nftMint,
          nftSource,
          bidderNftAccount: bidderNft,
          proceeds,
          minPrice,
        }),
      };
    },
  };
}
