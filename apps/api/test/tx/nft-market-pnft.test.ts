// Programmable NFTs on the local NFT market through the API's builders (POST /nft/list, /nft/delist, /nft/buy,
// /nft/sell-to-bid), on a localnet running the real Token Metadata and Token Auth Rules: the builder reads the pNFT's
// accounts from the chain (metadata, edition, token records, the rule set its metadata names) and the market moves
// it with Token Metadata's Transfer v1 under the demo rule set. Adversarial cases first.
import { getPlaceBidInstruction } from "@cistern/sdk";
import { type Address, address } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import { DEMO_PNFT_COLLECTION } from "../helpers/nft-standards-catalog.ts";
import {
  buildSignSend,
  fundedWallet,
  post,
  sendAsAdmin,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const USDC = 1_000_000n;
const PETL = DEMO_PNFT_COLLECTION.collectionId;
type Wallet = Awaited<ReturnType<typeof fundedWallet>>;

describe("programmable NFTs on the NFT market through the builder (real Token Metadata and Token Auth Rules)", () => {
  let w: TxWorld;
  let seller: Wallet;
  let buyer: Wallet;
  let bidder: Wallet;
  let stranger: Wallet;

  const pnftOf = (x: Wallet) => address(x.given.programmableNfts[0]!.mint);
  /** Who holds `mint` in its associated token account (amount 1), read from the chain. */
  async function holds(owner: Address, mint: Address): Promise<boolean> {
    const ata = await findAssociatedTokenAddress(owner, mint);
    const [account] = await w.tx.state.getAccounts([ata]);
    return account !== null && account !== undefined && Buffer.from(account.data).readBigUInt64LE(64) === 1n;
  }
  async function usdc(owner: Address): Promise<bigint> {
    const [account] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(owner, USDC_MINT)]);
    return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
  }
  const fresh = () => w.tx.state.invalidate();

  beforeAll(async () => {
    w = await startTxWorld({ nftMarket: true });
    // the demo rule set allows the lending program and the market (as npm start sets it)
    await w.net.setDemoRuleSetPrograms([w.programId, w.nftMarket!]);
    [seller, buyer, bidder, stranger] = await Promise.all([
      fundedWallet(w.net),
      fundedWallet(w.net),
      fundedWallet(w.net),
      fundedWallet(w.net),
    ]);
  }, 180_000);
  afterAll(() => w?.close());

  it("refuses: a stranger listing the seller's pNFT, a rule set that does not allow the market, delisting someone else's listing, a buy above the price accepted", async () => {
    const nft = pnftOf(seller);
    const theirs = await buildSignSend(
      w.app,
      "/nft/list",
      { seller: stranger.signer.address, nftMint: nft, currency: USDC_MINT, price: String(100n * USDC) },
      [stranger.signer],
    );
    expect(theirs.sent.result).toBeNull();
    // the rule set allowing the lending program only: Token Metadata refuses the move to the listing
    await w.net.setDemoRuleSetPrograms([w.programId]);
    const refused = await buildSignSend(
      w.app,
      "/nft/list",
      { seller: seller.signer.address, nftMint: nft, currency: USDC_MINT, price: String(100n * USDC) },
      [seller.signer],
    );
    expect(refused.sent.result).toBeNull();
    await w.net.setDemoRuleSetPrograms([w.programId, w.nftMarket!]);
    fresh();
    expect(await holds(seller.signer.address, nft)).toBe(true);
    // listed now; a stranger cannot delist it, a buyer is not charged above what they accepted
    const listed = await buildSignSend(
      w.app,
      "/nft/list",
      { seller: seller.signer.address, nftMint: nft, currency: USDC_MINT, price: String(100n * USDC) },
      [seller.signer],
    );
    expect(listed.sent.error).toBeUndefined();
    fresh();
    const delist = await post(w.app, "/nft/delist", { seller: stranger.signer.address, nftMint: nft });
    expect(delist.status).toBe(400);
    expect(delist.body.message).toBe("Only the seller can withdraw this listing.");
    const cheap = await post(w.app, "/nft/buy", {
      buyer: buyer.signer.address,
      nftMint: nft,
      maxPrice: String(99n * USDC),
    });
    expect(cheap.status).toBe(422);
    expect(cheap.body.message).toBe(
      "The seller raised the price above the one you accepted, so nothing was bought.",
    );
    const own = await post(w.app, "/nft/buy", { buyer: seller.signer.address, nftMint: nft });
    expect(own.status).toBe(400);
  });

  it("shows the pNFT listing in the collection's market; a buyer pays the price and holds the pNFT", async () => {
    const nft = pnftOf(seller);
    const market = await w.app.inject({ url: `/nft/market?collection=${PETL}&currency=${USDC_MINT}` });
    expect(market.json()).toMatchObject({
      venue: "local",
      floorPrice: String(100n * USDC),
      listings: [
        { mint: nft, seller: seller.signer.address, price: String(100n * USDC), standard: "programmable" },
      ],
    });
    const [sellerBefore, buyerBefore] = [await usdc(seller.signer.address), await usdc(buyer.signer.address)];
    const bought = await buildSignSend(
      w.app,
      "/nft/buy",
      { buyer: buyer.signer.address, nftMint: nft, maxPrice: String(100n * USDC) },
      [buyer.signer],
    );
    expect(bought.sent.error).toBeUndefined();
    console.log(
      `POST /nft/buy of a pNFT: compute unit limit ${JSON.stringify(bought.built.metadata?.computeUnits)}`,
    );
    fresh();
    expect(await holds(buyer.signer.address, nft)).toBe(true);
    expect(await usdc(seller.signer.address)).toBe(sellerBefore + 100n * USDC);
    expect(await usdc(buyer.signer.address)).toBe(buyerBefore - 100n * USDC);
    // sold: no listing left to buy
    expect((await post(w.app, "/nft/buy", { buyer: stranger.signer.address, nftMint: nft })).status).toBe(
      400,
    );
  });

  it("delists: the pNFT returns to the seller", async () => {
    const nft = pnftOf(stranger);
    const listed = await buildSignSend(
      w.app,
      "/nft/list",
      { seller: stranger.signer.address, nftMint: nft, currency: USDC_MINT, price: String(500n * USDC) },
      [stranger.signer],
    );
    expect(listed.sent.error).toBeUndefined();
    fresh();
    expect(await holds(stranger.signer.address, nft)).toBe(false);
    const out = await buildSignSend(w.app, "/nft/delist", { seller: stranger.signer.address, nftMint: nft }, [
      stranger.signer,
    ]);
    expect(out.sent.error).toBeUndefined();
    fresh();
    expect(await holds(stranger.signer.address, nft)).toBe(true);
  });

  it("sells a pNFT into the best bid on its collection: the bidder holds it, the seller is paid; none left after", async () => {
    const bid = await getPlaceBidInstruction({
      programAddress: w.nftMarket!,
      bidder: bidder.signer.address,
      nonce: 7n,
      collection: address(PETL),
      currencyMint: USDC_MINT,
      bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.signer.address, USDC_MINT),
      price: 80n * USDC,
    });
    await sendAsAdmin(w.app, w.tx, bidder.signer, [bid]);
    fresh();
    const nft = pnftOf(buyer);
    const high = await post(w.app, "/nft/sell-to-bid", {
      seller: buyer.signer.address,
      nftMint: nft,
      currency: USDC_MINT,
      minPrice: String(81n * USDC),
    });
    expect(high.status).toBe(422);
    const before = await usdc(buyer.signer.address);
    const sold = await buildSignSend(
      w.app,
      "/nft/sell-to-bid",
      { seller: buyer.signer.address, nftMint: nft, currency: USDC_MINT, minPrice: String(80n * USDC) },
      [buyer.signer],
    );
    expect(sold.sent.error).toBeUndefined();
    fresh();
    expect(await holds(bidder.signer.address, nft)).toBe(true);
    expect(await usdc(buyer.signer.address)).toBe(before + 80n * USDC);
    // the pNFT the buyer bought above: the only bid is filled, none is left
    const again = await post(w.app, "/nft/sell-to-bid", {
      seller: buyer.signer.address,
      nftMint: pnftOf(seller),
      currency: USDC_MINT,
    });
    expect(again.status).toBe(422);
  });
});
