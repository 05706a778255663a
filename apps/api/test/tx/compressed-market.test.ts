// Compressed NFTs (Bubblegum V1 leaves of the demo "Cistern Shells" tree) on the local NFT market through the API's
// generic market builders (/nft/list, /nft/delist, /nft/buy, /nft/sell-to-bid, `nftMint` the asset id) on the
// localnet (the real Bubblegum, SPL Account Compression and Noop; DAS built from the chain): each builder reads the
// leaf and a fresh proof from DAS at build time. Refusals first (another owner's leaf, a stranger's
// delist, a buyer's own listing, a price that went up, no bid), then list, buy, delist and a sale into a bid, with
// ownership read back from DAS getAsset and the money from the token accounts.
import { DEMO_WORLD } from "@cistern/localnet";
import { decodeMarketListing, findMarketListingPda, getPlaceBidInstruction } from "@cistern/sdk";
import { type Address, address } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import {
  buildSignSend,
  fundedWallet,
  post,
  sendAsAdmin,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const SHELLS = DEMO_WORLD.compressedCollections[0]!;
const USDC = 1_000_000n;
const wireBytes = (b64: string) => Buffer.from(b64, "base64").length;

describe("compressed NFTs on the local NFT market through the builder (real Bubblegum, DAS from the chain)", () => {
  let w: TxWorld;
  const figures: string[] = [];

  async function dasOwner(assetId: string): Promise<string | undefined> {
    const response = await fetch(w.net.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getAsset", params: { id: assetId } }),
    });
    const body = (await response.json()) as { result?: { ownership: { owner: string } } };
    return body.result?.ownership.owner;
  }
  async function usdcOf(owner: Address): Promise<bigint> {
    const [account] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(owner, USDC_MINT)]);
    return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
  }
  const listingOf = async (assetId: string) =>
    (await findMarketListingPda(w.nftMarket!, address(assetId)))[0];

  beforeAll(async () => {
    w = await startTxWorld({ nftMarket: true });
    const admin = await fundedWallet(w.net);
    // the protocol's lookup table (Bubblegum, Compression and Noop among its addresses)
    await ensureProtocolLookupTable(w.tx, admin.signer);
  }, 180_000);
  afterAll(async () => {
    console.log(figures.join("\n"));
    await w?.close();
  });

  it("refuses to list another owner's leaf and to sell into a collection nobody bids on, before anything is built", async () => {
    const a = await fundedWallet(w.net);
    const b = await fundedWallet(w.net);
    const leaf = a.given.compressedNfts[0]!.assetId;
    const list = await post(w.app, "/nft/list", {
      seller: b.signer.address,
      nftMint: leaf,
      currency: USDC_MINT,
      price: String(300n * USDC),
    });
    expect(list.status).toBe(400);
    expect(list.body.message).toBe("You do not own this compressed NFT");
    const sell = await post(w.app, "/nft/sell-to-bid", {
      seller: a.signer.address,
      nftMint: leaf,
      currency: USDC_MINT,
    });
    expect(sell.status).toBe(422);
    expect(sell.body.message).toBe("No one bids on this collection in this currency right now.");
    const buy = await post(w.app, "/nft/buy", { buyer: b.signer.address, nftMint: leaf });
    expect(buy.status).toBe(400);
    expect(buy.body.message).toBe("This NFT is not listed for sale.");
    expect(await dasOwner(leaf)).toBe(a.signer.address);
  }, 120_000);

  it("lists a leaf, refuses a stranger's delist, the seller's own buy and a stale price, then a buyer buys it", async () => {
    const seller = await fundedWallet(w.net);
    const buyer = await fundedWallet(w.net);
    const leaf = seller.given.compressedNfts[0]!.assetId;
    const listed = await buildSignSend(
      w.app,
      "/nft/list",
      { seller: seller.signer.address, nftMint: leaf, currency: USDC_MINT, price: String(300n * USDC) },
      [seller.signer],
    );
    expect(listed.sent.error).toBeUndefined();
    figures.push(`list (compressed): ${wireBytes(listed.built.transactions[0]!)} B`);
    const listing = await listingOf(leaf);
    expect(await dasOwner(leaf)).toBe(listing);
    const [account] = await w.tx.state.getAccounts([listing]);
    expect(decodeMarketListing(account!.data)).toMatchObject({
      standard: "compressed",
      seller: seller.signer.address,
      nftMint: leaf,
      escrow: SHELLS.collectionId,
      price: 300n * USDC,
    });
    // the market's book (reused for at most half a second) shows it under its collection, and the Buy page's list
    // of NFTs for sale with no pool (no loan buys a compressed NFT)
    const shown = {
      mint: leaf,
      collection: SHELLS.collectionId,
      seller: seller.signer.address,
      currency: USDC_MINT,
      price: String(300n * USDC),
      standard: "compressed",
    };
    const get = async (url: string) => (await w.app.inject({ method: "GET", url })).json();
    await expect
      .poll(
        async () =>
          (await get(`/nft/market?collection=${SHELLS.collectionId}&currency=${USDC_MINT}`)).listings,
        {
          timeout: 5_000,
        },
      )
      .toContainEqual(shown);
    expect(await get("/nft/mortgage-listings")).toContainEqual({ listing: shown, pools: [] });

    const stranger = await post(w.app, "/nft/delist", {
      seller: buyer.signer.address,
      nftMint: leaf,
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body.message).toBe("Only the seller can withdraw this listing.");
    const own = await post(w.app, "/nft/buy", { buyer: seller.signer.address, nftMint: leaf });
    expect(own.status).toBe(400);
    const stale = await post(w.app, "/nft/buy", {
      buyer: buyer.signer.address,
      nftMint: leaf,
      maxPrice: String(299n * USDC),
    });
    expect(stale.status).toBe(422);
    expect(stale.body.message).toBe(
      "The seller raised the price above the one you accepted, so nothing was bought.",
    );
    // a mortgage of a compressed listing: the lending program buys only mints into a loan
    const mortgage = await post(w.app, "/nft/take-mortgage-quote", {
      buyer: buyer.signer.address,
      nftMint: leaf,
      duration: 7 * 86_400,
    });
    expect(mortgage.status).toBe(422);

    const buyerBefore = await usdcOf(buyer.signer.address);
    const sellerBefore = await usdcOf(seller.signer.address);
    const bought = await buildSignSend(
      w.app,
      "/nft/buy",
      { buyer: buyer.signer.address, nftMint: leaf, maxPrice: String(300n * USDC) },
      [buyer.signer],
    );
    expect(bought.sent.error).toBeUndefined();
    figures.push(`buy (compressed): ${wireBytes(bought.built.transactions[0]!)} B`);
    expect(await dasOwner(leaf)).toBe(buyer.signer.address);
    expect(await usdcOf(buyer.signer.address)).toBe(buyerBefore - 300n * USDC);
    expect(await usdcOf(seller.signer.address)).toBe(sellerBefore + 300n * USDC);
    expect((await w.tx.state.getAccounts([listing]))[0]).toBeNull();
  }, 180_000);

  it("the seller delists: the leaf comes back", async () => {
    const seller = await fundedWallet(w.net);
    const leaf = seller.given.compressedNfts[0]!.assetId;
    const listed = await buildSignSend(
      w.app,
      "/nft/list",
      { seller: seller.signer.address, nftMint: leaf, currency: USDC_MINT, price: String(10n * USDC) },
      [seller.signer],
    );
    expect(listed.sent.error).toBeUndefined();
    const delisted = await buildSignSend(
      w.app,
      "/nft/delist",
      { seller: seller.signer.address, nftMint: leaf },
      [seller.signer],
    );
    expect(delisted.sent.error).toBeUndefined();
    figures.push(`delist (compressed): ${wireBytes(delisted.built.transactions[0]!)} B`);
    expect(await dasOwner(leaf)).toBe(seller.signer.address);
    expect((await w.tx.state.getAccounts([await listingOf(leaf)]))[0]).toBeNull();
  }, 180_000);

  it("sells a leaf into the best collection bid: the bidder owns it, the seller is paid; a price above the bid is refused", async () => {
    const seller = await fundedWallet(w.net);
    const bidder = await fundedWallet(w.net);
    const leaf = seller.given.compressedNfts[0]!.assetId;
    const bid = await getPlaceBidInstruction({
      programAddress: w.nftMarket!,
      bidder: bidder.signer.address,
      nonce: 7n,
      collection: address(SHELLS.collectionId),
      currencyMint: USDC_MINT,
      bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.signer.address, USDC_MINT),
      price: 250n * USDC,
    });
    await sendAsAdmin(w.app, w.tx, bidder.signer, [bid]);
    const tooHigh = await post(w.app, "/nft/sell-to-bid", {
      seller: seller.signer.address,
      nftMint: leaf,
      currency: USDC_MINT,
      minPrice: String(251n * USDC),
    });
    expect(tooHigh.status).toBe(422);
    expect(tooHigh.body.message).toBe("The best bid fell below the price you accepted, so nothing was sold.");
    const before = await usdcOf(seller.signer.address);
    const sold = await buildSignSend(
      w.app,
      "/nft/sell-to-bid",
      { seller: seller.signer.address, nftMint: leaf, currency: USDC_MINT, minPrice: String(250n * USDC) },
      [seller.signer],
    );
    expect(sold.sent.error).toBeUndefined();
    figures.push(`sell-to-bid (compressed): ${wireBytes(sold.built.transactions[0]!)} B`);
    expect(sold.built.metadata.bid).toBe(bid.bid);
    expect(await dasOwner(leaf)).toBe(bidder.signer.address);
    expect(await usdcOf(seller.signer.address)).toBe(before + 250n * USDC);
    expect((await w.tx.state.getAccounts([bid.bid]))[0]).toBeNull();
  }, 180_000);
});
