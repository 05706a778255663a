// A programmable NFT whose rule set does not list the lending program (the localnet's demo rule set allowing another
// program only): Token Auth Rules refuses the loan's delegate. The builder simulates a pNFT's take-loan, so the user
// reads the refusal before signing, in one sentence with its own code (TRANSACTION_SEND_RULE_SET_REFUSED 5006), and
// a transaction built without the simulation is refused by the sender with the same code and sentence; nothing is
// lent, the pNFT stays unlocked and undelegated.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPriorityFeeOptions } from "@cistern/protocol";
import { decodeTokenRecord, findAssociatedTokenPda, findTokenRecordPda } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { takeLoanPlan } from "../../src/tx/builder/loan-builder.ts";
import {
  ALL_STANDARDS_PRICES,
  DEMO_PNFT_COLLECTION,
  writeCatalogWithAllStandards,
} from "../helpers/nft-standards-catalog.ts";
import {
  createNftPool,
  fundedWallet,
  post,
  signAll,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const SENTENCE =
  "This NFT's rule set does not allow the transfers a loan needs, so it cannot be borrowed against.";
const REFUSED = { code: 5006, name: "TRANSACTION_SEND_RULE_SET_REFUSED", message: SENTENCE };

describe("a pNFT whose rule set does not list the lending program: a clean refusal", () => {
  let w: TxWorld;
  let dir: string;
  let pool: Address;
  let borrower: KeyPairSigner;
  let mint: Address;
  let token: Address;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-rule-set-"));
    w = await startTxWorld({
      env: { CATALOG_FILE: writeCatalogWithAllStandards(dir) },
      prices: ALL_STANDARDS_PRICES,
    });
    // the demo rule set lets only the programs it lists hold a delegate of (or receive) its pNFTs: not ours
    await w.net.setDemoRuleSetPrograms([w.tx.oracle.address]);
    pool = await createNftPool(w, (await fundedWallet(w.net)).signer, {
      seed: 3,
      mint: USDC_MINT,
      amountBaseUnits: 5_000_000_000n,
      collections: [DEMO_PNFT_COLLECTION.collectionId],
    });
    const b = await fundedWallet(w.net);
    borrower = b.signer;
    mint = b.given.programmableNfts[0]!.mint as Address;
    token = await findAssociatedTokenPda(borrower.address, mint);
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const untouched = async () => {
    const [record] = await w.tx.state.getAccounts([(await findTokenRecordPda(mint, token))[0]]);
    expect(decodeTokenRecord(record!.data)).toEqual({ state: "Unlocked", delegate: null });
    expect(await w.tx.state.getBorrowerLoans(borrower.address)).toEqual([]);
  };

  it("the pool lends against the collection, but the quote naming this NFT and the take-loan are refused before signing", async () => {
    // without the NFT the collection's quote stands
    expect((await post(w.app, "/nft/quote", { nftMint: mint, duration: DAY })).status).toBe(200);
    // naming the NFT and the borrower, the quote measures the loan's transaction (its costs) and meets the refusal
    const quote = await post(w.app, "/nft/quote", {
      nftMint: mint,
      duration: DAY,
      borrower: borrower.address,
    });
    expect(quote.status).toBe(422);
    expect(quote.body).toMatchObject(REFUSED);
    const built = await post(w.app, "/nft/take-loan", {
      borrower: borrower.address,
      nftMint: mint,
      duration: DAY,
      amount: "100000000",
      pool,
    });
    expect(built.status).toBe(422);
    expect(built.body).toMatchObject(REFUSED);
    expect(built.body.transactions).toBeUndefined();
    await untouched();
  }, 120_000);

  it("built without the simulation and signed, the sender refuses it with the same code and sentence", async () => {
    const plan = await takeLoanPlan(w.tx, false, {
      borrower: borrower.address,
      collateralMint: mint,
      collateralAmount: 1n,
      durationSeconds: DAY,
      amount: 100_000_000n,
      pool,
    });
    expect(plan.simulate).toBe(true);
    const built = await w.tx.factory.build({
      feePayer: plan.feePayer,
      groups: plan.groups,
      options: getPriorityFeeOptions(),
      needsOracle: true,
      simulate: false,
    });
    const [signed] = await signAll(built, [borrower]);
    const sent = await post(w.app, "/send-cos-transaction", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(sent.body.result ?? null).toBeNull();
    expect(sent.body.error).toMatchObject(REFUSED);
    await untouched();
  }, 120_000);
});
