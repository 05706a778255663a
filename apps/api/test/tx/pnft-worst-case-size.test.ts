// The largest take-loan the builder makes, measured on the localnet with the real programs: a programmable NFT
// (Token Metadata, Token Auth Rules) borrowed from a SOL pool that is private (a whitelist) and whose bank lent most
// of its liquidity to marginfi v2, so the take-loan pulls the rest back from marginfi in the same instruction; the
// oracle co-signs. Issue #32 estimated it at about 1,270 bytes: measured 1,421 B with every account inline and
// 1,238 B with the protocol lookup table as it was (the programs and sysvars only), so the table now holds the
// lending venue's repeated accounts too (marginfi's program, group, banks, their vaults, vault authorities and
// oracles): 1,052 B.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadOrCreateKeypair } from "@cistern/localnet";
import { getPriorityFeeOptions } from "@cistern/protocol";
import { decodeTokenRecord, findBankPda, findTokenRecordPda, readKeypairFile } from "@cistern/sdk";
import {
  type Address,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type KeyPairSigner,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChainClient, ensureMarginfi } from "../../../../packages/bootstrap/src/index.ts";
import { ensureProtocolLookupTable } from "../../src/tx/builder/ensure-protocol-lookup-table.ts";
import { takeLoanPlan } from "../../src/tx/builder/loan-builder.ts";
import { MAX_TRANSACTION_BYTES } from "../../src/tx/builder/transaction-factory.ts";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import {
  ALL_STANDARDS_PRICES,
  DEMO_PNFT_COLLECTION,
  writeCatalogWithAllStandards,
} from "../helpers/nft-standards-catalog.ts";
import {
  type Built,
  buildSignSend,
  createNftPool,
  fundedWallet,
  post,
  SOL_MINT,
  signAll,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
} from "./support/tx-world.ts";

const DAY = 86_400;
const SOL = 1_000_000_000n;
const collections = [{ collection: DEMO_PNFT_COLLECTION.collectionId, collectionLtv: 5000, exposure: 10000 }];

describe("the worst-case pNFT take-loan (SOL pool, whitelist, marginfi pull, oracle co-signature) fits one packet", () => {
  let w: TxWorld;
  let dir: string;
  let lender: KeyPairSigner;
  let borrower: Awaited<ReturnType<typeof fundedWallet>>;
  let pool: Address;
  let bank: Address;
  let firstTable: Address | null;
  let extendedTable: Address | null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cistern-pnft-worst-"));
    // marginfi's group and SOL bank keys first: the API reads them from its environment, as with `npm start`
    mkdirSync(join(dir, "keys"), { recursive: true });
    const group = loadOrCreateKeypair(join(dir, "keys", "marginfi-group.json")).address;
    const solBank = loadOrCreateKeypair(join(dir, "keys", "marginfi-bank-sol.json")).address;
    w = await startTxWorld({
      env: {
        CATALOG_FILE: writeCatalogWithAllStandards(dir),
        MARGINFI_GROUP: group,
        MARGINFI_BANKS: `${SOL_MINT}:${solBank}`,
      },
      prices: ALL_STANDARDS_PRICES,
    });
    // the protocol lookup table as a keeper started before marginfi's banks existed made it (marginfi's program and
    // group already named by the configuration)
    const keeper = (await fundedWallet(w.net)).signer;
    firstTable = await ensureProtocolLookupTable(w.tx, keeper);
    // the bootstrap makes marginfi's group and banks (marginfi's own admin instructions) and pins it as the venue
    const admin = await readKeypairFile(w.net.faucetKeypairPath);
    const made = await ensureMarginfi({
      chain: createChainClient({ rpcUrl: w.net.rpcUrl, wsUrl: w.net.wsUrl, cluster: "localnet" }),
      dataDir: dir,
      admin,
      demo: false,
      lendingProgramId: w.programId,
    });
    expect(made.group).toBe(group);
    expect(made.banks.find((b) => b.mint === SOL_MINT)?.bank).toBe(solBank);
    await w.net.setDemoRuleSetPrograms([w.programId]);
    // the keeper's next start extends the table with the SOL bank's accounts (bank, vault, vault authority, oracle)
    extendedTable = await ensureProtocolLookupTable(w.tx, keeper);

    lender = (await fundedWallet(w.net)).signer;
    await w.net.fundWallet(lender.address, { lamports: 100n * SOL });
    borrower = await fundedWallet(w.net);
    [bank] = await findBankPda(w.programId, lender.address, SOL_MINT);
    pool = await createNftPool(w, lender, {
      seed: 5,
      mint: SOL_MINT,
      amountBaseUnits: 10n * SOL,
      collections: [DEMO_PNFT_COLLECTION.collectionId],
    });
    // private: only the borrower may borrow (a whitelist lookup table the pool names)
    const privately = await buildSignSend(
      w.app,
      "/nft/update-pool",
      {
        pool,
        owner: lender.address,
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections,
          conditions: {
            minAge: "0",
            minLoan: "0",
            minVolume: "0",
            isEnabled: 0,
            isWhitelistEnabled: 1,
            whitelist: "11111111111111111111111111111111",
            whitelistAddresses: [borrower.signer.address],
          },
        },
      },
      [lender],
    );
    expect(privately.sent.error).toBeUndefined();
    // 8 of the 10 SOL lent to marginfi
    const delegated = await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: SOL_MINT, amount: (8n * SOL).toString() },
      [lender],
    );
    expect(delegated.sent.error).toBeUndefined();
    await new Promise((r) => setTimeout(r, 500)); // the tables are usable from the slot after their extension
    w.tx.state.invalidate();
  }, 240_000);
  afterAll(async () => {
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the protocol lookup table holds marginfi's accounts: extended in place once the banks stand, then left alone", async () => {
    expect(firstTable).not.toBeNull();
    expect(extendedTable).toBe(firstTable);
    const table = await w.tx.lookupTable.get();
    expect(table?.address).toBe(firstTable);
    const delegation = (await w.tx.lendingVenue.delegation(bank, SOL_MINT, 0))!;
    const m = delegation.marginfi!;
    for (const a of [
      delegation.venueProgram,
      m.group,
      m.bank,
      m.liquidityVault,
      m.liquidityVaultAuthority,
      m.oracle,
    ])
      expect(table?.addresses).toContain(a);
    expect(await ensureProtocolLookupTable(w.tx, (await fundedWallet(w.net)).signer)).toBeNull();
  }, 60_000);

  const mint = () => borrower.given.programmableNfts[0]!.mint as Address;
  /** The worst case's take-loan through /nft/take-loan: 3 SOL, 2 of them idle in the bank, the rest from marginfi. */
  const build = async () => {
    const body = {
      borrower: borrower.signer.address,
      nftMint: mint(),
      duration: DAY,
      amount: (3n * SOL).toString(),
      pool,
    };
    const built = await post(w.app, "/nft/take-loan", body);
    expect(built.status, JSON.stringify(built.body)).toBe(200);
    return built.body as unknown as Built;
  };

  it("builds it within 1,232 bytes, marginfi's accounts loaded from the protocol lookup table", async () => {
    const before = (await w.tx.state.getBank(bank))!;
    expect(before.delegatedLiquidity).toBeGreaterThan(0n);
    expect(before.availableLiquidity).toBeLessThan(3n * SOL);
    expect((await w.tx.state.getPool(pool))?.conditions.whitelistEnabled).toBe(true);
    // the route simulates a pNFT's take-loan (its rule set) and the chain refuses this one today (below): its
    // transaction as the route's plan and factory build it, without the simulation
    const plan = await takeLoanPlan(w.tx, false, {
      borrower: borrower.signer.address,
      collateralMint: mint(),
      collateralAmount: 1n,
      durationSeconds: DAY,
      amount: 3n * SOL,
      pool,
    });
    const built = await w.tx.factory.build({
      feePayer: plan.feePayer,
      groups: plan.groups,
      options: getPriorityFeeOptions(),
      needsOracle: true,
      simulate: false,
    });
    expect(built.transactions).toHaveLength(1);
    const wire = Buffer.from(built.transactions[0]!, "base64");
    const message = getCompiledTransactionMessageDecoder().decode(
      getTransactionDecoder().decode(wire).messageBytes,
    ) as {
      staticAccounts: string[];
      addressTableLookups?: { readonlyIndexes: number[]; writableIndexes: number[] }[];
    };
    const loaded = (message.addressTableLookups ?? []).reduce(
      (n, l) => n + l.readonlyIndexes.length + l.writableIndexes.length,
      0,
    );
    console.log(
      `pNFT take-loan from a private SOL pool pulling from marginfi: ${wire.length} B (${message.staticAccounts.length} accounts inline, ${loaded} from the protocol table), CU limit ${(built.metadata.computeUnits as number[])[0]}`,
    );
    expect(wire.length).toBeLessThanOrEqual(MAX_TRANSACTION_BYTES);
    // the oracle's slot is there for its co-signature: two signatures, the borrower's and the oracle's
    expect(getTransactionDecoder().decode(wire).signatures).toHaveProperty(w.tx.oracle.address);
    const delegation = (await w.tx.lendingVenue.delegation(bank, SOL_MINT, 0))!;
    expect(message.staticAccounts).not.toContain(delegation.marginfi!.group);
    expect(message.staticAccounts).not.toContain(delegation.marginfi!.liquidityVault);
  }, 120_000);

  // This TakeLoan names 33 accounts (0-13, the pNFT block 14-22, the pool owner 23, the whitelist 24, marginfi's pull
  // 25-32); the lending program reads up to 40 (entrypoint.c MAX_ACCOUNTS).
  it("builds through the route and lands: the loan pulls from marginfi, the pNFT locked to it", async () => {
    const before = (await w.tx.state.getBank(bank))!;
    const built = await build();
    const [signed] = await signAll(built, [borrower.signer]);
    const sent = await post(w.app, "/send-cos-transaction", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(sent.body.error).toBeUndefined();
    expect(sent.body.result).toEqual(expect.any(String));
    w.tx.state.invalidate();
    const loan = built.metadata.loan as Address;
    expect((await w.tx.state.getLoans([loan]))[0]).toMatchObject({
      status: "Ongoing",
      nftType: "ProgrammableNft",
    });
    const after = (await w.tx.state.getBank(bank))!;
    expect(after.delegatedLiquidity).toBeLessThan(before.delegatedLiquidity);
    const token = await findAssociatedTokenAddress(borrower.signer.address, mint());
    const [record] = await w.tx.state.getAccounts([(await findTokenRecordPda(mint(), token))[0]]);
    expect(decodeTokenRecord(record!.data)).toEqual({ state: "Locked", delegate: loan });
  }, 120_000);
});
