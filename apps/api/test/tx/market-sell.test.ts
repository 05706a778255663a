import { computeOwedInterest, computeProtocolFee, parseLoan } from "@cistern/protocol";
import { findBankPda } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import { createLiquidationKeeper } from "../../src/tx/keeper/liquidation-keeper.ts";
import {
  buildSignSend,
  createUsdcJtoPool,
  createWorldIndexer,
  fundedWallet,
  JTO_MINT,
  post,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;

async function tokenBalance(w: TxWorld, owner: Address, mint: Address): Promise<bigint> {
  const [account] = await w.tx.state.getAccounts([await findAssociatedTokenAddress(owner, mint)]);
  return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
}

describe("market sell through the local swap venue (Jupiter's shapes), on localnet", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  let loan: Address;

  beforeAll(async () => {
    w = await startTxWorld({ swapVenue: true });
    lender = (await fundedWallet(w.net)).signer;
    borrower = (await fundedWallet(w.net)).signer;
    await createUsdcJtoPool(w, lender, 1, "1000000000");
    w.tx.state.invalidate();
    // 40 JTO (about 100 USD) against 30 USDC for 7 days
    const taken = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        collateralAmount: "40000000000",
        duration: 7 * DAY,
        amount: "30000000",
      },
      [borrower],
    );
    expect(taken.sent.error).toBeUndefined();
    loan = taken.built.metadata.loan as Address;
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("quotes in Jupiter's shape from the pool on chain, and builds its swap instruction", async () => {
    const q = await w.app.inject({
      url: `/swap/v1/quote?inputMint=${JTO_MINT}&outputMint=${USDC_MINT}&amount=1000000000&slippageBps=50`,
    });
    expect(q.statusCode, q.body).toBe(200);
    const quote = q.json();
    expect(quote).toMatchObject({
      inputMint: JTO_MINT,
      outputMint: USDC_MINT,
      inAmount: "1000000000",
      swapMode: "ExactIn",
      slippageBps: 50,
      routePlan: [{ swapInfo: { ammKey: w.swapVenue!.pool, label: "Cistern local AMM" }, percent: 100 }],
    });
    // 1 JTO into 100,000 JTO / 250,000 USDC less 0.3%: about 2.49 USDC
    expect(BigInt(quote.outAmount)).toBeGreaterThan(2_480_000n);
    expect(BigInt(quote.outAmount)).toBeLessThan(2_500_000n);
    expect(BigInt(quote.otherAmountThreshold)).toBe((BigInt(quote.outAmount) * 9950n) / 10000n);
    const ix = await post(w.app, "/swap/v1/swap-instructions", {
      quoteResponse: quote,
      userPublicKey: borrower.address,
    });
    expect(ix.status).toBe(200);
    expect(ix.body).toMatchObject({
      swapInstruction: { programId: w.swapVenue!.programId },
      addressLookupTableAddresses: [],
    });
    const noRoute = await w.app.inject({
      url: `/swap/v1/quote?inputMint=${JTO_MINT}&outputMint=${borrower.address}&amount=1`,
    });
    expect(noRoute.statusCode).toBe(422);
    expect(noRoute.json().message).toMatch(/No route/);
  });

  it("refuses a sale that would not cover what is owed (the program's SaleShort code), building nothing", async () => {
    const issued = await w.tx.issued.count();
    const r = await post(w.app, "/defi/market-sell", {
      borrower: borrower.address,
      loan,
      amount: "5000000000",
    });
    expect([r.status, r.body.code, r.body.name]).toEqual([422, 6049, "SaleShort"]);
    expect(await w.tx.issued.count()).toBe(issued);
    const bad = [
      { borrower: lender.address, loan },
      { borrower: borrower.address, loan, amount: "40000000001" },
      { borrower: borrower.address, loan, slippageBps: 6000 },
    ];
    for (const payload of bad) expect((await post(w.app, "/defi/market-sell", payload)).status).toBe(400);
  });

  it("sells all of the collateral: the lender is paid as by a repay, the borrower keeps the rest", async () => {
    const [loanBefore] = await w.tx.state.getLoans([loan]);
    const [before, feesBefore] = [
      await tokenBalance(w, borrower.address, USDC_MINT),
      (await w.tx.state.getBank(loanBefore!.bank))!.feesOwed,
    ];
    const preview = await post(w.app, "/defi/market-sell-quote", { borrower: borrower.address, loan });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body).toMatchObject({
      loan,
      venue: "local",
      collateralSold: "40000000000",
      collateralReturned: "0",
      slippageBps: 100,
    });
    expect(BigInt(preview.body.borrowerKeeps as string)).toBe(
      BigInt(preview.body.expectedProceeds as string) - BigInt(preview.body.owedNow as string),
    );
    const { built, sent } = await buildSignSend(
      w.app,
      "/defi/market-sell",
      { borrower: borrower.address, loan, slippageBps: 100 },
      [borrower],
    );
    expect(built.kind).toBe("Normal");
    expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
    const sale = built.metadata.sale as Record<string, string>;
    expect(sale.collateralSold).toBe("40000000000");
    const [account] = await w.tx.state.getLoans([loan]);
    expect(account?.status).toBe("Sold");
    const owed = computeOwedInterest({
      aprBps: account!.aprBps,
      principal: account!.principal,
      durationSeconds: account!.durationSeconds,
      createdAt: account!.createdAt,
      now: account!.soldAt,
    });
    expect(account!.repaidAmount).toBe(30_000_000n + owed);
    // the protocol fee waits in the bank's vault (feesOwed) until the keeper's CollectFees
    expect((await w.tx.state.getBank(account!.bank))!.feesOwed - feesBefore).toBe(computeProtocolFee(owed));
    // the borrower received the proceeds (the expected amount: nothing else traded) minus what was owed
    const received = (await tokenBalance(w, borrower.address, USDC_MINT)) - before;
    expect(received).toBe(BigInt(sale.expectedProceeds!) - 30_000_000n - owed);
    // the read side: the loan is sold, with its sale (proceeds, slot, signature) read from the transaction
    const indexer = createWorldIndexer(w);
    await indexer.reconcile();
    const listed = (await w.app.inject({ url: `/loan/user?pubkey=${borrower.address}` })).json() as {
      loans: { pubkey: string; status: string; soldAmount: string; sale?: Record<string, unknown> }[];
    };
    const view = listed.loans.find((l) => l.pubkey === loan)!;
    expect(view).toMatchObject({
      status: "sold",
      soldAmount: sale.expectedProceeds,
      sale: { salePrice: sale.expectedProceeds, saleTransaction: sent.result, saleSlot: expect.any(Number) },
    });
    const parsed = parseLoan(view);
    expect(parsed.sale?.salePrice).toBe(BigInt(sale.expectedProceeds!));
  }, 60_000);

  it("liquidates an overdue loan of an auto-sell pool by selling into the bank (keeper and builder)", async () => {
    const pool = await createUsdcJtoPool(w, lender, 2, "0");
    const updated = await buildSignSend(
      w.app,
      "/defi/update-pool",
      {
        pool,
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
    w.tx.state.invalidate();
    const taken = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        collateralAmount: "40000000000",
        duration: DAY,
        amount: "30000000",
        pool,
      },
      [borrower],
    );
    expect(taken.sent.error).toBeUndefined();
    const overdue = taken.built.metadata.loan as Address;
    await w.net.advanceClock(DAY + 3 * 3600);
    for (
      let i = 0;
      i < 50 &&
      (await w.tx.clock.unixTime()) < Number((await w.tx.state.getLoans([overdue]))[0]!.expiredAt) + 3600;
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const before = (await w.tx.state.getBank(bank))!;
    const lenderJto = await tokenBalance(w, lender.address, JTO_MINT);
    const keeper = createLiquidationKeeper(w.tx, lender, { info: () => undefined, warn: () => undefined });
    const round = await keeper.runRound();
    expect(round.liquidated.map((l) => l.loan)).toContain(overdue);
    const [after] = await w.tx.state.getLoans([overdue]);
    expect(after?.status).toBe("Liquidated");
    const bankAfter = (await w.tx.state.getBank(bank))!;
    // the bank got the sale's proceeds (about 99 USDC for 40 JTO), the lender's wallet no collateral
    expect(bankAfter.availableLiquidity - before.availableLiquidity).toBe(after!.repaidAmount);
    expect(after!.repaidAmount).toBeGreaterThan(90_000_000n);
    expect(await tokenBalance(w, lender.address, JTO_MINT)).toBe(lenderJto);
  }, 90_000);

  it("opens a margin position (down payment + loan swapped into JTO, oracle co-signed) and repays it", async () => {
    const usdcBefore = await tokenBalance(w, borrower.address, USDC_MINT);
    const jtoBefore = await tokenBalance(w, borrower.address, JTO_MINT);
    const { built, sent } = await buildSignSend(
      w.app,
      "/defi/margin-swap",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        currency: USDC_MINT,
        downPayment: "20000000",
        amount: "20000000",
        duration: 7 * DAY,
      },
      [borrower],
    );
    expect(built.kind).toBe("NormalCoSigned");
    expect(sent.error, JSON.stringify(sent.error)).toBeUndefined();
    const margin = built.metadata.margin as Record<string, unknown>;
    expect(margin).toMatchObject({ downPayment: "20000000", principal: "20000000", leverage: 2 });
    const position = built.metadata.loan as Address;
    const [loan] = await w.tx.state.getLoans([position]);
    expect(loan).toMatchObject({ status: "Ongoing", kind: "MarginSwapLoan", principal: 20_000_000n });
    expect(loan!.collateralAmount).toBeGreaterThanOrEqual(BigInt(margin.minimumCollateral as string));
    // the borrower paid the down payment; the 40 USDC bought about 16 JTO, locked
    expect(usdcBefore - (await tokenBalance(w, borrower.address, USDC_MINT))).toBe(20_000_000n);
    // the read side: the spec's kind carries the down payment, read from the opening transaction
    const indexer = createWorldIndexer(w);
    await indexer.reconcile();
    const listed = (await w.app.inject({ url: `/loan/user?pubkey=${borrower.address}` })).json() as {
      loans: { pubkey: string; kind: unknown; status: string }[];
    };
    expect(listed.loans.find((l) => l.pubkey === position)).toMatchObject({
      status: "ongoing",
      kind: { marginSwapLoan: { downPayment: "20000000" } },
    });
    const repaid = await buildSignSend(
      w.app,
      "/defi/repay-loan",
      { borrower: borrower.address, loans: [position] },
      [borrower],
    );
    expect(repaid.sent.error).toBeUndefined();
    expect((await tokenBalance(w, borrower.address, JTO_MINT)) - jtoBefore).toBe(loan!.collateralAmount);
    // above the pool's LTV (60%): 20 USDC down, 100 borrowed is refused by the rule-book, nothing built
    const greedy = await post(w.app, "/defi/margin-swap", {
      borrower: borrower.address,
      collateralMint: JTO_MINT,
      currency: USDC_MINT,
      downPayment: "20000000",
      amount: "100000000",
      duration: 7 * DAY,
    });
    expect([greedy.status, greedy.body.name]).toEqual([422, "LtvExceeded"]);
  }, 60_000);

  it("multi-quote in margin mode answers the leverage the pool's LTV allows, and that position can be opened", async () => {
    const r = await post(w.app, "/defi/multi-quote", {
      mode: "margin",
      currencyIn: JTO_MINT,
      currency: USDC_MINT,
      amountIn: "20000000",
      minDurationInDays: 7,
      jupSlippage: 100,
      borrower: borrower.address,
      tag: "margin-page",
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ tag: "margin-page", quotes: [] });
    const [best] = r.body.margins as Record<string, string | number>[];
    // LTV 60%: at most 1 / (1 - 0.6) = 2.5x before price impact and slippage, and a little less after them
    expect(best).toMatchObject({
      currency: USDC_MINT,
      downPayment: "20000000",
      maxLeverage: 2.5,
      slippageBps: 100,
    });
    expect(best!.leverage).toBeGreaterThan(2.3);
    expect(best!.leverage).toBeLessThanOrEqual(2.5);
    expect(BigInt(best!.minimumCollateral as string)).toBeLessThan(
      BigInt(best!.expectedCollateral as string),
    );
    expect(BigInt(best!.interest as string)).toBeGreaterThan(0n);
    const opened = await buildSignSend(
      w.app,
      "/defi/margin-swap",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        pool: best!.pool,
        downPayment: "20000000",
        amount: best!.principal,
        duration: 7 * DAY,
        slippageBps: 100,
      },
      [borrower],
    );
    expect(opened.sent.error, JSON.stringify(opened.sent.error)).toBeUndefined();
    const [loan] = await w.tx.state.getLoans([opened.built.metadata.loan as Address]);
    expect(loan).toMatchObject({ kind: "MarginSwapLoan", principal: BigInt(best!.principal as string) });
    // bad input: no currency in margin mode; margin-only fields in borrow mode
    const noCurrency = await post(w.app, "/defi/multi-quote", {
      mode: "margin",
      currencyIn: JTO_MINT,
      amountIn: "1",
    });
    expect([noCurrency.status, noCurrency.body.message]).toEqual([
      400,
      "margin mode needs the down payment's currency (currency) or a pool",
    ]);
    const mixed = await post(w.app, "/defi/multi-quote", {
      currencyIn: JTO_MINT,
      amountIn: "1",
      jupSlippage: 50,
    });
    expect(mixed.status).toBe(400);
    // reverse margin: the principal of the best quote needs at most the same down payment
    const reverseMargin = await post(w.app, "/defi/multi-quote", {
      mode: "margin",
      isReverse: true,
      currencyIn: JTO_MINT,
      currency: USDC_MINT,
      amountIn: best!.principal,
      minDurationInDays: 7,
      jupSlippage: 100,
      pool: best!.pool,
    });
    expect(reverseMargin.status, JSON.stringify(reverseMargin.body)).toBe(200);
    const [least] = reverseMargin.body.margins as Record<string, string>[];
    expect(least).toMatchObject({ principal: best!.principal, pool: best!.pool });
    expect(BigInt(least!.downPayment!)).toBeLessThanOrEqual(21_000_000n);
    expect(BigInt(least!.downPayment!)).toBeGreaterThan(19_000_000n);
    // reverse borrow: the least JTO the pool lends 30 USDC against; one base unit less is refused
    const reverse = await post(w.app, "/defi/multi-quote", {
      isReverse: true,
      currencyIn: JTO_MINT,
      currency: USDC_MINT,
      amountIn: "30000000",
      minDurationInDays: 7,
    });
    expect(reverse.status, JSON.stringify(reverse.body)).toBe(200);
    const [cheapest] = reverse.body.quotes as Record<string, string>[];
    expect(cheapest).toMatchObject({ amount: "30000000" });
    const needed = BigInt(cheapest!.collateralAmount!);
    const quoteAt = (collateralAmount: bigint) =>
      post(w.app, "/defi/quote", {
        collateralMint: JTO_MINT,
        collateralAmount: collateralAmount.toString(),
        duration: 7 * DAY,
        amount: "30000000",
        pool: cheapest!.pool,
      });
    expect((await quoteAt(needed)).status).toBe(200);
    expect((await quoteAt(needed - 1n)).status).toBe(422);
    const reverseNoCurrency = await post(w.app, "/defi/multi-quote", {
      isReverse: true,
      currencyIn: JTO_MINT,
      amountIn: "1",
    });
    expect(reverseNoCurrency.status).toBe(400);
  }, 60_000);

  it("swaps for the wallet (the swap widget): USDC into JTO between its own accounts, at least the quote's minimum", async () => {
    const trader = (await fundedWallet(w.net)).signer;
    const [usdcBefore, jtoBefore] = [
      await tokenBalance(w, trader.address, USDC_MINT),
      await tokenBalance(w, trader.address, JTO_MINT),
    ];
    const { built, sent } = await buildSignSend(
      w.app,
      "/defi/swap",
      {
        wallet: trader.address,
        inputMint: USDC_MINT,
        outputMint: JTO_MINT,
        amount: "25000000",
        slippageBps: 50,
      },
      [trader],
    );
    expect([built.kind, sent.error]).toEqual(["Normal", undefined]);
    const swap = built.metadata.swap as Record<string, string>;
    expect(swap).toMatchObject({ inAmount: "25000000", venue: "local" });
    // 25 USDC into 250,000 USDC / 100,000 JTO less 0.3%: about 9.97 JTO, exactly the quote (nothing else traded)
    expect(usdcBefore - (await tokenBalance(w, trader.address, USDC_MINT))).toBe(25_000_000n);
    const jto = (await tokenBalance(w, trader.address, JTO_MINT)) - jtoBefore;
    // the venue's quote may read reserves up to 250 ms old (other trades in this file move them): what arrives
    // is never below the minimum the program enforces and within the slippage asked for above the quote
    expect(jto).toBeGreaterThanOrEqual(BigInt(swap.minimumOut!));
    expect(jto * 10_000n).toBeLessThanOrEqual(BigInt(swap.outAmount!) * 10_050n);
    // bad input: nothing built
    const issued = await w.tx.issued.count();
    const bad = [
      { wallet: trader.address, inputMint: USDC_MINT, outputMint: USDC_MINT, amount: "1" },
      { wallet: trader.address, inputMint: USDC_MINT, outputMint: JTO_MINT, amount: "0" },
      { wallet: trader.address, inputMint: USDC_MINT, outputMint: JTO_MINT, amount: "1", slippageBps: 9000 },
    ];
    for (const payload of bad) expect((await post(w.app, "/defi/swap", payload)).status).toBe(400);
    const noRoute = await post(w.app, "/defi/swap", {
      wallet: trader.address,
      inputMint: USDC_MINT,
      outputMint: trader.address,
      amount: "1",
    });
    expect(noRoute.status).toBe(422);
    expect(await w.tx.issued.count()).toBe(issued);
  });
});
