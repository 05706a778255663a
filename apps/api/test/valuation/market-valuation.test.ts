import { ERROR_CODES } from "@cistern/protocol";
import {
  decodeSwapPool,
  findBankPda,
  findPoolPda,
  getAddSwapLiquidityInstruction,
  getInitializeSwapPoolInstruction,
  getListCoreAssetInstruction,
  getListNftInstruction,
  getPlaceBidInstruction,
  getSwapInstruction,
} from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAssociatedTokenIdempotent,
  findAssociatedTokenAddress,
} from "../../src/tx/builder/wire-instructions.ts";
import { TWAP_MAX_STEP_BPS } from "../../src/valuation/slot-twap.ts";
import { createLocalNftMarketVenue } from "../../src/venues/nft/local-nft-market-venue.ts";
import {
  buildSignSend,
  createUsdcJtoPool,
  fundedWallet,
  JTO_MINT,
  post,
  SOL_MINT,
  sendAsAdmin,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "../tx/support/tx-world.ts";

const DAY = 86_400;
const SOL = 1_000_000_000n;
const USDC = 1_000_000n;
/** The valuation's window in this world: 20 slots of 80 ms. */
const WINDOW = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Values from the chain: the local NFT market's book and the swap pools' time-weighted prices, as the API values
 * them on `npm start` (the other tx tests stand on fixed prices).
 */
describe("valuations that follow the local market", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let collection: Address;
  let collectionName: string;
  let borrower: Awaited<ReturnType<typeof fundedWallet>>;
  const listed: { seller: KeyPairSigner; mint: Address; price: bigint }[] = [];
  let corePool: Address;

  const quoteNft = () => post(w.app, "/nft/quote", { collection, duration: 7 * DAY, currency: USDC_MINT });
  const pageFloor = async () =>
    (
      (await w.app.inject({ url: `/collection/collection?collectionId=${collection}` })).json() as {
        floorPrice: string | null;
      }
    ).floorPrice;

  async function buy(buyer: KeyPairSigner, mint: Address, price: bigint) {
    const venue = createLocalNftMarketVenue(w.app.cistern.rpc, w.programId);
    const listing = (await venue.listingOf(mint))!;
    const destination = await findAssociatedTokenAddress(buyer.address, mint);
    await sendAsAdmin(w.app, w.tx, buyer, [
      createAssociatedTokenIdempotent(buyer.address, destination, buyer.address, mint),
      await venue.buyInstruction({
        listing,
        buyer: buyer.address,
        payFrom: await findAssociatedTokenAddress(buyer.address, SOL_MINT),
        nftDestination: destination,
        maxPrice: price,
      }),
    ]);
  }

  beforeAll(async () => {
    w = await startTxWorld({
      nftMarket: true,
      swapVenue: true,
      marketValuation: true,
      env: {
        VALUATION_TWAP_WINDOW_SLOTS: String(WINDOW),
        PRICE_REFRESH_MS: "80",
        NFT_STATS_REFRESH_MS: "150",
        VALUATION_MAX_AGE_SECONDS: "3",
      },
    });
    const admin = await fundedWallet(w.net);
    // a SOL/USDC pool at 150 USDC a SOL (1,000 SOL against 150,000 USDC)
    await w.net.fundWallet(admin.signer.address, {
      tokens: [
        { mint: SOL_MINT, amount: 1_000n * SOL },
        { mint: USDC_MINT, amount: 150_000n * USDC },
      ],
    });
    const init = await getInitializeSwapPoolInstruction({
      programAddress: w.swapVenue!.programId,
      payer: admin.signer,
      mintX: SOL_MINT,
      mintY: USDC_MINT,
      feeBps: 30,
    });
    await sendAsAdmin(w.app, w.tx, admin.signer, [init]);
    const pool = {
      ...decodeSwapPool((await w.tx.state.getAccounts([init.pool]))[0]!.data),
      address: init.pool,
    };
    const solIsA = pool.mintA === SOL_MINT;
    await sendAsAdmin(w.app, w.tx, admin.signer, [
      await getAddSwapLiquidityInstruction({
        programAddress: w.swapVenue!.programId,
        depositor: admin.signer,
        pool,
        depositorTokenA: await findAssociatedTokenAddress(admin.signer.address, pool.mintA),
        depositorTokenB: await findAssociatedTokenAddress(admin.signer.address, pool.mintB),
        amountA: solIsA ? 1_000n * SOL : 150_000n * USDC,
        amountB: solIsA ? 150_000n * USDC : 1_000n * SOL,
      }),
    ]);
    // the lender's USDC pool against the collection (50% LTV)
    lender = (await fundedWallet(w.net)).signer;
    borrower = await fundedWallet(w.net);
    collection = address(borrower.given.nfts[0]!.collectionId);
    collectionName = (await w.app.cistern.catalog.getCatalog()).collections.find(
      (c) => c.collectionId === collection,
    )!.name;
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const createPool = async (seed: string, of: Address, amount: string) => {
      const created = await buildSignSend(
        w.app,
        "/nft/create-pool",
        {
          bank,
          owner: lender.address,
          amount,
          mint: USDC_MINT,
          seed,
          param: {
            apr: 2000,
            limits: TEST_POOL_LIMITS,
            collections: [{ collection: of, collectionLtv: 5000, exposure: 10000 }],
          },
        },
        [lender],
      );
      expect(created.sent.result, JSON.stringify(created.sent)).not.toBeNull();
      return created;
    };
    await createPool("1", collection, "5000000000");
    await createUsdcJtoPool(w, lender, 2, "5000000000");
    // the Core collection: a pool lists it; three sellers list their Core asset at 8, 9 and 10 SOL, a bidder bids
    // 7 SOL for any
    const coreCollection = address(borrower.given.coreAssets[0]!.collectionId);
    await w.net.fundWallet(lender.address, { tokens: [{ mint: USDC_MINT, amount: 1_000n * USDC }] });
    await createPool("3", coreCollection, "1000000000");
    corePool = (await findPoolPda(w.programId, lender.address, 3n))[0];
    for (const price of [8n * SOL, 9n * SOL, 10n * SOL]) {
      const seller = await fundedWallet(w.net);
      await sendAsAdmin(w.app, w.tx, seller.signer, [
        await getListCoreAssetInstruction({
          programAddress: w.nftMarket!,
          seller: seller.signer.address,
          asset: address(seller.given.coreAssets[0]!.asset),
          collection: coreCollection,
          currencyMint: SOL_MINT,
          price,
        }),
      ]);
    }
    // three sellers list their NFT of the collection at 10, 12 and 15 SOL; a bidder bids 11 SOL for any
    for (const price of [10n * SOL, 12n * SOL, 15n * SOL]) {
      const seller = await fundedWallet(w.net);
      await w.net.fundWallet(seller.signer.address, { tokens: [{ mint: SOL_MINT, amount: 1n }] });
      const mint = address(seller.given.nfts.find((n) => n.collectionId === collection)!.mint);
      await sendAsAdmin(w.app, w.tx, seller.signer, [
        await getListNftInstruction({
          programAddress: w.nftMarket!,
          seller: seller.signer.address,
          nftMint: mint,
          sellerNftAccount: await findAssociatedTokenAddress(seller.signer.address, mint),
          currencyMint: SOL_MINT,
          price,
        }),
      ]);
      listed.push({ seller: seller.signer, mint, price });
    }
    const bidder = await fundedWallet(w.net);
    await w.net.fundWallet(bidder.signer.address, { tokens: [{ mint: SOL_MINT, amount: 18n * SOL }] });
    for (const [nonce, on, price] of [
      [1n, collection, 11n * SOL],
      [2n, coreCollection, 7n * SOL],
    ] as const)
      await sendAsAdmin(w.app, w.tx, bidder.signer, [
        await getPlaceBidInstruction({
          programAddress: w.nftMarket!,
          bidder: bidder.signer.address,
          nonce,
          collection: on,
          currencyMint: SOL_MINT,
          bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.signer.address, SOL_MINT),
          price,
        }),
      ]);
    w.tx.state.invalidate();
    await w.app.cistern.prices.refresh();
  }, 240_000);
  afterAll(() => w?.close());

  it("buying the floor on the local market moves the next quote's value, and the page's floor agrees", async () => {
    // book: 10, 12, 15 SOL listed, 11 SOL bid -> min(10, 13.75) = 10 SOL at 150 USDC (once the pools are read)
    await expect.poll(async () => (await quoteNft()).status, { timeout: 15_000 }).toBe(200);
    const before = await quoteNft();
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.collateralValue).toBe((1_500n * USDC).toString());
    expect(await pageFloor()).toBe((10n * SOL).toString());

    const buyer = await fundedWallet(w.net);
    await w.net.fundWallet(buyer.signer.address, { tokens: [{ mint: SOL_MINT, amount: 30n * SOL }] });
    await buy(buyer.signer, listed[0]!.mint, 10n * SOL);
    await w.app.cistern.prices.refresh();
    const after = await quoteNft();
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.collateralValue).toBe((1_800n * USDC).toString()); // 12 SOL now
    expect(await pageFloor()).toBe((12n * SOL).toString());

    // one listing left: a single listing cannot set the value -> no quote, no co-signature (2010)
    await buy(buyer.signer, listed[1]!.mint, 12n * SOL);
    await w.app.cistern.prices.refresh();
    const refused = await quoteNft();
    expect([refused.status, refused.body.code], JSON.stringify(refused.body)).toEqual([
      422,
      ERROR_CODES.NO_RELIABLE_PRICE,
    ]);
    expect(refused.body.message).toBe(`No reliable price for ${collectionName} right now`);
    const take = await post(w.app, "/nft/take-loan", {
      borrower: borrower.signer.address,
      nftMint: borrower.given.nfts[0]!.mint,
      duration: 7 * DAY,
    });
    expect([take.status, take.body.code]).toEqual([422, ERROR_CODES.NO_RELIABLE_PRICE]);
    expect(await pageFloor()).toBeNull();
  });

  it("a new wallet's Core asset is valued from the market's Core listings and bid, and gets an offer", async () => {
    // Core book: 8, 9, 10 SOL listed (the listings own the assets), 7 SOL bid -> min(8, 8.75) = 8 SOL = 1,200 USDC
    const newcomer = await fundedWallet(w.net);
    const asset = newcomer.given.coreAssets[0]!.asset;
    const quote = () =>
      post(w.app, "/nft/quote", { nftMint: asset, duration: 7 * DAY, borrower: newcomer.signer.address });
    await expect.poll(async () => (await quote()).status, { timeout: 15_000 }).toBe(200);
    const offer = await quote();
    expect(offer.status, JSON.stringify(offer.body)).toBe(200);
    expect(offer.body.pool).toBe(corePool);
    expect(offer.body.collateralValue).toBe((1_200n * USDC).toString());
  });

  it("a large swap in one slot moves the token's value by at most 10% / window; a sustained move shows after the window", async () => {
    const prices = w.app.cistern.prices;
    prices.stop(); // readings only when this test takes them, one a slot
    const reading = async () => {
      await sleep(100);
      await prices.refresh();
      const t = prices.token(JTO_MINT);
      return t.ok ? t.value : null;
    };
    for (let i = 0; i < 100 && (await reading()) === null; i++);
    for (let i = 0; i < WINDOW + 5; i++) await reading();
    const p0 = (await reading())!.priceNanos;
    expect(p0).toBe(2_500_000_000n); // 250,000 USDC / 100,000 JTO
    const quoteJto = () =>
      post(w.app, "/defi/quote", {
        collateralMint: JTO_MINT,
        collateralAmount: "100000000000",
        duration: DAY,
      });
    const valueBefore = BigInt((await quoteJto()).body.collateralValue as string);

    // a trader swaps 250,000 USDC into the pool in one transaction: the spot price goes to about 4x
    const trader = await fundedWallet(w.net);
    await w.net.fundWallet(trader.signer.address, { tokens: [{ mint: USDC_MINT, amount: 250_000n * USDC }] });
    const pool = decodeSwapPool((await w.tx.state.getAccounts([w.swapVenue!.pool]))[0]!.data);
    const usdcIsA = pool.mintA === USDC_MINT;
    await sendAsAdmin(w.app, w.tx, trader.signer, [
      getSwapInstruction({
        programAddress: w.swapVenue!.programId,
        user: trader.signer,
        source: await findAssociatedTokenAddress(trader.signer.address, USDC_MINT),
        destination: await findAssociatedTokenAddress(trader.signer.address, JTO_MINT),
        pool: w.swapVenue!.pool,
        vaultIn: usdcIsA ? pool.vaultA : pool.vaultB,
        vaultOut: usdcIsA ? pool.vaultB : pool.vaultA,
        amountIn: 250_000n * USDC,
        minAmountOut: 1n,
      }),
    ]);
    const p1 = (await reading())!.priceNanos;
    const bound = (p0 * TWAP_MAX_STEP_BPS) / 10_000n / BigInt(WINDOW); // 0.5% with a 20-slot window
    expect(p1).toBeGreaterThan(p0);
    expect(p1 - p0).toBeLessThanOrEqual(bound);
    const valueAfter = BigInt((await quoteJto()).body.collateralValue as string);
    expect(valueAfter - valueBefore).toBeLessThanOrEqual(
      (valueBefore * TWAP_MAX_STEP_BPS) / 10_000n / BigInt(WINDOW) + 1n,
    );

    // while the window still holds both prices, the spread is too wide to lend on: no quote (2010)
    for (let i = 0; i < 8; i++) await reading();
    const moving = await quoteJto();
    expect([moving.status, moving.body.code]).toEqual([422, ERROR_CODES.NO_RELIABLE_PRICE]);

    // sustained: once the readings caught up (ln 4 / ln 1.1 = 15) and a whole window passed, the value is the pool's
    for (let i = 0; i < 15 + WINDOW; i++) await reading();
    const [vaultJto, vaultUsdc] = (
      await w.tx.state.getAccounts(usdcIsA ? [pool.vaultB, pool.vaultA] : [pool.vaultA, pool.vaultB])
    ).map((a) => Buffer.from(a!.data).readBigUInt64LE(64));
    const spot = (vaultUsdc! * 10n ** 9n * 1_000_000_000n) / (vaultJto! * 10n ** 6n);
    const settled = prices.token(JTO_MINT);
    expect(settled.ok && settled.value.priceNanos).toBe(spot);
    const sustained = await quoteJto();
    expect(sustained.status, JSON.stringify(sustained.body)).toBe(200);
    expect(BigInt(sustained.body.collateralValue as string)).toBe((100n * spot) / 1_000n);
    prices.start();
  });

  it("a stale price refuses the quote and the co-signature with its code, and comes back with fresh readings", async () => {
    const prices = w.app.cistern.prices;
    const take = () =>
      post(w.app, "/defi/take-loan", {
        borrower: borrower.signer.address,
        collateralMint: JTO_MINT,
        collateralAmount: "10000000000",
        duration: DAY,
      });
    prices.stop();
    await sleep(3_500); // older than VALUATION_MAX_AGE_SECONDS (3)
    const quote = await post(w.app, "/defi/quote", {
      collateralMint: JTO_MINT,
      collateralAmount: "10000000000",
      duration: DAY,
    });
    expect([quote.status, quote.body.code], JSON.stringify(quote.body)).toEqual([
      422,
      ERROR_CODES.NO_RELIABLE_PRICE,
    ]);
    expect(quote.body.message).toBe("No reliable price for JTO right now");
    const refused = await take();
    expect([refused.status, refused.body.code]).toEqual([422, ERROR_CODES.NO_RELIABLE_PRICE]);
    prices.start();
    await sleep(1_000);
    const built = await take();
    expect(built.status, JSON.stringify(built.body)).toBe(200);
  });
});
