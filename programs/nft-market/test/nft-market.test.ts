import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  decodeMarketBid,
  decodeMarketListing,
  getBuyNftInstruction,
  getCancelBidInstruction,
  getDelistNftInstruction,
  getListNftInstruction,
  getPlaceBidInstruction,
  getSellToBidInstruction,
  NFT_MARKET_ERRORS,
} from "@cistern/sdk";
import {
  createFundedSigner,
  createMint,
  createTestSvm,
  createTokenAccount,
  getAccountData,
  getTokenBalance,
  LiteSvmTransactionError,
  mintTo,
  sendWithLiteSvm,
  setNftMetadata,
} from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { beforeEach, describe, expect, it } from "vitest";

const SO = fileURLToPath(new URL("../build/nft-market.so", import.meta.url));
const USDC = 1_000_000n;

interface Market {
  svm: LiteSVM;
  programAddress: Address;
  authority: KeyPairSigner;
  currency: Address;
  collection: Address;
}

async function createMarket(): Promise<Market> {
  const svm = createTestSvm();
  const programAddress = (await generateKeyPairSigner()).address;
  svm.addProgram(programAddress, new Uint8Array(readFileSync(SO)));
  const authority = await createFundedSigner(svm, 1000n);
  const currency = await createMint(svm, authority, 6);
  return { svm, programAddress, authority, currency, collection: (await generateKeyPairSigner()).address };
}

/** A wallet with a currency account holding `usdc` whole units. */
async function wallet(m: Market, usdc = 0n) {
  const signer = await createFundedSigner(m.svm);
  const currencyAccount = await createTokenAccount(m.svm, m.authority, m.currency, signer.address);
  if (usdc > 0n) await mintTo(m.svm, m.authority, m.currency, currencyAccount, usdc * USDC);
  return { signer, currencyAccount };
}

/** An NFT (decimals 0, supply 1) held by `owner`, with metadata naming `collection` (verified unless said). */
async function nft(m: Market, owner: Address, collection: Address | null = m.collection, verified = true) {
  const mint = await createMint(m.svm, m.authority, 0);
  const account = await createTokenAccount(m.svm, m.authority, mint, owner);
  await mintTo(m.svm, m.authority, mint, account, 1n);
  await setNftMetadata(m.svm, mint, collection && { key: collection, verified });
  return { mint, account };
}

async function send(m: Market, ixs: Instruction[], payer: KeyPairSigner) {
  return sendWithLiteSvm(m.svm, ixs, payer);
}

async function failure(run: Promise<unknown>): Promise<number | string> {
  try {
    await run;
    return "success";
  } catch (error) {
    if (!(error instanceof LiteSvmTransactionError)) throw error;
    const line = error.logs.find((l) => /custom program error: 0x/.test(l));
    return line ? Number.parseInt(line.split("0x")[1]!, 16) : error.message;
  }
}

describe("local NFT market: listings", () => {
  let m: Market;
  beforeEach(async () => {
    m = await createMarket();
  });

  async function listed(price: bigint) {
    const seller = await wallet(m);
    const item = await nft(m, seller.signer.address);
    const list = await getListNftInstruction({
      programAddress: m.programAddress,
      seller: seller.signer,
      nftMint: item.mint,
      sellerNftAccount: item.account,
      currencyMint: m.currency,
      price,
    });
    await send(m, [list], seller.signer);
    return { seller, item, listing: list.listing, escrow: list.escrow };
  }

  it("a listing escrows the NFT; a buyer pays the price and receives it; the listing closes", async () => {
    const { seller, item, listing, escrow } = await listed(250n * USDC);
    expect(decodeMarketListing(getAccountData(m.svm, listing)!)).toMatchObject({
      seller: seller.signer.address,
      nftMint: item.mint,
      price: 250n * USDC,
    });
    expect(getTokenBalance(m.svm, escrow)).toBe(1n);
    const buyer = await wallet(m, 300n);
    const buyerNft = await createTokenAccount(m.svm, m.authority, item.mint, buyer.signer.address);
    const buy = (maxPrice: bigint) =>
      getBuyNftInstruction({
        programAddress: m.programAddress,
        buyer: buyer.signer,
        listing,
        escrow,
        payFrom: buyer.currencyAccount,
        sellerCurrencyAccount: seller.currencyAccount,
        nftDestination: buyerNft,
        seller: seller.signer.address,
        maxPrice,
      });
    expect(await failure(send(m, [buy(249n * USDC)], buyer.signer))).toBe(NFT_MARKET_ERRORS.PriceMoved);
    expect(getTokenBalance(m.svm, buyer.currencyAccount)).toBe(300n * USDC);
    await send(m, [buy(250n * USDC)], buyer.signer);
    expect(getTokenBalance(m.svm, buyerNft)).toBe(1n);
    expect(getTokenBalance(m.svm, buyer.currencyAccount)).toBe(50n * USDC);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(250n * USDC);
    expect(getAccountData(m.svm, listing)).toBeNull();
    expect(await failure(send(m, [buy(250n * USDC)], buyer.signer))).toBe(NFT_MARKET_ERRORS.InvalidOwner);
  });

  it("only the seller delists; the NFT returns", async () => {
    const { seller, item, listing, escrow } = await listed(10n * USDC);
    const stranger = await wallet(m);
    const strangerNft = await createTokenAccount(m.svm, m.authority, item.mint, stranger.signer.address);
    const delist = (who: KeyPairSigner, to: Address) =>
      getDelistNftInstruction({
        programAddress: m.programAddress,
        seller: who,
        listing,
        escrow,
        sellerNftAccount: to,
      });
    expect(await failure(send(m, [delist(stranger.signer, strangerNft)], stranger.signer))).toBe(
      NFT_MARKET_ERRORS.Unauthorized,
    );
    await send(m, [delist(seller.signer, item.account)], seller.signer);
    expect(getTokenBalance(m.svm, item.account)).toBe(1n);
    expect(getAccountData(m.svm, listing)).toBeNull();
  });

  it("refuses a zero price and a token that is not an NFT", async () => {
    const seller = await wallet(m, 5n);
    const item = await nft(m, seller.signer.address);
    const list = (mint: Address, account: Address, price: bigint) =>
      getListNftInstruction({
        programAddress: m.programAddress,
        seller: seller.signer,
        nftMint: mint,
        sellerNftAccount: account,
        currencyMint: m.currency,
        price,
      });
    expect(await failure(send(m, [await list(item.mint, item.account, 0n)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.ZeroPrice,
    );
    expect(await failure(send(m, [await list(m.currency, seller.currencyAccount, 1n)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.NotAnNft,
    );
  });
});

describe("local NFT market: collection bids", () => {
  let m: Market;
  let bidder: Awaited<ReturnType<typeof wallet>>;
  let bid: Address;
  let vault: Address;
  beforeEach(async () => {
    m = await createMarket();
    bidder = await wallet(m, 1000n);
    const place = await getPlaceBidInstruction({
      programAddress: m.programAddress,
      bidder: bidder.signer,
      nonce: 7n,
      collection: m.collection,
      currencyMint: m.currency,
      bidderCurrencyAccount: bidder.currencyAccount,
      price: 400n * USDC,
    });
    await send(m, [place], bidder.signer);
    bid = place.bid;
    vault = place.vault;
  });

  async function sell(
    seller: Awaited<ReturnType<typeof wallet>>,
    item: { mint: Address; account: Address },
    minPrice = 0n,
  ) {
    const bidderNft = await createTokenAccount(m.svm, m.authority, item.mint, bidder.signer.address);
    const ix = await getSellToBidInstruction({
      programAddress: m.programAddress,
      seller: seller.signer,
      bid,
      vault,
      bidder: bidder.signer.address,
      nftMint: item.mint,
      nftSource: item.account,
      bidderNftAccount: bidderNft,
      proceeds: seller.currencyAccount,
      minPrice,
    });
    return { run: () => send(m, [ix], seller.signer), bidderNft };
  }

  it("escrows the price; a verified member of the collection fills it: the NFT to the bidder, the price to the seller", async () => {
    expect(decodeMarketBid(getAccountData(m.svm, bid)!)).toMatchObject({
      bidder: bidder.signer.address,
      collection: m.collection,
      price: 400n * USDC,
      nonce: 7n,
    });
    expect(getTokenBalance(m.svm, vault)).toBe(400n * USDC);
    expect(getTokenBalance(m.svm, bidder.currencyAccount)).toBe(600n * USDC);
    const seller = await wallet(m);
    const item = await nft(m, seller.signer.address);
    const { run, bidderNft } = await sell(seller, item);
    await run();
    expect(getTokenBalance(m.svm, bidderNft)).toBe(1n);
    expect(getTokenBalance(m.svm, item.account)).toBe(0n);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(400n * USDC);
    expect(getAccountData(m.svm, bid)).toBeNull();
    expect(getAccountData(m.svm, vault)).toBeNull();
  });

  it("is filled only by a verified member of its collection", async () => {
    const seller = await wallet(m);
    const outsider = await nft(m, seller.signer.address, (await generateKeyPairSigner()).address);
    const unverified = await nft(m, seller.signer.address, m.collection, false);
    const bare = await nft(m, seller.signer.address, null);
    for (const item of [outsider, unverified, bare]) {
      expect(await failure((await sell(seller, item)).run())).toBe(NFT_MARKET_ERRORS.NotInCollection);
    }
    expect(getTokenBalance(m.svm, vault)).toBe(400n * USDC);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(0n);
  });

  it("refuses metadata of another mint, a bid below the seller's minimum and a double fill", async () => {
    const seller = await wallet(m);
    const item = await nft(m, seller.signer.address);
    // a metadata account at the right address that names another mint
    await setNftMetadata(m.svm, item.mint, { key: m.collection, verified: true }, { mint: m.currency });
    expect(await failure((await sell(seller, item)).run())).toBe(NFT_MARKET_ERRORS.InvalidMetadata);
    await setNftMetadata(m.svm, item.mint, { key: m.collection, verified: true });
    expect(await failure((await sell(seller, item, 401n * USDC)).run())).toBe(NFT_MARKET_ERRORS.PriceMoved);
    await (await sell(seller, item, 400n * USDC)).run();
    const second = await nft(m, seller.signer.address);
    expect(await failure((await sell(seller, second)).run())).toBe(NFT_MARKET_ERRORS.InvalidOwner);
    expect(getTokenBalance(m.svm, second.account)).toBe(1n);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(400n * USDC);
  });

  it("cancel returns the escrowed funds to the bidder only; a cancelled bid cannot be filled", async () => {
    const stranger = await wallet(m);
    const cancel = (who: Awaited<ReturnType<typeof wallet>>) =>
      getCancelBidInstruction({
        programAddress: m.programAddress,
        bidder: who.signer,
        bid,
        vault,
        bidderCurrencyAccount: who.currencyAccount,
      });
    expect(await failure(send(m, [cancel(stranger)], stranger.signer))).toBe(NFT_MARKET_ERRORS.Unauthorized);
    await send(m, [cancel(bidder)], bidder.signer);
    expect(getTokenBalance(m.svm, bidder.currencyAccount)).toBe(1000n * USDC);
    expect(getAccountData(m.svm, bid)).toBeNull();
    const seller = await wallet(m);
    const item = await nft(m, seller.signer.address);
    expect(await failure((await sell(seller, item)).run())).toBe(NFT_MARKET_ERRORS.InvalidOwner);
  });

  it("refuses a substituted bid account (same bytes, another owner)", async () => {
    const data = getAccountData(m.svm, bid)!;
    const fake = (await generateKeyPairSigner()).address;
    m.svm.setAccount({
      address: fake,
      data,
      executable: false,
      lamports: 10_000_000n,
      programAddress: m.authority.address,
      space: BigInt(data.length),
      exists: true,
    } as never);
    const seller = await wallet(m);
    const item = await nft(m, seller.signer.address);
    const bidderNft = await createTokenAccount(m.svm, m.authority, item.mint, bidder.signer.address);
    const ix = await getSellToBidInstruction({
      programAddress: m.programAddress,
      seller: seller.signer,
      bid: fake,
      vault,
      bidder: bidder.signer.address,
      nftMint: item.mint,
      nftSource: item.account,
      bidderNftAccount: bidderNft,
      proceeds: seller.currencyAccount,
      minPrice: 0n,
    });
    expect(await failure(send(m, [ix], seller.signer))).toBe(NFT_MARKET_ERRORS.InvalidOwner);
  });
});
