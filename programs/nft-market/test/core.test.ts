// Metaplex Core assets on the local NFT market, through the real Core program (the vendored binary at its mainnet
// id): a listing PDA owns the listed asset (Core TransferV1), the buyer or the seller gets it back from it, and a
// collection bid takes a Core asset of its collection. Adversarial cases first.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MPL_CORE_PROGRAM, readVendoredProgram, VENDORED_PROGRAMS } from "@cistern/localnet";
import {
  decodeMarketListing,
  getBuyCoreAssetInstruction,
  getDelistCoreAssetInstruction,
  getListCoreAssetInstruction,
  getPlaceBidInstruction,
  getSellCoreToBidInstruction,
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
} from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { beforeEach, describe, expect, it } from "vitest";
import {
  addPlugin,
  CORE,
  createAsset,
  createCollection,
  PLUGIN,
  type Plugin,
  readAsset,
  updatePlugin,
} from "../../lending/test/support/core.ts";

const SO = fileURLToPath(new URL("../build/nft-market.so", import.meta.url));
const USDC = 1_000_000n;

interface Market {
  svm: LiteSVM;
  programAddress: Address;
  authority: KeyPairSigner;
  currency: Address;
  collection: Address;
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

async function newCollection(m: { svm: LiteSVM; authority: KeyPairSigner }): Promise<Address> {
  const c = await generateKeyPairSigner();
  await sendWithLiteSvm(m.svm, [createCollection(c, m.authority)], m.authority);
  return c.address;
}

async function createMarket(): Promise<Market> {
  const svm = createTestSvm();
  const programAddress = (await generateKeyPairSigner()).address;
  svm.addProgram(programAddress, new Uint8Array(readFileSync(SO)));
  const core = VENDORED_PROGRAMS.find((p) => p.programId === MPL_CORE_PROGRAM);
  if (!core) throw new Error("Core is not vendored");
  svm.addProgram(CORE, readVendoredProgram(core));
  const authority = await createFundedSigner(svm, 1000n);
  const currency = await createMint(svm, authority, 6);
  return { svm, programAddress, authority, currency, collection: await newCollection({ svm, authority }) };
}

async function wallet(m: Market, usdc = 0n) {
  const signer = await createFundedSigner(m.svm);
  const currencyAccount = await createTokenAccount(m.svm, m.authority, m.currency, signer.address);
  if (usdc > 0n) await mintTo(m.svm, m.authority, m.currency, currencyAccount, usdc * USDC);
  return { signer, currencyAccount };
}

/** A Core asset of `collection` owned by `owner`, minted through Core by the collection's authority. */
async function coreAsset(m: Market, owner: Address, collection = m.collection, plugins?: Plugin[]) {
  const asset = await generateKeyPairSigner();
  await send(m, [createAsset(asset, collection, m.authority, owner, plugins)], m.authority);
  return asset.address;
}

/** The Core collection account handed to another program, bytes unchanged (a look-alike at the named address). */
function handCollectionTo(m: Market, program: Address) {
  const real = m.svm.getAccount(m.collection);
  if (!real.exists) throw new Error("no collection");
  m.svm.setAccount({ ...real, programAddress: program });
  return () => m.svm.setAccount(real);
}

const ownerOf = (m: Market, asset: Address) => readAsset(getAccountData(m.svm, asset)!).owner;

function list(m: Market, seller: KeyPairSigner, asset: Address, price: bigint, collection = m.collection) {
  return getListCoreAssetInstruction({
    programAddress: m.programAddress,
    seller,
    asset,
    collection,
    currencyMint: m.currency,
    price,
  });
}

describe("local NFT market: Core listings", () => {
  let m: Market;
  beforeEach(async () => {
    m = await createMarket();
  });

  it("refuses a look-alike collection, another collection's asset, a stranger, unsafe and frozen assets", async () => {
    const seller = await wallet(m);
    const asset = await coreAsset(m, seller.signer.address);
    // the asset's collection, but the account passed is another collection
    const other = await newCollection(m);
    expect(await failure(send(m, [await list(m, seller.signer, asset, USDC, other)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.NotInCollection,
    );
    // not the owner
    const stranger = await wallet(m);
    expect(await failure(send(m, [await list(m, stranger.signer, asset, USDC)], stranger.signer))).toBe(
      NFT_MARKET_ERRORS.Unauthorized,
    );
    // a permanent transfer delegate on the asset
    const unsafe = await coreAsset(m, seller.signer.address, m.collection, [
      {
        type: PLUGIN.PermanentTransferDelegate,
        authority: { kind: "Address", address: m.authority.address },
      },
    ]);
    expect(await failure(send(m, [await list(m, seller.signer, unsafe, USDC)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.UnsafeAsset,
    );
    // frozen by the owner's freeze delegate
    const frozen = await coreAsset(m, seller.signer.address);
    await send(
      m,
      [addPlugin(frozen, m.collection, seller.signer, { type: PLUGIN.FreezeDelegate, frozen: true })],
      seller.signer,
    );
    expect(await failure(send(m, [await list(m, seller.signer, frozen, USDC)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.AssetFrozen,
    );
    // another program instead of Core
    const listIx = await list(m, seller.signer, asset, USDC);
    const accounts = [...(listIx.accounts ?? [])];
    accounts[5] = { ...accounts[5]!, address: m.programAddress };
    const wrongCore = { ...listIx, accounts };
    expect(await failure(send(m, [wrongCore], seller.signer))).toBe(NFT_MARKET_ERRORS.InvalidCoreProgram);
    // the collection account the asset names, owned by another program (a look-alike with Core's bytes)
    handCollectionTo(m, m.programAddress);
    expect(await failure(send(m, [await list(m, seller.signer, asset, USDC)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.InvalidMetadata,
    );
    expect(ownerOf(m, asset)).toBe(seller.signer.address);
  });

  it("a listing owns the asset; a buyer pays the price and receives it; the listing closes", async () => {
    const seller = await wallet(m);
    const asset = await coreAsset(m, seller.signer.address);
    const ix = await list(m, seller.signer, asset, 250n * USDC);
    const listed = await send(m, [ix], seller.signer);
    console.log(`ListCore: ${listed.computeUnits} CU`);
    expect(ownerOf(m, asset)).toBe(ix.listing);
    expect(decodeMarketListing(getAccountData(m.svm, ix.listing)!)).toMatchObject({
      standard: "core",
      seller: seller.signer.address,
      nftMint: asset,
      escrow: m.collection,
      price: 250n * USDC,
    });
    // a second listing of the same asset, now owned by the listing: refused
    expect(await failure(send(m, [await list(m, seller.signer, asset, USDC)], seller.signer))).not.toBe(
      "success",
    );
    const buyer = await wallet(m, 300n);
    const buy = (maxPrice: bigint) =>
      getBuyCoreAssetInstruction({
        programAddress: m.programAddress,
        buyer: buyer.signer,
        listing: ix.listing,
        payFrom: buyer.currencyAccount,
        sellerCurrencyAccount: seller.currencyAccount,
        newOwner: buyer.signer.address,
        seller: seller.signer.address,
        asset,
        collection: m.collection,
        maxPrice,
      });
    expect(await failure(send(m, [buy(249n * USDC)], buyer.signer))).toBe(NFT_MARKET_ERRORS.PriceMoved);
    const bought = await send(m, [buy(250n * USDC)], buyer.signer);
    console.log(`BuyCore: ${bought.computeUnits} CU`);
    expect(ownerOf(m, asset)).toBe(buyer.signer.address);
    expect(getTokenBalance(m.svm, buyer.currencyAccount)).toBe(50n * USDC);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(250n * USDC);
    expect(getAccountData(m.svm, ix.listing)).toBeNull();
    expect(await failure(send(m, [buy(250n * USDC)], buyer.signer))).toBe(NFT_MARKET_ERRORS.InvalidOwner);
  });

  it("only the seller delists; the asset returns to the seller", async () => {
    const seller = await wallet(m);
    const asset = await coreAsset(m, seller.signer.address);
    const ix = await list(m, seller.signer, asset, 10n * USDC);
    await send(m, [ix], seller.signer);
    const delist = (who: KeyPairSigner) =>
      getDelistCoreAssetInstruction({
        programAddress: m.programAddress,
        seller: who,
        listing: ix.listing,
        asset,
        collection: m.collection,
      });
    const stranger = await wallet(m);
    expect(await failure(send(m, [delist(stranger.signer)], stranger.signer))).toBe(
      NFT_MARKET_ERRORS.Unauthorized,
    );
    const out = await send(m, [delist(seller.signer)], seller.signer);
    console.log(`DelistCore: ${out.computeUnits} CU`);
    expect(ownerOf(m, asset)).toBe(seller.signer.address);
    expect(getAccountData(m.svm, ix.listing)).toBeNull();
  });
});

describe("local NFT market: Core assets sold into a collection bid", () => {
  let m: Market;
  beforeEach(async () => {
    m = await createMarket();
  });

  async function bidOn(price: bigint, collection = m.collection) {
    const bidder = await wallet(m, 1000n);
    const ix = await getPlaceBidInstruction({
      programAddress: m.programAddress,
      bidder: bidder.signer,
      nonce: 1n,
      collection,
      currencyMint: m.currency,
      bidderCurrencyAccount: bidder.currencyAccount,
      price,
    });
    await send(m, [ix], bidder.signer);
    return { bidder, bid: ix.bid, vault: ix.vault };
  }

  function sell(
    b: Awaited<ReturnType<typeof bidOn>>,
    seller: { signer: KeyPairSigner; currencyAccount: Address },
    asset: Address,
    minPrice: bigint,
    collection = m.collection,
  ) {
    return getSellCoreToBidInstruction({
      programAddress: m.programAddress,
      seller: seller.signer,
      bid: b.bid,
      vault: b.vault,
      bidder: b.bidder.signer.address,
      asset,
      collection,
      proceeds: seller.currencyAccount,
      minPrice,
    });
  }

  it("refuses an asset of another collection, a look-alike collection, a stranger and a price below the minimum", async () => {
    const b = await bidOn(100n * USDC);
    const seller = await wallet(m);
    const other = await newCollection(m);
    const outsider = await coreAsset(m, seller.signer.address, other);
    expect(await failure(send(m, [sell(b, seller, outsider, 0n, other)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.NotInCollection,
    );
    expect(await failure(send(m, [sell(b, seller, outsider, 0n)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.NotInCollection,
    );
    const asset = await coreAsset(m, seller.signer.address);
    const stranger = await wallet(m);
    expect(await failure(send(m, [sell(b, stranger, asset, 0n)], stranger.signer))).toBe(
      NFT_MARKET_ERRORS.Unauthorized,
    );
    expect(await failure(send(m, [sell(b, seller, asset, 101n * USDC)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.PriceMoved,
    );
    // a bid on a look-alike: an account owned by another program, holding a copy of the collection's bytes, that
    // an asset names (the asset's own collection account replaced)
    const restore = handCollectionTo(m, m.programAddress);
    expect(await failure(send(m, [sell(b, seller, asset, 0n)], seller.signer))).toBe(
      NFT_MARKET_ERRORS.InvalidMetadata,
    );
    restore();
    expect(ownerOf(m, asset)).toBe(seller.signer.address);
    expect(getTokenBalance(m.svm, b.vault)).toBe(100n * USDC);
  });

  it("a Core asset of the collection fills the bid: the bidder owns it, the seller is paid, the bid closes", async () => {
    const b = await bidOn(100n * USDC);
    const seller = await wallet(m);
    const asset = await coreAsset(m, seller.signer.address);
    const out = await send(m, [sell(b, seller, asset, 100n * USDC)], seller.signer);
    console.log(`SellCoreToBid: ${out.computeUnits} CU`);
    expect(ownerOf(m, asset)).toBe(b.bidder.signer.address);
    expect(getTokenBalance(m.svm, seller.currencyAccount)).toBe(100n * USDC);
    expect(getAccountData(m.svm, b.bid)).toBeNull();
    expect(getAccountData(m.svm, b.vault)).toBeNull();
  });
});
