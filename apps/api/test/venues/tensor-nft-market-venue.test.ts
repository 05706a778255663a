import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTensorNftMarketVenue } from "../../src/venues/nft/tensor-nft-market-venue.ts";
import { startHttpServer } from "../helpers/http-server.ts";

const SOL = address("So11111111111111111111111111111111111111112");
const USDC = address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
const COLLECTION = address("J1S9H3QjnRtBbbuD4HjPV6RpRhwuk4zKbxsnCHuTgh9w");
const MINT = address("7iAa1HtsX1q8fqJ6vWfKbKbXxj8fZ5yCwAuM2Vx1nY8r");
const SELLER = address("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM");
const BUYER = address("HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH");
/** Tensor's compressed-and-standard marketplace program (TComp), the program its trade transactions call. */
const TCOMP = address("TCMPhJdwDryooaGtiocG1u3xcYbRpiJzb283XfCZsDp");
const BLOCKHASH = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";

/** `find_collection` as Tensor documents it (the fields the adapter reads, lamports as strings). */
const RECORDED_COLLECTION = {
  collId: "d48ce4ec-9083-4fc9-84f8-db3f2b53ce92",
  slug: "rain_frogs",
  name: "Rain Frogs",
  stats: { priceUnit: "SOL_LAMPORT", buyNowPrice: "4100000000", sellNowPrice: "3800000000", numListed: 2 },
};
/** `mint/active_listings`, cheapest first. */
const RECORDED_LISTINGS = {
  mints: [
    { mint: MINT, listing: { price: "4100000000", seller: SELLER, source: "TCOMP" } },
    { mint: BUYER, listing: { price: "4500000000", seller: SELLER, source: "TCOMP" } },
  ],
  page: { endCursor: "cursor", hasMore: false },
};

/** A v0 transaction as Tensor's tx routes serialise it: compute budget, then the TComp instruction. */
function recordedTransaction(): { type: "Buffer"; data: number[] } {
  const tcomp = {
    programAddress: TCOMP,
    accounts: [
      { address: BUYER, role: AccountRole.WRITABLE_SIGNER },
      { address: MINT, role: AccountRole.READONLY },
      { address: SELLER, role: AccountRole.WRITABLE },
    ],
    data: Uint8Array.from([102, 6, 61, 18, 1, 218, 235, 234, 0, 64, 89, 1, 0, 0, 0, 0]),
  };
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(BUYER, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: BLOCKHASH as never, lastValidBlockHeight: 1n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          {
            programAddress: address("ComputeBudget111111111111111111111111111111"),
            data: Uint8Array.from([2, 64, 13, 3, 0]),
          },
          tcomp,
        ],
        m,
      ),
  );
  const bytes = getTransactionEncoder().encode(compileTransaction(message));
  return { type: "Buffer", data: [...bytes] };
}

describe("the Tensor NFT market adapter, against a server answering Tensor's documented shapes", () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  let failNext = false;
  const headers: string[] = [];
  beforeAll(async () => {
    server = await startHttpServer((req, res) => {
      headers.push(String(req.headers["x-tensor-api-key"] ?? ""));
      const url = new URL(req.url!, "http://x");
      res.setHeader("content-type", "application/json");
      if (failNext) {
        failNext = false;
        res.statusCode = 429;
        res.end(JSON.stringify({ message: "rate limited" }));
        return;
      }
      const body =
        url.pathname === "/collections/find_collection"
          ? RECORDED_COLLECTION
          : url.pathname === "/mint/active_listings"
            ? RECORDED_LISTINGS
            : url.pathname === "/mint"
              ? [
                  {
                    mint: MINT,
                    collId: RECORDED_COLLECTION.collId,
                    listing: RECORDED_LISTINGS.mints[0]!.listing,
                  },
                ]
              : url.pathname === "/tx/buy" || url.pathname === "/tx/sell"
                ? {
                    txs: [{ tx: null, txV0: recordedTransaction(), lastValidBlockHeight: 300, metadata: {} }],
                  }
                : null;
      if (body === null) res.statusCode = 404;
      res.end(JSON.stringify(body ?? { message: "not found" }));
    });
  });
  afterAll(() => server.close());

  const venue = () =>
    createTensorNftMarketVenue({ baseUrl: server.url, apiKey: "key-1", blockhash: async () => BLOCKHASH });
  const asked = () => new URL(server.requests.at(-1)!.split(" ")[1]!, server.url);

  it("reads a collection's floor, top bid and listings (SOL, cheapest first) by its slug", async () => {
    const m = await venue().collection({ collection: COLLECTION, currencyMint: SOL, slug: "rain_frogs" });
    expect(m).toMatchObject({ floorPrice: 4_100_000_000n, bestBidPrice: 3_800_000_000n, bids: [] });
    expect(m.listings.map((l) => [l.mint, l.price, l.seller, l.currencyMint])).toEqual([
      [MINT, 4_100_000_000n, SELLER, SOL],
      [BUYER, 4_500_000_000n, SELLER, SOL],
    ]);
    expect(asked().pathname).toBe("/mint/active_listings");
    expect(asked().searchParams.get("collId")).toBe(RECORDED_COLLECTION.collId);
    expect(asked().searchParams.get("sortBy")).toBe("ListingPriceAsc");
    expect(headers.at(-1)).toBe("key-1");
  });

  it("answers nothing for another currency or a collection without a slug (Tensor prices in SOL)", async () => {
    const before = server.requests.length;
    expect(
      await venue().collection({ collection: COLLECTION, currencyMint: USDC, slug: "rain_frogs" }),
    ).toMatchObject({
      floorPrice: null,
      listings: [],
    });
    expect(await venue().collection({ collection: COLLECTION, currencyMint: SOL })).toMatchObject({
      listings: [],
    });
    expect(server.requests.length).toBe(before);
  });

  it("takes the market instruction out of Tensor's buy and sell transactions, asking with the documented parameters", async () => {
    const listing = await venue().listingOf(MINT);
    expect(listing).toMatchObject({ mint: MINT, price: 4_100_000_000n, seller: SELLER });
    const buy = await venue().buyInstruction({
      listing: listing!,
      buyer: BUYER,
      payFrom: BUYER,
      nftDestination: BUYER,
      maxPrice: 4_100_000_000n,
    });
    expect(buy.programAddress).toBe(TCOMP);
    expect(buy.accounts?.map((a) => [a.address, a.role])).toEqual([
      [BUYER, AccountRole.WRITABLE_SIGNER],
      [MINT, AccountRole.READONLY],
      [SELLER, AccountRole.WRITABLE],
    ]);
    expect(Object.fromEntries(asked().searchParams)).toEqual({
      buyer: BUYER,
      mint: MINT,
      owner: SELLER,
      maxPrice: "4100000000",
      blockhash: BLOCKHASH,
    });
    const bid = address("BdGX4VGpLSgcA5TLDUA3QMjrKnBrSG5q8SkDp6mAxHk4");
    const sale = await venue().sellInstructions({
      bid: { bid, bidder: BUYER, collection: COLLECTION, currencyMint: SOL, price: 3_800_000_000n },
      nftMint: MINT,
      seller: SELLER,
      sellerSignsByCpi: false,
      nftSource: SELLER,
      proceeds: SELLER,
      minPrice: 3_800_000_000n,
      payer: SELLER,
    });
    expect(sale.sale.programAddress).toBe(TCOMP);
    expect(Object.fromEntries(asked().searchParams)).toMatchObject({
      seller: SELLER,
      mint: MINT,
      bidAddress: bid,
      minPrice: "3800000000",
    });
  });

  it("turns an error answer into the API's upstream error, not a crash", async () => {
    failNext = true;
    await expect(
      venue().collection({ collection: COLLECTION, currencyMint: SOL, slug: "rain_frogs" }),
    ).rejects.toMatchObject({ code: expect.any(Number), message: expect.stringMatching(/answered 429/) });
  });
});
