// The sale endings of a loan against a Metaplex Core asset through the API on the localnet (the real Core program and
// the local NFT market): the borrower's instant sell into a collection bid, the mortgage purchase of a listed Core
// asset, the auto-sell of a defaulted Core loan by the liquidation route and of a defaulted pNFT loan (escrowless, and a
// filled request's the loan PDA holds) by the keeper; what the chain holds after each.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  decodeBankAccount,
  decodeCoreAsset,
  decodeLoanAccount,
  findBankPda,
  findVaultPda,
  getListCoreAssetInstruction,
  getPlaceBidInstruction,
} from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import { createLiquidationKeeper } from "../../src/tx/keeper/liquidation-keeper.ts";
import {
  ALL_STANDARDS_PRICES,
  DEMO_CORE_COLLECTION,
  DEMO_PNFT_COLLECTION,
  writeCatalogWithAllStandards,
} from "../helpers/nft-standards-catalog.ts";
import {
  advanceClock,
  buildSignSend,
  createNftPool,
  fundedWallet,
  nftPoolUpdateBody,
  post,
  sendAsAdmin,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const USDC = 1_000_000n;
const KOI = address(DEMO_CORE_COLLECTION.collectionId);
const PETL = address(DEMO_PNFT_COLLECTION.collectionId);

describe("sales of Core loans through the API (real Core program, local NFT market)", () => {
  let w: TxWorld;
  let dir: string;
  let lender: KeyPairSigner;
  let pool: Address;
  let borrower: Awaited<ReturnType<typeof fundedWallet>>;
  let bidder: Awaited<ReturnType<typeof fundedWallet>>;
  let seller: Awaited<ReturnType<typeof fundedWallet>>;
  let listed: Address;

  const read = async (a: Address) => (await w.tx.state.getAccounts([a]))[0]!.data;
  const ownerOf = async (asset: Address) => decodeCoreAsset(await read(asset))?.owner;
  const balance = async (owner: Address) => {
    const [account] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(owner, USDC_MINT)]);
    return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
  };
  let bidNonce = 1n;
  const bid = async (price: bigint, collection = KOI) =>
    sendAsAdmin(w.app, w.tx, bidder.signer, [
      await getPlaceBidInstruction({
        programAddress: w.nftMarket!,
        bidder: bidder.signer.address,
        nonce: bidNonce++,
        collection,
        currencyMint: USDC_MINT,
        bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.signer.address, USDC_MINT),
        price,
      }),
    ]);
  const borrow = async (asset: string, duration: number) => {
    const r = await buildSignSend(
      w.app,
      "/nft/take-loan",
      { borrower: borrower.signer.address, nftMint: asset, duration, amount: String(100n * USDC), pool },
      [borrower.signer],
    );
    expect(r.sent.error).toBeUndefined();
    return r.built.metadata.loan as Address;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-core-sales-"));
    w = await startTxWorld({
      nftMarket: true,
      env: { CATALOG_FILE: writeCatalogWithAllStandards(dir) },
      prices: ALL_STANDARDS_PRICES,
    });
    // the demo rule set lets the programs it lists hold a delegate of (or receive) the demo pNFTs
    await w.net.setDemoRuleSetPrograms([w.programId, w.nftMarket!]);
    lender = (await fundedWallet(w.net)).signer;
    [borrower, bidder, seller] = await Promise.all([
      fundedWallet(w.net),
      fundedWallet(w.net),
      fundedWallet(w.net),
    ]);
    pool = await createNftPool(w, lender, {
      seed: 9,
      mint: USDC_MINT,
      amountBaseUnits: 5_000_000_000n,
      collections: [KOI, PETL],
    });
    const updated = await buildSignSend(
      w.app,
      "/nft/update-pool",
      nftPoolUpdateBody({
        pool,
        owner: lender.address,
        apr: 2000,
        limits: TEST_POOL_LIMITS,
        collections: [KOI, PETL],
        mortgageApr: 1500,
        autoSell: true,
      }),
      [lender],
    );
    expect(updated.sent.error).toBeUndefined();
    // the seller lists its Koi at 200 USDC (the listing PDA owns it)
    listed = address(seller.given.coreAssets[0]!.asset);
    await sendAsAdmin(w.app, w.tx, seller.signer, [
      await getListCoreAssetInstruction({
        programAddress: w.nftMarket!,
        seller: seller.signer.address,
        asset: listed,
        collection: KOI,
        currencyMint: USDC_MINT,
        price: 200n * USDC,
      }),
    ]);
    // the protocol's lookup table, as npm start's keeper keeps it (a pNFT's instant sell loads from it)
    await ensureProtocolLookupTable(w.tx, lender);
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("instant-sells a Core loan to the best bid: the bidder owns the asset, the loan ends Sold, the borrower keeps the rest", async () => {
    const asset = address(borrower.given.coreAssets[0]!.asset);
    const loan = await borrow(asset, 7 * DAY);
    expect(await ownerOf(asset)).toBe(loan);
    await bid(300n * USDC);
    const quote = await post(w.app, "/nft/instant-sell-quote", { borrower: borrower.signer.address, loan });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body).toMatchObject({ bidPrice: "300000000", collection: KOI });
    const before = await balance(borrower.signer.address);
    // the main API's call, as the spec has it: the escrow of a Core loan is the asset
    const sold = await buildSignSend(
      w.app,
      "/transactions/instant-sell",
      {
        signer: borrower.signer.address,
        loanAddress: loan,
        escrowAddress: asset,
        sellNowPrice: quote.body.bidPrice,
        amountToSend: quote.body.borrowerKeepsAtLeast,
      },
      [borrower.signer],
    );
    expect(sold.sent.error).toBeUndefined();
    expect(await ownerOf(asset)).toBe(bidder.signer.address);
    const after = decodeLoanAccount(await read(loan));
    expect(after).toMatchObject({ status: "Sold", nftType: "CoreNft" });
    expect(await balance(borrower.signer.address)).toBe(before + 300n * USDC - after.repaidAmount);
  });

  it("instant-sells a pNFT loan: the loan PDA moves it to its own account, the bidder ends holding it, the loan Sold", async () => {
    const pnft = address(borrower.given.programmableNfts[0]!.mint);
    const loan = await borrow(pnft, 7 * DAY);
    await bid(400n * USDC, PETL);
    const quote = await post(w.app, "/nft/instant-sell-quote", { borrower: borrower.signer.address, loan });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body).toMatchObject({ bidPrice: "400000000", collection: PETL });
    const before = await balance(borrower.signer.address);
    const sold = await buildSignSend(
      w.app,
      "/nft/instant-sell",
      { borrower: borrower.signer.address, loan, minPrice: quote.body.bidPrice },
      [borrower.signer],
    );
    expect(sold.sent.error).toBeUndefined();
    const bytes = Buffer.from(sold.built.transactions[0]!, "base64").length;
    expect(bytes).toBeLessThanOrEqual(1232);
    const after = decodeLoanAccount(await read(loan));
    expect(after).toMatchObject({ status: "Sold", nftType: "ProgrammableNft" });
    expect(await balance(borrower.signer.address)).toBe(before + 400n * USDC - after.repaidAmount);
    const held = async (owner: Address) => {
      const [account] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(owner, pnft)]);
      return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
    };
    expect([
      await held(bidder.signer.address),
      await held(borrower.signer.address),
      await held(loan),
    ]).toEqual([1n, 0n, 0n]);
  });

  it("buys the listed Core asset with a mortgage: the loan PDA owns it, the seller is paid, the loan is a Core mortgage", async () => {
    const quote = await post(w.app, "/nft/take-mortgage-quote", {
      buyer: borrower.signer.address,
      nftMint: listed,
      duration: 14 * DAY,
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body).toMatchObject({ price: "200000000", aprBps: 1500, collection: KOI });
    const sellerBefore = await balance(seller.signer.address);
    const bought = await buildSignSend(
      w.app,
      "/nft/take-mortgage",
      { buyer: borrower.signer.address, nftMint: listed, duration: 14 * DAY },
      [borrower.signer],
    );
    expect(bought.sent.error).toBeUndefined();
    const loan = bought.built.metadata.loan as Address;
    expect(await ownerOf(listed)).toBe(loan);
    expect(decodeLoanAccount(await read(loan))).toMatchObject({
      kind: "Mortgage",
      nftType: "CoreNft",
      status: "Ongoing",
      escrow: listed,
      collection: KOI,
      aprBps: 1500,
    });
    expect(await balance(seller.signer.address)).toBe(sellerBefore + 200n * USDC);
  });

  it("auto-sells a defaulted Core loan of an auto-sell pool into the bank: the bidder owns the asset", async () => {
    const asset = address((await w.net.faucet(borrower.signer.address)).coreAssets[0]!.asset);
    const loan = await borrow(asset, DAY);
    await bid(250n * USDC);
    await advanceClock(w, DAY + 2 * 3600);
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const [vault] = await findVaultPda(w.programId, bank);
    const vaultBalance = async () => Buffer.from(await read(vault)).readBigUInt64LE(64);
    const before = await vaultBalance();
    const sold = await buildSignSend(w.app, "/nft/liquidate-loan", { loan, payer: lender.address }, [lender]);
    expect(sold.built.metadata).toMatchObject({ autoSell: true, expectedProceeds: "250000000" });
    expect(sold.sent.error).toBeUndefined();
    expect(await ownerOf(asset)).toBe(bidder.signer.address);
    expect(decodeLoanAccount(await read(loan))).toMatchObject({
      status: "Liquidated",
      repaidAmount: 250n * USDC,
    });
    expect(await vaultBalance()).toBe(before + 250n * USDC);
  });

  it("the keeper auto-sells a defaulted pNFT loan of an auto-sell pool into the bank: the bidder holds the pNFT", async () => {
    const pnft = address((await w.net.faucet(borrower.signer.address)).programmableNfts[0]!.mint);
    const loan = await borrow(pnft, DAY);
    await bid(350n * USDC, PETL);
    await advanceClock(w, DAY + 2 * 3600);
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const available = async () => decodeBankAccount(await read(bank)).availableLiquidity;
    const before = await available();
    const keeper = (await fundedWallet(w.net)).signer;
    const quiet = { info: () => undefined, warn: () => undefined };
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    expect(round.liquidated).toEqual([expect.objectContaining({ loan, autoSold: true })]);

    w.tx.state.invalidate();
    const held = async (owner: Address) => {
      const [account] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(owner, pnft)]);
      return account ? Buffer.from(account.data).readBigUInt64LE(64) : null;
    };
    // the bidder holds it; the borrower's account is empty, the loan PDA's closed; the pool owner got no pNFT
    expect([
      await held(bidder.signer.address),
      await held(borrower.signer.address),
      await held(loan),
      await held(lender.address),
    ]).toEqual([1n, 0n, null, null]);
    expect(decodeLoanAccount(await read(loan))).toMatchObject({
      status: "Liquidated",
      closedBy: "AutoSold",
      nftType: "ProgrammableNft",
      repaidAmount: 350n * USDC,
    });
    // the lenders' liquidity grew by the sale (the round then sent the protocol fees the vault held to the treasury)
    expect(await available()).toBe(before + 350n * USDC);
  }, 120_000);

  it("the keeper liquidates a defaulted pNFT loan to the pool owner when no bid covers what is owed", async () => {
    const pnft = address((await w.net.faucet(borrower.signer.address)).programmableNfts[0]!.mint);
    const loan = await borrow(pnft, DAY);
    await bid(10n * USDC, PETL); // below the 100 USDC lent
    await advanceClock(w, DAY + 2 * 3600);
    const keeper = (await fundedWallet(w.net)).signer;
    const quiet = { info: () => undefined, warn: () => undefined };
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    expect(round.liquidated).toEqual([expect.objectContaining({ loan, autoSold: false })]);
    w.tx.state.invalidate();
    const [ata] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(lender.address, pnft)]);
    expect(ata ? Buffer.from(ata.data).readBigUInt64LE(64) : null).toBe(1n);
    expect(decodeLoanAccount(await read(loan))).toMatchObject({
      status: "Liquidated",
      closedBy: "Liquidated",
    });
  }, 120_000);

  it("the keeper auto-sells a filled pNFT request's loan (the loan PDA holds it, nftType 4) into the bank: the bidder holds the pNFT", async () => {
    const pnft = address((await w.net.faucet(borrower.signer.address)).programmableNfts[0]!.mint);
    const posted = await buildSignSend(
      w.app,
      "/nft/post-loan-request",
      {
        borrower: borrower.signer.address,
        nftMint: pnft,
        currency: USDC_MINT,
        amount: String(100n * USDC),
        duration: DAY,
        maxApr: 4000,
      },
      [borrower.signer],
    );
    expect(posted.sent.error).toBeUndefined();
    const filled = await buildSignSend(
      w.app,
      "/loan-request/fill",
      { lender: lender.address, request: posted.built.metadata.request as string, pool },
      [lender],
    );
    expect(filled.sent.error).toBeUndefined();
    const loan = filled.built.metadata.loan as Address;
    expect(decodeLoanAccount(await read(loan))).toMatchObject({ nftType: "ProgrammableNft", pnftHeld: true });
    await bid(350n * USDC, PETL);
    await advanceClock(w, DAY + 2 * 3600);
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const available = async () => decodeBankAccount(await read(bank)).availableLiquidity;
    const before = await available();
    const keeper = (await fundedWallet(w.net)).signer;
    const quiet = { info: () => undefined, warn: () => undefined };
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    expect(round.liquidated).toEqual([expect.objectContaining({ loan, autoSold: true })]);

    w.tx.state.invalidate();
    const held = async (owner: Address) => {
      const [account] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(owner, pnft)]);
      return account ? Buffer.from(account.data).readBigUInt64LE(64) : null;
    };
    // the bidder holds it; the loan PDA's account closed; the pool owner got no pNFT
    expect([await held(bidder.signer.address), await held(loan), await held(lender.address)]).toEqual([
      1n,
      null,
      null,
    ]);
    expect(decodeLoanAccount(await read(loan))).toMatchObject({
      status: "Liquidated",
      closedBy: "AutoSold",
      nftType: "ProgrammableNft",
      pnftHeld: true,
      repaidAmount: 350n * USDC,
    });
    expect(await available()).toBe(before + 350n * USDC);
  }, 120_000);
});
