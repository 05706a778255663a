import {
  decodeLoanAccount,
  findBankPda,
  findPoolPda,
  getPlaceBidInstruction,
  type LoanAccount,
} from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIndexer, type Indexer } from "../../src/indexer/indexer.ts";
import { readTopLevelEvents } from "../../src/indexer/transaction-facts.ts";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import { createLiquidationKeeper } from "../../src/tx/keeper/liquidation-keeper.ts";
import {
  buildSignSend,
  createUsdcJtoPool,
  fundedWallet,
  JTO_MINT,
  sendAsAdmin,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "../tx/support/tx-world.ts";

const DAY = 86_400;
const USDC = 1_000_000n;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface LoanView {
  pubkey: string;
  status: string;
  soldAmount: string;
  sale?: { salePrice: string; saleSlot: number; saleTransaction: string };
  kind: Record<string, Record<string, string>>;
}

/**
 * A sale read at once: with the indexer following the localnet over its websocket (as `npm start` runs it), the
 * first time the read side shows a loan sold (market sell, instant sell) or auto-sold (the keeper's liquidation),
 * it shows the sale's proceeds, slot and transaction too; a margin position shows its down payment the first time
 * it is listed. No reconcile runs in between (its interval is an hour).
 */
describe("sales and margin openings indexed from their own transaction, on localnet", () => {
  let w: TxWorld;
  let indexer: Indexer;
  let lender: KeyPairSigner;
  let keeper: KeyPairSigner;
  let borrower: Awaited<ReturnType<typeof fundedWallet>>;
  let bidder: KeyPairSigner;
  let collection: Address;
  let nftPool: Address;
  let bidNonce = 0n;

  const read = async (a: Address) => (await w.tx.state.getAccounts([a]))[0]?.data ?? null;
  const loanOnChain = async (loan: Address): Promise<LoanAccount> => decodeLoanAccount((await read(loan))!);
  const usdcOf = async (owner: Address) => {
    const data = await read(await findAssociatedTokenAddress(owner, USDC_MINT));
    return data === null ? 0n : Buffer.from(data).readBigUInt64LE(64);
  };
  /** The slot the chain records for a landed transaction. */
  const slotOf = async (signature: string) =>
    (
      await w.tx.app.rpc.call<{ slot: number }>("getTransaction", [
        signature,
        { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
      ])
    ).slot;

  /**
   * Polls the borrower's loans as the web app reads them until `loan` satisfies `until`, and returns that first
   * view (every earlier view is kept to show what a user could have seen before).
   */
  async function firstView(loan: Address, until: (v: LoanView) => boolean): Promise<LoanView> {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const r = await w.app.inject({ url: `/loan/user?pubkey=${borrower.signer.address}` });
      const view = (r.json() as { loans: LoanView[] }).loans.find((l) => l.pubkey === loan);
      if (view !== undefined && until(view)) return view;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`loan ${loan} never read as expected`);
  }

  async function placeBid(price: bigint) {
    bidNonce++;
    await sendAsAdmin(w.app, w.tx, bidder, [
      await getPlaceBidInstruction({
        programAddress: w.nftMarket!,
        bidder: bidder.address,
        nonce: bidNonce,
        collection,
        currencyMint: USDC_MINT,
        bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.address, USDC_MINT),
        price,
      }),
    ]);
  }

  async function takeFrogLoan(durationSeconds: number): Promise<Address> {
    const frog = (await w.net.faucet(borrower.signer.address)).nfts.find(
      (n) => n.collectionId === collection,
    )!;
    const taken = await buildSignSend(
      w.app,
      "/nft/take-loan",
      {
        borrower: borrower.signer.address,
        nftMint: frog.mint,
        duration: durationSeconds,
        amount: String(100n * USDC),
        pool: nftPool,
      },
      [borrower.signer],
    );
    expect(taken.sent.result).not.toBeNull();
    const loan = taken.built.metadata.loan as Address;
    await firstView(loan, (v) => v.status === "ongoing");
    return loan;
  }

  beforeAll(async () => {
    w = await startTxWorld({ swapVenue: true, nftMarket: true });
    lender = (await fundedWallet(w.net)).signer;
    keeper = (await fundedWallet(w.net)).signer;
    bidder = (await fundedWallet(w.net)).signer;
    borrower = await fundedWallet(w.net);
    collection = address(borrower.given.nfts[1]!.collectionId);
    await createUsdcJtoPool(w, lender, 1, String(1_000n * USDC));
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: String(2_000n * USDC),
        mint: USDC_MINT,
        seed: "2",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [{ collection, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(created.sent.result).not.toBeNull();
    [nftPool] = await findPoolPda(w.programId, lender.address, 2n);
    const autoSell = await buildSignSend(
      w.app,
      "/nft/update-pool",
      {
        pool: nftPool,
        owner: lender.address,
        enableAutoSell: true,
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [{ collection, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(autoSell.sent.result).not.toBeNull();
    indexer = createIndexer({
      db: w.tx.app.db,
      rpc: w.tx.app.rpc,
      wsUrl: w.net.wsUrl,
      programId: w.programId,
      reconcileIntervalMs: 3_600_000,
      log: quiet,
    });
    expect(await indexer.start()).toBe(true);
  }, 180_000);
  afterAll(async () => {
    await indexer?.stop();
    await w?.close();
  });

  it("a market sell (tokens through the swap venue) reads Sold with its proceeds, slot and signature at once", async () => {
    const taken = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.signer.address,
        collateralMint: JTO_MINT,
        collateralAmount: "40000000000",
        duration: 7 * DAY,
        amount: String(30n * USDC),
      },
      [borrower.signer],
    );
    const loan = taken.built.metadata.loan as Address;
    await firstView(loan, (v) => v.status === "ongoing");
    const before = await usdcOf(borrower.signer.address);
    const sold = await buildSignSend(
      w.app,
      "/defi/market-sell",
      { borrower: borrower.signer.address, loan, slippageBps: 100 },
      [borrower.signer],
    );
    const signature = sold.sent.result!;
    expect(signature).toBeTruthy();
    // the proceeds on chain: what reached the borrower's account plus what repaid the loan from it
    const onChain = await loanOnChain(loan);
    const proceeds = (await usdcOf(borrower.signer.address)) - before + onChain.repaidAmount;
    expect(proceeds).toBeGreaterThan(90n * USDC);
    const view = await firstView(loan, (v) => v.status !== "ongoing");
    expect(view).toMatchObject({
      status: "sold",
      soldAmount: proceeds.toString(),
      sale: { salePrice: proceeds.toString(), saleSlot: await slotOf(signature), saleTransaction: signature },
    });
  }, 60_000);

  it("an instant sell (an NFT into a collection bid) reads Sold with the bid's price at once", async () => {
    const loan = await takeFrogLoan(7 * DAY);
    await placeBid(500n * USDC);
    const sold = await buildSignSend(
      w.app,
      "/nft/instant-sell",
      { borrower: borrower.signer.address, loan },
      [borrower.signer],
    );
    const signature = sold.sent.result!;
    expect(signature).toBeTruthy();
    expect((await loanOnChain(loan)).status).toBe("Sold");
    const view = await firstView(loan, (v) => v.status !== "ongoing");
    expect(view).toMatchObject({
      status: "sold",
      soldAmount: String(500n * USDC),
      sale: { salePrice: String(500n * USDC), saleSlot: await slotOf(signature), saleTransaction: signature },
    });
  }, 60_000);

  it("a margin position lists its down payment the first time it is listed", async () => {
    const opened = await buildSignSend(
      w.app,
      "/defi/margin-swap",
      {
        borrower: borrower.signer.address,
        collateralMint: JTO_MINT,
        currency: USDC_MINT,
        downPayment: String(20n * USDC),
        amount: String(20n * USDC),
        duration: 7 * DAY,
      },
      [borrower.signer],
    );
    expect(opened.sent.result).toBeTruthy();
    const position = opened.built.metadata.loan as Address;
    expect((await loanOnChain(position)).kind).toBe("MarginSwapLoan");
    const view = await firstView(position, () => true);
    expect(view).toMatchObject({ status: "ongoing", kind: { marginSwapLoan: { downPayment: "20000000" } } });
    // written with it: the opening event carries its transaction and the borrower as who signed it
    const activity = (
      await w.app.inject({ url: `/dirty/activity-by-user?pubkey=${borrower.signer.address}` })
    ).json() as {
      activity: { loan: string; kind: string; signature: string | null; actor: string | null }[];
    };
    expect(activity.activity.find((a) => a.loan === position && a.kind === "taken")).toMatchObject({
      signature: opened.sent.result,
      actor: borrower.signer.address,
    });
  }, 60_000);

  it("the keeper's auto-sell reads Liquidated with the sale and the keeper as liquidator at once", async () => {
    const loan = await takeFrogLoan(DAY);
    await placeBid(300n * USDC);
    const target = (await w.tx.clock.unixTime()) + DAY + 2 * 3600;
    await w.net.advanceClock(DAY + 2 * 3600);
    await expect.poll(() => w.tx.clock.unixTime(), { timeout: 10_000 }).toBeGreaterThanOrEqual(target);
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    const done = round.liquidated.find((l) => l.loan === loan);
    expect(done).toMatchObject({ autoSold: true });
    const onChain = await loanOnChain(loan);
    expect([onChain.status, onChain.closedBy, onChain.repaidAmount]).toEqual([
      "Liquidated",
      "AutoSold",
      300n * USDC,
    ]);
    const view = await firstView(loan, (v) => v.status !== "ongoing");
    expect(view).toMatchObject({
      status: "liquidated",
      soldAmount: String(300n * USDC),
      sale: {
        salePrice: String(300n * USDC),
        saleSlot: await slotOf(done!.signature),
        saleTransaction: done!.signature,
      },
    });
    // the lender's activity names the keeper as who liquidated, with the transaction
    const activity = (
      await w.app.inject({ url: `/dirty/activity-by-user?pubkey=${lender.address}` })
    ).json() as {
      activity: { loan: string; kind: string; signature: string | null; actor: string | null }[];
    };
    expect(activity.activity.find((a) => a.loan === loan && a.kind === "liquidated")).toMatchObject({
      signature: done!.signature,
      actor: keeper.address,
    });
  }, 90_000);

  it("attributes program data to the lending program's own top-level invocations only", () => {
    const program = "Lend1111111111111111111111111111111111111111";
    const market = "Mrkt1111111111111111111111111111111111111111";
    const data = (name: string, a: bigint, b: bigint) => {
      const n = (v: bigint) => {
        const bytes = Buffer.alloc(8);
        bytes.writeBigUInt64LE(v);
        return bytes.toString("base64");
      };
      return `Program data: ${Buffer.from(name).toString("base64")} ${n(a)} ${n(b)}`;
    };
    const logs = [
      "Program ComputeBudget111111111111111111111111111111 invoke [1]",
      "Program ComputeBudget111111111111111111111111111111 success",
      `Program ${program} invoke [1]`,
      `Program ${market} invoke [2]`,
      // a venue's own event under the lending program's instruction is not the lending program's
      data("sold", 9n, 9n),
      `Program ${market} success`,
      data("sold", 1n, 500n),
      `Program ${program} success`,
      `Program ${program} invoke [1]`,
      data("autosold", 1n, 300n),
      `Program ${program} success`,
    ];
    expect(readTopLevelEvents(logs, program)).toEqual([
      [{ name: "sold", a: 1n, b: 500n }],
      [{ name: "autosold", a: 1n, b: 300n }],
    ]);
    expect(readTopLevelEvents([...logs.slice(0, 4), "Log truncated"], program)).toBeNull();
  });
});
