import { address } from "@cistern/sdk";
import {
  type Address,
  decompileTransactionMessage,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Instruction,
} from "@solana/kit";
import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";
import type { NftListing, NftMarketVenue } from "./nft-market-venue.ts";

/** Tensor's REST API (keyed: `x-tensor-api-key`). */
export const TENSOR_API_URL = "https://api.mainnet.tensordev.io/api/v1";
/** Tensor prices in SOL (lamports): the only currency this adapter answers for. */
const SOL = address("So11111111111111111111111111111111111111112");
/** Programs around the market instruction in Tensor's transactions (not the sale itself). */
const FRAME_PROGRAMS = new Set([
  "ComputeBudget111111111111111111111111111111",
  "11111111111111111111111111111111",
  "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
]);

/** `GET /collections/find_collection?filter=` (the fields this adapter reads). */
export interface TensorCollection {
  collId: string;
  slug: string;
  stats?: {
    priceUnit?: string;
    buyNowPrice?: string | null;
    sellNowPrice?: string | null;
    numListed?: number;
  };
}

/** One mint of `GET /mint/active_listings` or `GET /mint?mints=`. */
export interface TensorMint {
  mint: string;
  collId?: string;
  listing?: { price: string; seller: string; source?: string } | null;
}

/** `GET /tx/buy` and `GET /tx/sell`: serialized transactions to sign. */
export interface TensorTxs {
  txs: {
    tx: unknown;
    txV0: string | { type: "Buffer"; data: number[] } | null;
    lastValidBlockHeight: number | null;
  }[];
}

/**
 * The production NFT market: Tensor's REST API, thin. Reads a collection's floor and top bid
 * (`find_collection` stats: buyNowPrice, sellNowPrice, lamports), its active listings cheapest first, one mint's
 * listing; and takes the market instruction out of the transaction Tensor builds for a buy or a sell (`tx/buy`,
 * `tx/sell`) so the lending program can invoke it. Tensor prices in SOL only. Tensor's individual collection
 * bids are not in the responses this adapter holds: `bids` is empty and the best bid is the stats' price.
 */
export function createTensorNftMarketVenue(options: {
  baseUrl?: string;
  apiKey?: string;
  /** The cluster's recent blockhash, which Tensor's transaction routes ask for. */
  blockhash: () => Promise<string>;
  /** The collection's Tensor slug, when the API names it. */
  slugOf?: (collection: Address) => Promise<string | null>;
}): NftMarketVenue {
  const base = (options.baseUrl || TENSOR_API_URL).replace(/\/$/, "");
  async function get<T>(path: string, query: Record<string, string>): Promise<T> {
    const url = `${base}${path}?${new URLSearchParams(query)}`;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: {
          accept: "application/json",
          ...(options.apiKey ? { "x-tensor-api-key": options.apiKey } : {}),
        },
        signal: AbortSignal.timeout(30_000),
      });
    } catch (cause) {
      throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `Tensor ${path} unreachable`, { cause });
    }
    if (!response.ok)
      throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, `Tensor ${path} answered ${response.status}`);
    return (await response.json()) as T;
  }

  const toListing = (m: TensorMint, collection: Address): NftListing | null =>
    m.listing
      ? {
          mint: address(m.mint),
          collection,
          seller: address(m.listing.seller),
          currencyMint: SOL,
          price: BigInt(m.listing.price),
          listing: m.mint,
        }
      : null;

  /** The one instruction of Tensor's transaction that is not compute budget, system, token or ATA work. */
  function marketInstruction(response: TensorTxs): Instruction {
    const wire = response.txs[0]?.txV0;
    if (!wire) throw new ApiError(ERROR_CODES.UPSTREAM_FAILED, "Tensor returned no transaction");
    const bytes = typeof wire === "string" ? Buffer.from(wire, "base64") : Uint8Array.from(wire.data);
    const { messageBytes } = getTransactionDecoder().decode(bytes);
    const message = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(messageBytes));
    const market = message.instructions.filter((ix) => !FRAME_PROGRAMS.has(ix.programAddress));
    if (market.length !== 1)
      throw new ApiError(
        ERROR_CODES.UPSTREAM_FAILED,
        `Tensor's transaction holds ${market.length} market instructions`,
      );
    return market[0]!;
  }

  return {
    name: "tensor",
    async collection({ collection, currencyMint, slug }) {
      const filter = slug ?? (await options.slugOf?.(collection)) ?? null;
      const empty = {
        collection,
        currencyMint,
        floorPrice: null,
        bestBidPrice: null,
        listings: [],
        bids: [],
      };
      if (filter === null || currencyMint !== SOL) return empty;
      const found = await get<TensorCollection>("/collections/find_collection", { filter });
      const listed = await get<{ mints: TensorMint[] }>("/mint/active_listings", {
        collId: found.collId,
        sortBy: "ListingPriceAsc",
        limit: "50",
      });
      const listings = listed.mints
        .map((m) => toListing(m, collection))
        .filter((l): l is NftListing => l !== null);
      const stat = (v: string | null | undefined) => (v ? BigInt(v) : null);
      return {
        ...empty,
        floorPrice: listings[0]?.price ?? stat(found.stats?.buyNowPrice),
        bestBidPrice: stat(found.stats?.sellNowPrice),
        listings,
      };
    },
    async listingOf(mint) {
      const [found] = await get<TensorMint[]>("/mint", { mints: mint });
      // a Tensor listing's collection is its collId; the builder checks the verified collection on chain
      return found ? toListing(found, address(mint)) : null;
    },
    async buyInstruction({ listing, buyer, maxPrice }) {
      const txs = await get<TensorTxs>("/tx/buy", {
        buyer,
        mint: listing.mint,
        owner: listing.seller,
        maxPrice: maxPrice.toString(),
        blockhash: await options.blockhash(),
      });
      return marketInstruction(txs);
    },
    async sellInstructions({ bid, nftMint, seller, minPrice }) {
      const txs = await get<TensorTxs>("/tx/sell", {
        seller,
        mint: nftMint,
        bidAddress: bid.bid,
        minPrice: minPrice.toString(),
        blockhash: await options.blockhash(),
      });
      return { setup: [], sale: marketInstruction(txs) };
    },
  };
}
