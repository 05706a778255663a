import { computeOwedInterest } from "@cistern/protocol";
import {
  decodeBankAccount,
  decodeLoanAccount,
  decodeMarketBid,
  findBankPda,
  findPoolPda,
  findVaultPda,
  getPlaceBidInstruction,
} from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
} from "./support/tx-world.ts";

const DAY = 86_400;
const USDC = 1_000_000n;
const quiet = { info: () => undefined, warn: () => undefined };

/**
 * Auto-sell at liquidation with several overdue loans and several collection bids on the local NFT market: each
 * loan is sold into the best bid that still covers what it owes (the market read afresh for each loan, after an
 * earlier sale filled a bid), and only a loan no bid covers goes to the pool owner.
 */
describe("auto-sell of several overdue loans into several bids, on localnet", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let keeper: KeyPairSigner;
  let borrower: Awaited<ReturnType<typeof fundedWallet>>;
  let bidders: KeyPairSigner[];
  let collection: Address;
  let otherCollection: Address;
  let pool: Address;
  let bank: Address;
  let vault: Address;

  const read = async (a: Address) => (await w.tx.state.getAccounts([a]))[0]?.data ?? null;
  const tokenBalance = async (owner: Address, mint: Address) => {
    const data = await read(await findAssociatedTokenAddress(owner, mint));
    return data === null ? 0n : Buffer.from(data).readBigUInt64LE(64);
  };
  const vaultBalance = async () => Buffer.from((await read(vault))!).readBigUInt64LE(64);
  const bankBooks = async () => decodeBankAccount((await read(bank))!);

  async function placeBid(bidder: KeyPairSigner, nonce: bigint, onCollection: Address, price: bigint) {
    const ix = await getPlaceBidInstruction({
      programAddress: w.nftMarket!,
      bidder: bidder.address,
      nonce,
      collection: onCollection,
      currencyMint: USDC_MINT,
      bidderCurrencyAccount: await findAssociatedTokenAddress(bidder.address, USDC_MINT),
      price,
    });
    await sendAsAdmin(w.app, w.tx, bidder, [ix]);
    return ix.bid;
  }

  /** A frog from the faucet, lent 100 USDC against for one day in the auto-sell pool; returns the loan. */
  async function takeFrogLoan(): Promise<{ loan: Address; nft: Address }> {
    const given = await w.net.faucet(borrower.signer.address);
    const frog = given.nfts.find((n) => n.collectionId === collection)!;
    const taken = await buildSignSend(
      w.app,
      "/nft/take-loan",
      {
        borrower: borrower.signer.address,
        nftMint: frog.mint,
        duration: DAY,
        amount: String(100n * USDC),
        pool,
      },
      [borrower.signer],
    );
    expect(taken.sent.result, JSON.stringify(taken.sent)).not.toBeNull();
    return { loan: taken.built.metadata.loan as Address, nft: address(frog.mint) };
  }

  /** Past expiry + grace (1 day + 1 hour) on the chain clock the builder reads. */
  async function passExpiryAndGrace() {
    const target = (await w.tx.clock.unixTime()) + DAY + 2 * 3600;
    await w.net.advanceClock(DAY + 2 * 3600);
    await expect.poll(() => w.tx.clock.unixTime(), { timeout: 10_000 }).toBeGreaterThanOrEqual(target);
  }

  beforeAll(async () => {
    w = await startTxWorld({ nftMarket: true, swapVenue: true });
    lender = (await fundedWallet(w.net)).signer;
    keeper = (await fundedWallet(w.net)).signer;
    borrower = await fundedWallet(w.net);
    bidders = await Promise.all([1, 2, 3, 4].map(async () => (await fundedWallet(w.net)).signer));
    // the Rain Frogs (about a 600 USD floor): 50% LTV lends up to about 300 USDC against one
    collection = address(borrower.given.nfts[1]!.collectionId);
    otherCollection = address(borrower.given.nfts.find((n) => n.collectionId !== collection)!.collectionId);
    [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    [vault] = await findVaultPda(w.programId, bank);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: String(5_000n * USDC),
        mint: USDC_MINT,
        seed: "1",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [{ collection, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(created.sent.result).not.toBeNull();
    [pool] = await findPoolPda(w.programId, lender.address, 1n);
    const autoSell = await buildSignSend(
      w.app,
      "/nft/update-pool",
      {
        pool,
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
  }, 180_000);
  afterAll(() => w?.close());

  it("a keeper round sells each overdue loan into the best bid still covering it; the loan none covers goes to the pool owner", async () => {
    const loans = [await takeFrogLoan(), await takeFrogLoan(), await takeFrogLoan()];
    // two bids that cover a loan (300 and 200 USDC), one at the principal alone (100 USDC: short of the interest
    // owed), and a rich bid on another collection (not for these NFTs)
    const best = await placeBid(bidders[0]!, 1n, collection, 300n * USDC);
    const second = await placeBid(bidders[1]!, 1n, collection, 200n * USDC);
    const short = await placeBid(bidders[2]!, 1n, collection, 100n * USDC);
    const elsewhere = await placeBid(bidders[3]!, 1n, otherCollection, 1_000n * USDC);
    await passExpiryAndGrace();
    const [vaultBefore, booksBefore] = [await vaultBalance(), await bankBooks()];
    const lenderNfts = await Promise.all(loans.map((l) => tokenBalance(lender.address, l.nft)));
    expect(lenderNfts).toEqual([0n, 0n, 0n]);

    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    expect(round.liquidated.map((l) => l.loan).sort()).toEqual(loans.map((l) => l.loan).sort());

    // what the chain holds: every loan ended; the first two in the keeper's order (oldest expiry first) were sold,
    // the best bid to the first, the next covering bid to the second; the third went to the pool owner
    const order = round.liquidated.map((l) => loans.find((x) => x.loan === l.loan)!);
    const ended = await Promise.all(order.map(async (l) => decodeLoanAccount((await read(l.loan))!)));
    expect(ended.map((l) => [l.status, l.closedBy, l.repaidAmount])).toEqual([
      ["Liquidated", "AutoSold", 300n * USDC],
      ["Liquidated", "AutoSold", 200n * USDC],
      ["Liquidated", "Liquidated", 0n],
    ]);
    expect(round.liquidated.map((l) => l.autoSold)).toEqual([true, true, false]);
    expect(await tokenBalance(bidders[0]!.address, order[0]!.nft)).toBe(1n);
    expect(await tokenBalance(bidders[1]!.address, order[1]!.nft)).toBe(1n);
    expect(await tokenBalance(lender.address, order[2]!.nft)).toBe(1n);
    expect(await tokenBalance(lender.address, order[0]!.nft)).toBe(0n);
    expect(await tokenBalance(lender.address, order[1]!.nft)).toBe(0n);
    // the filled bids are gone; the short one and the other collection's are still listed, untouched
    expect(await read(best)).toBeNull();
    expect(await read(second)).toBeNull();
    expect(decodeMarketBid((await read(short))!).price).toBe(100n * USDC);
    expect(decodeMarketBid((await read(elsewhere))!).price).toBe(1_000n * USDC);
    // the bank's vault received both sales, exactly; its books follow: the proceeds are available again, the
    // lenders gain what the sales paid above the principals and lose the principal of the classic liquidation
    expect((await vaultBalance()) - vaultBefore).toBe(500n * USDC);
    const booksAfter = await bankBooks();
    expect(booksAfter.availableLiquidity - booksBefore.availableLiquidity).toBe(500n * USDC);
    expect(booksAfter.totalLiquidity - booksBefore.totalLiquidity).toBe(
      300n * USDC - 100n * USDC + (200n * USDC - 100n * USDC) - 100n * USDC,
    );
    // idempotent: nothing left for the next round
    const again = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect([again.liquidated, again.failed]).toEqual([[], []]);
  }, 120_000);

  it("POST /nft/liquidate-loan builds each sale into the best bid left at that moment, one right after the other", async () => {
    const loans = [await takeFrogLoan(), await takeFrogLoan(), await takeFrogLoan()];
    const first = await placeBid(bidders[0]!, 2n, collection, 400n * USDC);
    const next = await placeBid(bidders[1]!, 2n, collection, 350n * USDC);
    await passExpiryAndGrace();
    const vaultBefore = await vaultBalance();
    const liquidate = (loan: Address) =>
      buildSignSend(w.app, "/nft/liquidate-loan", { loan, payer: keeper.address }, [keeper]);
    // back to back, inside the market venue's cache window: the second build must not reuse the filled bid
    const a = await liquidate(loans[0]!.loan);
    const b = await liquidate(loans[1]!.loan);
    expect(a.built.metadata).toMatchObject({ autoSell: true, bid: first, expectedProceeds: "400000000" });
    expect(b.built.metadata).toMatchObject({ autoSell: true, bid: next, expectedProceeds: "350000000" });
    expect([a.sent.error, b.sent.error]).toEqual([undefined, undefined]);
    // what is owed is computed by the protocol's rules: more than the principal, far less than either bid
    const owed = BigInt(a.built.metadata.owedAtSale as string);
    expect(owed > 100n * USDC && owed < 101n * USDC).toBe(true);
    // the third: only the 100 USDC bid is left, short of principal + interest, so the classic way
    const c = await liquidate(loans[2]!.loan);
    expect(c.built.metadata).toMatchObject({ autoSell: false });
    expect(c.sent.error).toBeUndefined();
    const ended = await Promise.all(loans.map(async (l) => decodeLoanAccount((await read(l.loan))!)));
    expect(ended.map((l) => [l.closedBy, l.repaidAmount])).toEqual([
      ["AutoSold", 400n * USDC],
      ["AutoSold", 350n * USDC],
      ["Liquidated", 0n],
    ]);
    expect(await tokenBalance(lender.address, loans[2]!.nft)).toBe(1n);
    expect((await vaultBalance()) - vaultBefore).toBe(750n * USDC);
  }, 120_000);

  it("token loans of an auto-sell pool in one round: each is sold through the swap venue for at least what it owes", async () => {
    const defiPool = await createUsdcJtoPool(w, lender, 3, "0");
    const updated = await buildSignSend(
      w.app,
      "/defi/update-pool",
      {
        pool: defiPool,
        owner: lender.address,
        enableAutoSell: true,
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          currencies: [{ currency: JTO_MINT, currencyLtv: 6000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(updated.sent.error).toBeUndefined();
    const loans: Address[] = [];
    for (let i = 0; i < 2; i++) {
      // 40 JTO (about 100 USDC at the swap pool's price) against 30 USDC for a day
      const taken = await buildSignSend(
        w.app,
        "/defi/take-loan",
        {
          borrower: borrower.signer.address,
          collateralMint: JTO_MINT,
          collateralAmount: "40000000000",
          duration: DAY,
          amount: String(30n * USDC),
          pool: defiPool,
        },
        [borrower.signer],
      );
      expect(taken.sent.error).toBeUndefined();
      loans.push(taken.built.metadata.loan as Address);
    }
    await passExpiryAndGrace();
    const vaultBefore = await vaultBalance();
    const lenderJto = await tokenBalance(lender.address, JTO_MINT);
    const round = await createLiquidationKeeper(w.tx, keeper, quiet).runRound();
    expect(round.failed).toEqual([]);
    expect(round.liquidated.filter((l) => loans.includes(l.loan as Address)).map((l) => l.autoSold)).toEqual([
      true,
      true,
    ]);
    // both sold into the bank, each for at least principal + the interest owed when it was sold (the second
    // after the first had already moved the pool's price); the lender received no collateral
    const ended = await Promise.all(loans.map(async (l) => decodeLoanAccount((await read(l))!)));
    for (const loan of ended) {
      expect([loan.status, loan.closedBy]).toEqual(["Liquidated", "AutoSold"]);
      const owed = computeOwedInterest({
        aprBps: loan.aprBps,
        principal: loan.principal,
        durationSeconds: loan.durationSeconds,
        createdAt: loan.createdAt,
        now: Number(loan.liquidatedAt),
      });
      expect(loan.repaidAmount).toBeGreaterThanOrEqual(loan.principal + owed);
      expect(loan.repaidAmount).toBeGreaterThan(90n * USDC);
    }
    expect(ended[0]!.repaidAmount).not.toBe(ended[1]!.repaidAmount);
    expect((await vaultBalance()) - vaultBefore).toBe(ended[0]!.repaidAmount + ended[1]!.repaidAmount);
    expect(await tokenBalance(lender.address, JTO_MINT)).toBe(lenderJto);
  }, 120_000);
});
