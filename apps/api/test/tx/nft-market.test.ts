import { PROGRAM_ERROR_CODE as P } from "@cistern/protocol";
import {
  decodeLoanAccount,
  decodePoolAccount,
  findBankPda,
  findPoolPda,
  findVaultPda,
  getListNftInstruction,
  getPlaceBidInstruction,
} from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import {
  buildSignSend,
  fundedWallet,
  post,
  sendAsAdmin,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const USDC = 1_000_000n;

async function tokenBalance(w: TxWorld, owner: Address, mint: Address): Promise<bigint> {
  const ata = await findAssociatedTokenAddress(owner, mint);
  const [account] = await w.tx.state.getAccounts([ata]);
  return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
}

describe("NFT market on localnet: instant sell and mortgage through the builder", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: Awaited<ReturnType<typeof fundedWallet>>;
  let seller: Awaited<ReturnType<typeof fundedWallet>>;
  let bidder: Awaited<ReturnType<typeof fundedWallet>>;
  let buyer: Awaited<ReturnType<typeof fundedWallet>>;
  let collection: string;
  let pool: Address;
  let plainPool: Address;
  let listedMint: Address;

  const read = async (a: Address) => (await w.tx.state.getAccounts([a]))[0]!.data;

  beforeAll(async () => {
    w = await startTxWorld({ nftMarket: true });
    const lenderWallet = await fundedWallet(w.net);
    lender = lenderWallet.signer;
    [borrower, seller, bidder, buyer] = await Promise.all([
      fundedWallet(w.net),
      fundedWallet(w.net),
      fundedWallet(w.net),
      fundedWallet(w.net),
    ]);
    // the Rain Frogs (a 600 USD floor) are the borrower's, the seller's and the buyer's first NFTs
    collection = borrower.given.nfts[1]!.collectionId;
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    for (const seed of [1, 2]) {
      const created = await buildSignSend(
        w.app,
        "/nft/create-pool",
        {
          bank,
          owner: lender.address,
          amount: "5000000000",
          mint: USDC_MINT,
          seed: String(seed),
          param: {
            apr: 2000,
            limits: TEST_POOL_LIMITS,
            collections: [{ collection, collectionLtv: 5000, exposure: 10000 }],
          },
        },
        [lender],
      );
      expect(created.sent.result).not.toBeNull();
    }
    [pool] = await findPoolPda(w.programId, lender.address, 1n);
    [plainPool] = await findPoolPda(w.programId, lender.address, 2n);
    const update = await buildSignSend(
      w.app,
      "/nft/update-pool",
      {
        pool,
        owner: lender.address,
        enableMortgage: true,
        param: {
          apr: 2000,
          loanApr: 2000,
          mortgageApr: 1500,
          limits: TEST_POOL_LIMITS,
          conditions: {
            minAge: "0",
            minLoan: "0",
            minVolume: "0",
            liquidationThreshold: 0,
            isEnabled: 0,
            isWhitelistEnabled: 0,
            whitelist: "11111111111111111111111111111111",
            whitelistAddresses: [],
          },
          liquidation: { isAutoSellEnabled: false, loanLiquidation: 1000, mortgageLiquidation: 2000 },
          collections: [{ collection, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(update.sent.result).not.toBeNull();
    // the seller lists its frog at 650 USDC; the bidder bids 500 USDC for any frog
    listedMint = address(seller.given.nfts.find((n) => n.collectionId === collection)!.mint);
    const list = await getListNftInstruction({
      programAddress: w.nftMarket!,
      seller: seller.signer.address,
      nftMint: listedMint,
      sellerNftAccount: await findAssociatedTokenAddress(seller.signer.address, listedMint),
      currencyMint: USDC_MINT,
      price: 650n * USDC,
    });
    await sendAsAdmin(w.app, w.tx, seller.signer, [list]);
    const bid = await getPlaceBidInstruction({
      programAddress: w.nftMarket!,
      bidder: bidder.signer.address,
      nonce: 1n,
      collection: address(collection),
      currencyMint: USDC_MINT,
      bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.signer.address, USDC_MINT),
      price: 500n * USDC,
    });
    await sendAsAdmin(w.app, w.tx, bidder.signer, [bid]);
  }, 120_000);
  afterAll(() => w?.close());

  it("shows the collection's market: floor, best bid, the listing and the bid", async () => {
    const r = await w.app.inject({ url: `/nft/market?collection=${collection}&currency=${USDC_MINT}` });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({
      venue: "local",
      floorPrice: "650000000",
      bestBidPrice: "500000000",
      listings: [{ mint: listedMint, seller: seller.signer.address, price: "650000000" }],
      bids: [{ bidder: bidder.signer.address, price: "500000000" }],
    });
    const listings = await w.app.inject({ url: "/nft/mortgage-listings" });
    expect(listings.json()).toEqual([
      {
        listing: expect.objectContaining({ mint: listedMint, price: "650000000" }),
        pools: [
          { pool, mortgageAprBps: 1500, ltvBps: 5000, maxDurationSeconds: TEST_POOL_LIMITS.maxDuration },
        ],
      },
    ]);
  });

  it("instant-sells an NFT loan to the best bid: the loan ends Sold, the borrower keeps the rest", async () => {
    const nft = borrower.given.nfts.find((n) => n.collectionId === collection)!.mint;
    const taken = await buildSignSend(
      w.app,
      "/nft/take-loan",
      {
        borrower: borrower.signer.address,
        nftMint: nft,
        duration: 7 * DAY,
        amount: String(200n * USDC),
        pool: plainPool,
      },
      [borrower.signer],
    );
    const loan = taken.built.metadata.loan as Address;
    const quote = await post(w.app, "/nft/instant-sell-quote", { borrower: borrower.signer.address, loan });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body).toMatchObject({ bidPrice: "500000000", venue: "local" });
    const before = await tokenBalance(w, borrower.signer.address, USDC_MINT);
    // the main API's call, as the spec has it
    const sold = await buildSignSend(
      w.app,
      "/transactions/instant-sell",
      {
        signer: borrower.signer.address,
        loanAddress: loan,
        escrowAddress: decodeLoanAccount(await read(loan)).escrow,
        sellNowPrice: quote.body.bidPrice,
        amountToSend: quote.body.borrowerKeepsAtLeast,
      },
      [borrower.signer],
    );
    expect(sold.sent.result).not.toBeNull();
    const after = decodeLoanAccount(await read(loan));
    expect(after.status).toBe("Sold");
    expect(await tokenBalance(w, borrower.signer.address, USDC_MINT)).toBe(
      before + 500n * USDC - after.repaidAmount,
    );
    expect(await tokenBalance(w, bidder.signer.address, address(nft))).toBe(1n);
  });

  it("refuses an instant sell when no bid covers the loan, with the program's code", async () => {
    // the only bid was filled above: a new frog loan has no buyer
    const given = await w.net.faucet(borrower.signer.address);
    const frog = given.nfts.find((n) => n.collectionId === collection)!.mint;
    const taken = await buildSignSend(
      w.app,
      "/nft/take-loan",
      {
        borrower: borrower.signer.address,
        nftMint: frog,
        duration: 7 * DAY,
        amount: String(200n * USDC),
        pool: plainPool,
      },
      [borrower.signer],
    );
    const refused = await post(w.app, "/nft/instant-sell", {
      borrower: borrower.signer.address,
      loan: taken.built.metadata.loan,
    });
    expect([refused.status, refused.body.code]).toEqual([422, P.SaleShort]);
    expect(decodeLoanAccount(await read(taken.built.metadata.loan as Address)).status).toBe("Ongoing");
  });

  it("buys the listed NFT with a mortgage: the seller is paid, the NFT is locked in the loan at the mortgage APR", async () => {
    const quote = await post(w.app, "/nft/take-mortgage-quote", {
      buyer: buyer.signer.address,
      nftMint: listedMint,
      duration: 14 * DAY,
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    // 50% of the lower of the oracle's value (the ~600 USD floor, with the local price source's drift) and the price
    const principal = BigInt(quote.body.principal as string);
    expect(principal > 280n * USDC && principal <= 325n * USDC).toBe(true);
    expect(quote.body).toMatchObject({
      price: "650000000",
      downPayment: (650n * USDC - principal).toString(),
      aprBps: 1500,
      durationSeconds: 14 * DAY,
    });
    const sellerBefore = await tokenBalance(w, seller.signer.address, USDC_MINT);
    const buyerBefore = await tokenBalance(w, buyer.signer.address, USDC_MINT);
    const bought = await buildSignSend(
      w.app,
      "/nft/take-mortgage",
      { buyer: buyer.signer.address, nftMint: listedMint, duration: 14 * DAY },
      [buyer.signer],
    );
    expect(bought.built.kind).toBe("NormalCoSigned");
    expect(bought.sent.result).not.toBeNull();
    const loan = decodeLoanAccount(await read(bought.built.metadata.loan as Address));
    expect(loan).toMatchObject({
      kind: "Mortgage",
      aprBps: 1500,
      borrower: buyer.signer.address,
    });
    expect(await tokenBalance(w, seller.signer.address, USDC_MINT)).toBe(sellerBefore + 650n * USDC);
    expect(await tokenBalance(w, buyer.signer.address, USDC_MINT)).toBe(
      buyerBefore - (650n * USDC - loan.principal),
    );
    expect(loan.principal * 10_000n <= 650n * USDC * 5000n).toBe(true);
    expect(decodePoolAccount(await read(pool)).totalMortgages).toBe(1n);
    // sold: it is no longer listed
    const again = await post(w.app, "/nft/take-mortgage-quote", {
      buyer: buyer.signer.address,
      nftMint: listedMint,
      duration: 14 * DAY,
    });
    expect(again.status).toBe(400);
  });

  it("refuses a mortgage from a pool that does not offer them, with the program's code", async () => {
    const mint = address(seller.given.nfts.find((n) => n.collectionId !== collection)!.mint);
    const frog = address(bidder.given.nfts.find((n) => n.collectionId === collection)!.mint);
    await sendAsAdmin(w.app, w.tx, bidder.signer, [
      await getListNftInstruction({
        programAddress: w.nftMarket!,
        seller: bidder.signer.address,
        nftMint: frog,
        sellerNftAccount: await findAssociatedTokenAddress(bidder.signer.address, frog),
        currencyMint: USDC_MINT,
        price: 700n * USDC,
      }),
    ]);
    const refused = await post(w.app, "/nft/take-mortgage-quote", {
      buyer: buyer.signer.address,
      nftMint: frog,
      duration: 14 * DAY,
      pool: plainPool,
    });
    expect([refused.status, refused.body.code], JSON.stringify(refused.body)).toEqual([
      422,
      P.MortgageDisabled,
    ]);
    const unlisted = await post(w.app, "/nft/take-mortgage", {
      buyer: buyer.signer.address,
      nftMint: mint,
      duration: 14 * DAY,
    });
    expect(unlisted.status).toBe(400);
  });

  it("auto-sells an overdue NFT loan of an auto-sell pool to the best bid into the bank; without a covering bid, classic", async () => {
    const liquidation = {
      minAge: "0",
      minLoan: "0",
      minVolume: "0",
      liquidationThreshold: 0,
      isEnabled: 0,
      isWhitelistEnabled: 0,
      whitelist: "11111111111111111111111111111111",
      whitelistAddresses: [],
    };
    const autoSell = await buildSignSend(
      w.app,
      "/nft/update-pool",
      {
        pool: plainPool,
        owner: lender.address,
        enableAutoSell: true,
        param: {
          apr: 2000,
          loanApr: 2000,
          limits: TEST_POOL_LIMITS,
          conditions: liquidation,
          liquidation: { isAutoSellEnabled: true, loanLiquidation: 1000, mortgageLiquidation: 2000 },
          collections: [{ collection, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(autoSell.sent.result).not.toBeNull();
    const given = await w.net.faucet(borrower.signer.address);
    const frogs = given.nfts.filter((n) => n.collectionId === collection);
    const loans: Address[] = [];
    for (const frog of [
      frogs[0]!,
      (await w.net.faucet(borrower.signer.address)).nfts.find((n) => n.collectionId === collection)!,
    ]) {
      const taken = await buildSignSend(
        w.app,
        "/nft/take-loan",
        {
          borrower: borrower.signer.address,
          nftMint: frog.mint,
          duration: DAY,
          amount: String(100n * USDC),
          pool: plainPool,
        },
        [borrower.signer],
      );
      loans.push(taken.built.metadata.loan as Address);
    }
    await sendAsAdmin(w.app, w.tx, bidder.signer, [
      await getPlaceBidInstruction({
        programAddress: w.nftMarket!,
        bidder: bidder.signer.address,
        nonce: 2n,
        collection: address(collection),
        currencyMint: USDC_MINT,
        bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.signer.address, USDC_MINT),
        price: 300n * USDC,
      }),
    ]);
    const target = (await w.tx.clock.unixTime()) + DAY + 2 * 3600;
    await w.net.advanceClock(DAY + 2 * 3600);
    await expect.poll(() => w.tx.clock.unixTime(), { timeout: 10_000 }).toBeGreaterThanOrEqual(target);
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const [vaultAddress] = await findVaultPda(w.programId, bank);
    const vaultBalance = async () => Buffer.from(await read(vaultAddress)).readBigUInt64LE(64);
    const before = await vaultBalance();
    const sold = await buildSignSend(
      w.app,
      "/nft/liquidate-loan",
      { loan: loans[0], payer: lender.address },
      [lender],
    );
    expect(sold.built.metadata).toMatchObject({ autoSell: true, expectedProceeds: "300000000" });
    expect(sold.sent.result).not.toBeNull();
    expect(decodeLoanAccount(await read(loans[0]!))).toMatchObject({
      status: "Liquidated",
      repaidAmount: 300n * USDC,
    });
    expect(await vaultBalance()).toBe(before + 300n * USDC);
    // the only bid is gone: the second loan is liquidated the classic way, its NFT to the pool owner
    const classic = await buildSignSend(
      w.app,
      "/nft/liquidate-loan",
      { loan: loans[1], payer: lender.address },
      [lender],
    );
    expect(classic.built.metadata).toMatchObject({ autoSell: false });
    const nft = decodeLoanAccount(await read(loans[1]!)).collateralMint;
    expect(await tokenBalance(w, lender.address, nft)).toBe(1n);
  });
});
