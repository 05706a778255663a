// The mortgage of a programmable NFT listed on the local NFT market, through the API on a localnet running the real
// Token Metadata and Token Auth Rules: GET /nft/mortgage-listings offers the pools that finance it, the builder reads
// the pNFT's accounts for the buyer's associated token account and simulates first (a rule set that refuses the
// loan answers TRANSACTION_SEND_RULE_SET_REFUSED before anything is signed), and once signed the pNFT sits in the
// buyer's own account, delegated to the loan PDA and locked. Adversarial cases first.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeLoanAccount, decodeTokenRecord, findTokenRecordPda } from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import {
  ALL_STANDARDS_PRICES,
  DEMO_PNFT_COLLECTION,
  writeCatalogWithAllStandards,
} from "../helpers/nft-standards-catalog.ts";
import {
  buildSignSend,
  createNftPool,
  fundedWallet,
  nftPoolUpdateBody,
  post,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const USDC = 1_000_000n;
const PETL = address(DEMO_PNFT_COLLECTION.collectionId);
const REFUSED = {
  code: 5006,
  name: "TRANSACTION_SEND_RULE_SET_REFUSED",
  message: "This NFT's rule set does not allow the transfers a loan needs, so it cannot be borrowed against.",
};

describe("mortgage of a listed pNFT through the API (real Token Metadata and Token Auth Rules, local NFT market)", () => {
  let w: TxWorld;
  let dir: string;
  let lender: KeyPairSigner;
  let pool: Address;
  let buyer: Awaited<ReturnType<typeof fundedWallet>>;
  let seller: Awaited<ReturnType<typeof fundedWallet>>;
  let nft: Address;

  const account = async (a: Address) => (await w.tx.state.getAccounts([a]))[0] ?? null;
  const balance = async (owner: Address) => {
    const found = await account(await findAssociatedTokenAddress(owner, USDC_MINT));
    return found ? Buffer.from(found.data).readBigUInt64LE(64) : 0n;
  };
  /** The buyer's associated token account of the pNFT: what it holds, and its token record. */
  async function buyerHolding() {
    const token = await findAssociatedTokenAddress(buyer.signer.address, nft);
    const [held, record] = await Promise.all([
      account(token),
      account((await findTokenRecordPda(nft, token))[0]),
    ]);
    return {
      token,
      amount: held ? Buffer.from(held.data).readBigUInt64LE(64) : 0n,
      record: record ? decodeTokenRecord(record.data) : null,
    };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-pnft-mortgage-"));
    w = await startTxWorld({
      nftMarket: true,
      env: { CATALOG_FILE: writeCatalogWithAllStandards(dir) },
      prices: ALL_STANDARDS_PRICES,
    });
    await w.net.setDemoRuleSetPrograms([w.programId, w.nftMarket!]);
    lender = (await fundedWallet(w.net)).signer;
    [buyer, seller] = await Promise.all([fundedWallet(w.net), fundedWallet(w.net)]);
    pool = await createNftPool(w, lender, {
      seed: 11,
      mint: USDC_MINT,
      amountBaseUnits: 5_000_000_000n,
      collections: [PETL],
    });
    const updated = await buildSignSend(
      w.app,
      "/nft/update-pool",
      nftPoolUpdateBody({
        pool,
        owner: lender.address,
        apr: 2000,
        limits: TEST_POOL_LIMITS,
        collections: [PETL],
        mortgageApr: 1500,
      }),
      [lender],
    );
    expect(updated.sent.error).toBeUndefined();
    // the seller lists its Storm Petrel at 200 USDC through the builder
    nft = address(seller.given.programmableNfts[0]!.mint);
    const listed = await buildSignSend(
      w.app,
      "/nft/list",
      { seller: seller.signer.address, nftMint: nft, currency: USDC_MINT, price: String(200n * USDC) },
      [seller.signer],
    );
    expect(listed.sent.error).toBeUndefined();
    // the protocol's lookup table, as npm start's keeper keeps it (a pNFT's mortgage loads from it)
    await ensureProtocolLookupTable(w.tx, lender);
    w.tx.state.invalidate();
  }, 240_000);
  afterAll(async () => {
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the pNFT with the pool that finances it; a rule set that refuses the lending program is told before signing, nothing bought", async () => {
    const listings = await w.app.inject({ url: "/nft/mortgage-listings" });
    expect(listings.statusCode).toBe(200);
    const ours = (
      listings.json() as { listing: { mint: string; standard: string }; pools: { pool: string }[] }[]
    ).find((l) => l.listing.mint === nft);
    expect(ours).toMatchObject({
      listing: { mint: nft, standard: "programmable", price: String(200n * USDC) },
      pools: [{ pool, mortgageAprBps: 1500, ltvBps: expect.any(Number) }],
    });

    // the rule set allows the market only: the quote measures the mortgage's transaction (its costs), so the quote
    // already meets Token Auth Rules' refusal, and so does the build
    await w.net.setDemoRuleSetPrograms([w.nftMarket!]);
    w.tx.state.invalidate();
    try {
      const quote = await post(w.app, "/nft/take-mortgage-quote", {
        buyer: buyer.signer.address,
        nftMint: nft,
        duration: 14 * DAY,
      });
      expect(quote.status, JSON.stringify(quote.body)).toBe(422);
      expect(quote.body).toMatchObject(REFUSED);
      const refused = await post(w.app, "/nft/take-mortgage", {
        buyer: buyer.signer.address,
        nftMint: nft,
        duration: 14 * DAY,
      });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject(REFUSED);
      expect(refused.body.transactions).toBeUndefined();
    } finally {
      await w.net.setDemoRuleSetPrograms([w.programId, w.nftMarket!]);
      w.tx.state.invalidate();
    }
    expect((await buyerHolding()).amount).toBe(0n);
    expect(await w.tx.state.getBorrowerLoans(buyer.signer.address)).toEqual([]);
  }, 120_000);

  it("buys it with a mortgage: the buyer's account holds it, delegated to the loan PDA and locked; the seller is paid", async () => {
    const quote = await post(w.app, "/nft/take-mortgage-quote", {
      buyer: buyer.signer.address,
      nftMint: nft,
      duration: 14 * DAY,
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body).toMatchObject({ price: String(200n * USDC), aprBps: 1500, collection: PETL });
    const [sellerBefore, buyerBefore] = [
      await balance(seller.signer.address),
      await balance(buyer.signer.address),
    ];
    const bought = await buildSignSend(
      w.app,
      "/nft/take-mortgage",
      { buyer: buyer.signer.address, nftMint: nft, duration: 14 * DAY },
      [buyer.signer],
    );
    expect(bought.sent.error).toBeUndefined();
    console.log(
      `POST /nft/take-mortgage of a pNFT: compute unit limit ${JSON.stringify(bought.built.metadata?.computeUnits)}`,
    );
    w.tx.state.invalidate();
    const loan = bought.built.metadata.loan as Address;
    const holding = await buyerHolding();
    expect(holding.amount).toBe(1n);
    expect(holding.record).toEqual({ state: "Locked", delegate: loan });
    const principal = BigInt(quote.body.principal as string);
    expect(decodeLoanAccount((await account(loan))!.data)).toMatchObject({
      kind: "Mortgage",
      nftType: "ProgrammableNft",
      status: "Ongoing",
      escrow: holding.token,
      collateralMint: nft,
      collection: PETL,
      aprBps: 1500,
      principal,
    });
    expect(await balance(seller.signer.address)).toBe(sellerBefore + 200n * USDC);
    expect(await balance(buyer.signer.address)).toBe(buyerBefore - 200n * USDC + principal);
  }, 120_000);
});
