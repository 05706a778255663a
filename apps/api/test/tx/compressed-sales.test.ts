// The sale endings of a loan against a compressed NFT through the API on the localnet (real Bubblegum, Compression and
// Noop, DAS served from the localnet's chain, the local NFT market pinned): the borrower's instant sell into the best
// collection bid (a fresh proof from DAS at build time), and the auto-sell of a defaulted loan by the liquidation
// keeper into the bank's vault; the leaf's owner through DAS getAsset after each.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  decodeBankAccount,
  decodeLoanAccount,
  findBankPda,
  findVaultPda,
  getPlaceBidInstruction,
} from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import { createLiquidationKeeper } from "../../src/tx/keeper/liquidation-keeper.ts";
import { dasOwner as dasOwnerAt } from "../helpers/das-owner.ts";
import { DEMO_PRICES } from "../helpers/fixed-valuation.ts";
import { DEMO_COMPRESSED_COLLECTION, writeCatalogWithShells } from "../helpers/nft-standards-catalog.ts";
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
const SHELLS = DEMO_COMPRESSED_COLLECTION;
const quiet = { info: () => {}, warn: () => {} };
const wireBytes = (b64: string) => Buffer.from(b64, "base64").length;

describe("sales of compressed NFT loans through the API (real Bubblegum, DAS, local NFT market)", () => {
  let w: TxWorld;
  let dir: string;
  let lender: KeyPairSigner;
  let pool: Address;
  let bidder: Awaited<ReturnType<typeof fundedWallet>>;
  const figures: string[] = [];
  const dasOwner = (assetId: string) => dasOwnerAt(w.net.rpcUrl, assetId);
  const read = async (a: Address) => (await w.tx.state.getAccounts([a]))[0]!.data;
  const balance = async (owner: Address) => {
    const [account] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(owner, USDC_MINT)]);
    return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
  };
  let bidNonce = 1n;
  const bid = async (price: bigint) =>
    sendAsAdmin(w.app, w.tx, bidder.signer, [
      await getPlaceBidInstruction({
        programAddress: w.nftMarket!,
        bidder: bidder.signer.address,
        nonce: bidNonce++,
        collection: address(SHELLS.collectionId),
        currencyMint: USDC_MINT,
        bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.signer.address, USDC_MINT),
        price,
      }),
    ]);
  const borrow = async (borrower: KeyPairSigner, nftMint: string, duration: number) => {
    const r = await buildSignSend(
      w.app,
      "/nft/take-loan",
      { borrower: borrower.address, nftMint, duration, amount: String(100n * USDC), pool },
      [borrower],
    );
    expect(r.sent.error).toBeUndefined();
    return r.built.metadata.loan as Address;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-cnft-sales-"));
    w = await startTxWorld({
      nftMarket: true,
      env: { CATALOG_FILE: writeCatalogWithShells(dir) },
      prices: {
        tokens: DEMO_PRICES.tokens,
        collections: { ...DEMO_PRICES.collections, [SHELLS.collectionId]: 10_000_000_000n },
      },
    });
    lender = (await fundedWallet(w.net)).signer;
    bidder = await fundedWallet(w.net);
    pool = await createNftPool(w, lender, {
      seed: 9,
      mint: USDC_MINT,
      amountBaseUnits: 5_000_000_000n,
      collections: [SHELLS.collectionId],
    });
    const updated = await buildSignSend(
      w.app,
      "/nft/update-pool",
      nftPoolUpdateBody({
        pool,
        owner: lender.address,
        apr: 2000,
        limits: TEST_POOL_LIMITS,
        collections: [SHELLS.collectionId],
        autoSell: true,
      }),
      [lender],
    );
    expect(updated.sent.error).toBeUndefined();
    // the protocol's lookup table (Bubblegum, Compression and Noop among its addresses)
    await ensureProtocolLookupTable(w.tx, lender);
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    console.log(figures.join("\n"));
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("instant-sells a compressed NFT loan to the best bid after the tree changed: the bidder owns the leaf, the loan ends Sold", async () => {
    const b = await fundedWallet(w.net);
    const leaf = b.given.compressedNfts[0]!.assetId;
    const loan = await borrow(b.signer, leaf, 7 * DAY);
    expect(await dasOwner(leaf)).toBe(loan);
    // no bid yet: refused in one sentence with the program's SaleShort code, nothing built
    const none = await post(w.app, "/nft/instant-sell-quote", { borrower: b.signer.address, loan });
    expect(none.status).toBe(422);
    await bid(300n * USDC);
    await fundedWallet(w.net); // another leaf of the tree changes: the sale's proof is taken fresh from DAS
    const quote = await post(w.app, "/nft/instant-sell-quote", { borrower: b.signer.address, loan });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body).toMatchObject({ bidPrice: "300000000", collection: SHELLS.collectionId });
    const before = await balance(b.signer.address);
    const sold = await buildSignSend(
      w.app,
      "/nft/instant-sell",
      { borrower: b.signer.address, loan, minPrice: quote.body.bidPrice },
      [b.signer],
    );
    expect(sold.sent.error).toBeUndefined();
    const bytes = wireBytes(sold.built.transactions[0]!);
    figures.push(
      `cNFT instant sell: ${bytes} B, CU limit ${(sold.built.metadata.computeUnits as number[])[0]}`,
    );
    expect(bytes).toBeLessThanOrEqual(1232);
    expect(await dasOwner(leaf)).toBe(bidder.signer.address);
    const after = decodeLoanAccount(await read(loan));
    expect(after).toMatchObject({ status: "Sold", nftType: "CompressedNft" });
    expect(await balance(b.signer.address)).toBe(before + 300n * USDC - after.repaidAmount);
  }, 240_000);

  it("the keeper auto-sells a defaulted compressed NFT loan into the bank: the bidder owns the leaf", async () => {
    const b = await fundedWallet(w.net);
    const leaf = b.given.compressedNfts[0]!.assetId;
    const loan = await borrow(b.signer, leaf, DAY);
    await bid(250n * USDC);
    await fundedWallet(w.net); // the tree changes before the liquidation
    await advanceClock(w, DAY + 2 * 3600);
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const [vault] = await findVaultPda(w.programId, bank);
    const vaultBalance = async () => Buffer.from(await read(vault)).readBigUInt64LE(64);
    const before = await vaultBalance();
    // the protocol fee the first test's sale left owed in the vault: the keeper's round may collect it (CollectFees)
    const feesOwed = decodeBankAccount(await read(bank)).feesOwed;
    const keeper = (await fundedWallet(w.net)).signer;
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    const done = round.liquidated.find((l) => l.loan === loan)!;
    expect(done).toBeDefined();
    const t = await w.tx.app.rpc.call<{
      transaction: [string, string];
      meta: { computeUnitsConsumed: number };
    }>("getTransaction", [
      done.signature,
      { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
    ]);
    figures.push(
      `keeper auto-sell of the cNFT: ${wireBytes(t.transaction[0])} B, ${t.meta.computeUnitsConsumed} CU used`,
    );
    expect(wireBytes(t.transaction[0])).toBeLessThanOrEqual(1232);
    expect(await dasOwner(leaf)).toBe(bidder.signer.address);
    expect(decodeLoanAccount(await read(loan))).toMatchObject({
      status: "Liquidated",
      repaidAmount: 250n * USDC,
    });
    const collected = feesOwed - decodeBankAccount(await read(bank)).feesOwed;
    expect(await vaultBalance()).toBe(before + 250n * USDC - collected);
  }, 240_000);
});
