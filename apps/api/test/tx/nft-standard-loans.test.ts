// Loans against a programmable NFT and a Metaplex Core asset through the API on the localnet (the real Token
// Metadata, Token Auth Rules and Core programs): quote, build, sign, send, the loan visible with its loanType, repay;
// and the keeper's liquidation moving each to the pool owner. The chain is read at each step (owner, delegate, lock).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPriorityFeeOptions } from "@cistern/protocol";
import {
  addressFromBytes,
  decodeCoreAsset,
  decodeTokenRecord,
  findAssociatedTokenPda,
  findBankPda,
  findPoolPda,
  findTokenRecordPda,
} from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  generateKeyPairSigner,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type KeyPairSigner,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { getProtocolTableAddresses } from "../../src/tx/builder/protocol-lookup-table.ts";
import { systemTransfer } from "../../src/tx/builder/wire-instructions.ts";
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
  createWorldIndexer,
  fundedWallet,
  post,
  signAll,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const PETL = DEMO_PNFT_COLLECTION;
const KOI = DEMO_CORE_COLLECTION;
const quiet = { info: () => {}, warn: () => {} };

async function account(w: TxWorld, a: Address) {
  const [acc] = await w.tx.state.getAccounts([a]);
  return acc;
}

/** SPL token account: owner and amount. */
async function tokenAccount(w: TxWorld, a: Address) {
  const acc = await account(w, a);
  if (!acc) return null;
  const data = Buffer.from(acc.data);
  return { owner: addressFromBytes(data.subarray(32, 64)), amount: data.readBigUInt64LE(64) };
}

async function record(w: TxWorld, mint: Address, token: Address) {
  const acc = await account(w, (await findTokenRecordPda(mint, token))[0]);
  return acc ? decodeTokenRecord(acc.data) : null;
}

async function coreOwner(w: TxWorld, asset: Address) {
  const acc = await account(w, asset);
  return acc ? decodeCoreAsset(acc.data)?.owner : null;
}

const wireBytes = (b64: string) => Buffer.from(b64, "base64").length;

describe("loans against a programmable NFT and a Core asset through the API (real Metaplex programs)", () => {
  let w: TxWorld;
  let dir: string;
  let lender: KeyPairSigner;
  let pool: Address;
  const figures: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-standards-"));
    w = await startTxWorld({
      env: { CATALOG_FILE: writeCatalogWithAllStandards(dir) },
      prices: ALL_STANDARDS_PRICES,
    });
    // the demo rule set lets only listed programs hold a delegate or receive the demo pNFTs: the lending program
    await w.net.setDemoRuleSetPrograms([w.programId]);
    lender = (await fundedWallet(w.net)).signer;
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "5000000000",
        mint: USDC_MINT,
        seed: "7",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [
            { collection: PETL.collectionId, collectionLtv: 5000, exposure: 10000 },
            { collection: KOI.collectionId, collectionLtv: 5000, exposure: 10000 },
          ],
        },
      },
      [lender],
    );
    expect(created.sent.error).toBeUndefined();
    pool = (await findPoolPda(w.programId, lender.address, 7n))[0];
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    console.log(figures.join("\n"));
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Quote, build, sign and send a take-loan; returns the loan and the build. */
  async function borrow(borrower: KeyPairSigner, nftMint: string, duration: number) {
    const quote = await post(w.app, "/nft/quote", { nftMint, duration, borrower: borrower.address });
    expect(quote.status).toBe(200);
    expect(quote.body.pool).toBe(pool);
    const r = await buildSignSend(
      w.app,
      "/nft/take-loan",
      { borrower: borrower.address, nftMint, duration, amount: "100000000", pool },
      [borrower],
    );
    expect(r.sent.error).toBeUndefined();
    return { loan: r.built.metadata.loan as Address, built: r.built };
  }

  /** Repays `loan` through the builder and sender (the borrower given the interest first). */
  async function repay(borrower: KeyPairSigner, loan: Address) {
    await w.net.fundWallet(borrower.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000n }] });
    const r = await buildSignSend(w.app, "/nft/repay-loan", { borrower: borrower.address, loans: [loan] }, [
      borrower,
    ]);
    expect(r.sent.error).toBeUndefined();
    return r;
  }

  it("pNFT: take (locked in the wallet, the loan PDA its delegate), visible as ProgrammableNft, extend (delegate and lock move to the new loan), repay frees it", async () => {
    const b = await fundedWallet(w.net);
    const nft = b.given.programmableNfts[0]!;
    const mint = nft.mint as Address;
    const token = await findAssociatedTokenPda(b.signer.address, mint);
    const { loan, built } = await borrow(b.signer, mint, DAY);
    expect(built.metadata.loanType).toBe("ProgrammableNft");
    figures.push(
      `pNFT take-loan: ${wireBytes(built.transactions[0]!)} B, CU limit ${(built.metadata.computeUnits as number[])[0]}`,
    );
    expect(await tokenAccount(w, token)).toEqual({ owner: b.signer.address, amount: 1n });
    expect(await record(w, mint, token)).toEqual({ state: "Locked", delegate: loan });
    const [onChain] = await w.tx.state.getLoans([loan]);
    expect(onChain).toMatchObject({ status: "Ongoing", nftType: "ProgrammableNft", escrow: token });

    const indexer = createWorldIndexer(w);
    await indexer.reconcile();
    const listed = (
      await w.app.inject({ method: "GET", url: `/loan/user?pubkey=${b.signer.address}` })
    ).json() as { loans: { pubkey: string; loanType: string }[] };
    expect(listed.loans.find((l) => l.pubkey === loan)?.loanType).toBe("ProgrammableNft");

    // a loan request of the pNFT while the loan locks it is refused in one sentence before anything is built
    const request = await post(w.app, "/nft/post-loan-request", {
      borrower: b.signer.address,
      nftMint: mint,
      currency: USDC_MINT,
      amount: "10000000",
      duration: DAY,
      maxApr: 5000,
    });
    expect(request.status).toBe(422);
    expect(request.body.message).toBe(
      "This programmable NFT is locked (pledged to a loan or listed): repay or unlist it before posting a loan request",
    );
    // extend: the custody passes to the new loan (delegate and lock move), the old loan is repaid
    await w.net.fundWallet(b.signer.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000n }] });
    const extended = await buildSignSend(
      w.app,
      "/nft/extend-loan",
      { borrower: b.signer.address, loan, duration: 2 * DAY },
      [b.signer],
    );
    expect(extended.sent.error).toBeUndefined();
    const next = extended.built.metadata.loan as Address;
    figures.push(
      `pNFT extend: ${wireBytes(extended.built.transactions[0]!)} B, CU limit ${(extended.built.metadata.computeUnits as number[])[0]}`,
    );
    expect((await w.tx.state.getLoans([loan]))[0]?.status).toBe("Repaid");
    expect((await w.tx.state.getLoans([next]))[0]).toMatchObject({
      nftType: "ProgrammableNft",
      escrow: token,
    });
    expect(await record(w, mint, token)).toEqual({ state: "Locked", delegate: next });

    const repaid = await repay(b.signer, next);
    figures.push(
      `pNFT repay: ${wireBytes(repaid.built.transactions[0]!)} B, CU limit ${(repaid.built.metadata.computeUnits as number[])[0]}`,
    );
    expect((await w.tx.state.getLoans([next]))[0]?.status).toBe("Repaid");
    expect(await record(w, mint, token)).toEqual({ state: "Unlocked", delegate: null });
    expect(await tokenAccount(w, token)).toEqual({ owner: b.signer.address, amount: 1n });
  }, 180_000);

  it("Core: take (owned by the loan PDA), extend (handed to the new loan), repay returns it", async () => {
    const b = await fundedWallet(w.net);
    const asset = b.given.coreAssets[0]!.asset as Address;
    expect(await coreOwner(w, asset)).toBe(b.signer.address);
    const { loan, built } = await borrow(b.signer, asset, DAY);
    expect(built.metadata.loanType).toBe("CoreNft");
    figures.push(
      `Core take-loan: ${wireBytes(built.transactions[0]!)} B, CU limit ${(built.metadata.computeUnits as number[])[0]}`,
    );
    expect(await coreOwner(w, asset)).toBe(loan);
    expect((await w.tx.state.getLoans([loan]))[0]).toMatchObject({ nftType: "CoreNft", escrow: asset });
    // extend: the old loan PDA hands the asset to the new one
    await w.net.fundWallet(b.signer.address, { tokens: [{ mint: USDC_MINT, amount: 10_000_000n }] });
    const extended = await buildSignSend(
      w.app,
      "/nft/extend-loan",
      { borrower: b.signer.address, loan, duration: 2 * DAY },
      [b.signer],
    );
    expect(extended.sent.error).toBeUndefined();
    const next = extended.built.metadata.loan as Address;
    figures.push(`Core extend: ${wireBytes(extended.built.transactions[0]!)} B`);
    expect(await coreOwner(w, asset)).toBe(next);
    await repay(b.signer, next);
    expect(await coreOwner(w, asset)).toBe(b.signer.address);
  }, 180_000);

  it("default: after a clock jump the keeper moves the pNFT (unlocked, no delegate) and the Core asset to the pool owner", async () => {
    const b = await fundedWallet(w.net);
    const mint = b.given.programmableNfts[0]!.mint as Address;
    const asset = b.given.coreAssets[0]!.asset as Address;
    const token = await findAssociatedTokenPda(b.signer.address, mint);
    const pnftLoan = (await borrow(b.signer, mint, DAY)).loan;
    const coreLoan = (await borrow(b.signer, asset, DAY)).loan;
    await advanceClock(w, DAY + 2 * 3600);
    const keeper = (await fundedWallet(w.net)).signer;
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    expect(round.liquidated.map((l) => l.loan).sort()).toEqual([pnftLoan, coreLoan].sort());
    const sigs = await Promise.all(
      round.liquidated.map((l) =>
        w.tx.app.rpc.call<{ transaction: [string, string]; meta: { computeUnitsConsumed: number } }>(
          "getTransaction",
          [l.signature, { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 }],
        ),
      ),
    );
    for (const [i, t] of sigs.entries())
      figures.push(
        `keeper liquidation of ${round.liquidated[i]!.loan === pnftLoan ? "the pNFT" : "the Core asset"}: ${wireBytes(t.transaction[0])} B, ${t.meta.computeUnitsConsumed} CU used`,
      );
    const dest = await findAssociatedTokenPda(lender.address, mint);
    expect(await tokenAccount(w, dest)).toEqual({ owner: lender.address, amount: 1n });
    expect(await record(w, mint, dest)).toEqual({ state: "Unlocked", delegate: null });
    expect(await tokenAccount(w, token)).toMatchObject({ amount: 0n });
    expect(await coreOwner(w, asset)).toBe(lender.address);
    expect((await w.tx.state.getLoans([pnftLoan, coreLoan])).map((l) => l?.status)).toEqual([
      "Liquidated",
      "Liquidated",
    ]);
  }, 240_000);

  it("the protocol's lookup table: created once with the oracle as authority, then found by every build", async () => {
    const payer = (await fundedWallet(w.net)).signer;
    const table = await ensureProtocolLookupTable(w.tx, payer);
    expect(table).not.toBeNull();
    expect((await w.tx.lookupTable.get())?.address).toBe(table);
    expect(await ensureProtocolLookupTable(w.tx, payer)).toBeNull();
    // a transaction past 1,232 bytes is built loading the table's accounts, and the sender and the chain take it:
    // a transfer naming the table's addresses and 26 more (the System program ignores accounts after its two)
    // (ensureProtocolLookupTable answered once the table is usable: the slot after its extension)
    const extra = [
      ...(await getProtocolTableAddresses(w.programId)).filter(
        (a) => a !== "11111111111111111111111111111111",
      ),
      ...(await Promise.all(Array.from({ length: 26 }, async () => (await generateKeyPairSigner()).address))),
    ];
    const transfer = systemTransfer(payer.address, payer.address, 1n);
    const long = {
      ...transfer,
      accounts: [...transfer.accounts!, ...extra.map((a) => ({ address: a, role: AccountRole.READONLY }))],
    };
    expect(w.tx.factory.fits(payer.address, [long])).toBe(false);
    const built = await w.tx.factory.build({
      feePayer: payer.address,
      groups: [[long]],
      options: getPriorityFeeOptions(),
      needsOracle: false,
    });
    const wire = Buffer.from(built.transactions[0]!, "base64");
    figures.push(`a transfer naming 35 accounts: ${wire.length} B with the protocol table`);
    expect(wire.length).toBeLessThanOrEqual(1232);
    const message = getCompiledTransactionMessageDecoder().decode(
      getTransactionDecoder().decode(wire).messageBytes,
    );
    const lookups = (message as { addressTableLookups?: { lookupTableAddress: string }[] })
      .addressTableLookups;
    expect(lookups?.map((l) => l.lookupTableAddress)).toEqual([table]);
    const [signed] = await signAll(built, [payer]);
    const sent = await post(w.app, "/send-transaction", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(sent.body.result).toEqual(expect.any(String));
  }, 120_000);
});
