// What a standard changes in the sale endings (MarketSell, LiquidateSell) and in TakeMortgage (LAYOUT.md "Sales of a
// Core asset"); the builders run against the real program in programs/lending/test/core-sale.test.ts.
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  getLiquidateSellInstruction,
  getMarketSellInstruction,
  getMortgageCustody,
  getSaleCustody,
  getTakeMortgageInstruction,
  type NftCustody,
} from "../src/index.ts";

const address = async () => (await generateKeyPairSigner()).address;

describe("sale and mortgage custody per standard", () => {
  it("a Core asset: accounts 7 and 8 the asset; a mortgage writes it, names its collection at 13 and byte 121 = 2", async () => {
    const asset = await address();
    const collection = await address();
    const owner = await address();
    const program = await address();
    const pool = await address();
    const bank = await address();
    const loan = await address();
    const currency = await address();
    const market = await address();
    const core: NftCustody = { standard: "CoreNft", asset, collection, owner };
    const none = new Uint8Array();
    expect(getSaleCustody(core)).toEqual({ holder: asset, collateralAccount: asset, dataPrefix: none });
    expect(getSaleCustody({ standard: "Nft" })).toEqual({
      holder: null,
      collateralAccount: null,
      dataPrefix: none,
    });
    expect(getMortgageCustody(core)).toEqual({
      holder: asset,
      mintWritable: true,
      replacesMetadata: collection,
      nftType: 2,
    });
    const sell = await getMarketSellInstruction({
      programAddress: program,
      borrower: owner,
      pool,
      bank,
      loan,
      borrowerCollateralTokenAccount: currency,
      borrowerCurrencyTokenAccount: currency,
      swap: { programAddress: market, accounts: [], data: Uint8Array.of(9) },
      custody: core,
    });
    expect([sell.accounts![7]!.address, sell.accounts![8]!.address]).toEqual([asset, asset]);
    expect(sell.data).toEqual(Uint8Array.of(13, 9)); // tag, then the venue's data
    const buy = { programAddress: market, accounts: [], data: Uint8Array.of(8) };
    const mortgage = await getTakeMortgageInstruction({
      programAddress: program,
      borrower: owner,
      oracle: owner,
      pool,
      bank,
      collateralMint: asset,
      borrowerCurrencyTokenAccount: currency,
      buy,
      custody: core,
      nonce: 1n,
      principalBaseUnits: 1n,
      durationSeconds: 86_400n,
      collateralAmountBaseUnits: 1n,
      expectedAprBps: 1500,
      attestation: {
        collateralValueBaseUnits: 2n,
        collection,
        currencyPriceMicroUsd: 1_000_000n,
        walletAgeSeconds: 0n,
        pastLoans: 0n,
        volumeMicroUsd: 0n,
        slot: 1n,
      },
    });
    const a = mortgage.accounts!;
    expect([a[7]!.address, a[8]!.address, a[13]!.address]).toEqual([asset, asset, collection]);
    expect(mortgage.escrow).toBe(asset);
    expect([mortgage.data![2], mortgage.data![3], mortgage.data![121]]).toEqual([0, 0, 2]);
  });

  it("a compressed NFT: accounts 7 and 8 the tree, the leaf's data hash and creator hash between the tag and the venue's data", async () => {
    const [tree, treeConfig, assetId, owner, program, pool, bank, loan, currency, market] = [
      await address(),
      await address(),
      await address(),
      await address(),
      await address(),
      await address(),
      await address(),
      await address(),
      await address(),
      await address(),
    ];
    const dataHash = new Uint8Array(32).fill(7);
    const creatorHash = new Uint8Array(32).fill(9);
    const leaf = {
      standard: "CompressedNft",
      tree,
      treeConfig,
      treeConfigBump: 255,
      assetId,
      assetBump: 254,
      nonce: 3n,
      root: new Uint8Array(32),
      proof: [],
      dataHash,
      creatorHash,
      metadataArgs: new Uint8Array(),
      collection: null,
      owner: loan,
      delegate: loan,
    } as NftCustody;
    expect(getSaleCustody(leaf)).toEqual({
      holder: tree,
      collateralAccount: tree,
      dataPrefix: Uint8Array.from([...dataHash, ...creatorHash]),
    });
    const sell = await getMarketSellInstruction({
      programAddress: program,
      borrower: owner,
      pool,
      bank,
      loan,
      borrowerCollateralTokenAccount: currency,
      borrowerCurrencyTokenAccount: currency,
      swap: { programAddress: market, accounts: [], data: Uint8Array.of(17, 1) },
      custody: leaf,
    });
    expect([sell.accounts![7]!.address, sell.accounts![8]!.address]).toEqual([tree, tree]);
    expect(sell.data).toEqual(Uint8Array.from([13, ...dataHash, ...creatorHash, 17, 1]));
  });

  it("a pNFT's sale: 7 its token account, 8 its record, the auto-sell the borrower's wallet before the venue; refused for a mortgage, a compressed NFT for a mortgage, with a sentence", async () => {
    const mint = await address();
    const tokenAccount = await address();
    const tokenRecord = await address();
    const pnft = { standard: "ProgrammableNft", mint, tokenAccount, tokenRecord } as unknown as NftCustody;
    const cnft = { standard: "CompressedNft", assetId: mint } as unknown as NftCustody;
    expect(getSaleCustody(pnft)).toEqual({
      holder: tokenAccount,
      collateralAccount: tokenRecord,
      dataPrefix: new Uint8Array(),
    });
    expect(() => getSaleCustody(pnft, "LiquidateSell")).toThrow(/needs the borrower's wallet/);
    const borrower = await address();
    const market = await address();
    const seller = await address();
    const autoSell = await getLiquidateSellInstruction({
      programAddress: await address(),
      liquidator: await address(),
      pool: await address(),
      bank: await address(),
      loan: seller,
      poolOwnerCollateralTokenAccount: await address(),
      swap: { programAddress: market, accounts: [{ address: seller, role: 1 }], data: Uint8Array.of(13) },
      custody: pnft,
      borrower,
    });
    // 7 the token account, 8 its record, 10 the market, 11 the borrower's wallet, 12 the market's first account
    expect(autoSell.accounts!.slice(7, 13).map((a) => a.address)).toEqual([
      tokenAccount,
      tokenRecord,
      autoSell.accounts![9]!.address,
      market,
      borrower,
      seller,
    ]);
    expect(() => getMortgageCustody(pnft)).toThrow(/programmable NFT .* not available/);
    expect(() => getMortgageCustody(cnft)).toThrow(/compressed NFT .* not available/);
    expect(() =>
      getMortgageCustody({ standard: "CoreNft", asset: mint, collection: null, owner: mint }),
    ).toThrow(/belongs to no collection/);
  });
});
