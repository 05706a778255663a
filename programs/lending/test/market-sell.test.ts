import { computeOwedInterest, computeProtocolFee, PROGRAM_ERROR_CODE as P } from "@cistern/protocol";
import {
  findEscrowPda,
  getLiquidateSellInstruction,
  getSetVenuesInstruction,
  quoteSwapExactIn,
} from "@cistern/sdk";
import {
  createPool,
  createWallet,
  getNow,
  getTokenBalance,
  liquidate,
  mintTo,
  readBank,
  readLoan,
  repay,
  sendWithLiteSvm,
  setUnixTime,
  takeLoan,
  tokenAccountOf,
  type WorldPool,
} from "@cistern/sdk/testing";
import type { Address, Instruction } from "@solana/kit";
import { getTransferInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { beforeAll, describe, expect, it } from "vitest";

import {
  COLLATERAL,
  createSale,
  DAY,
  failureCode,
  marginSwapInstruction,
  marketSell,
  openLoan,
  PRINCIPAL,
  type Sale,
  venueSwap,
} from "./support/sale-world.ts";

describe("MarketSell through the pinned swap venue", () => {
  let s: Sale;
  beforeAll(async () => {
    s = await createSale();
  });

  it("sells part of the collateral, repays exactly what Repay would, returns the rest and the remainder", async () => {
    const loan = await openLoan(s);
    setUnixTime(s.world, getNow(s.world).unix + 2n * DAY);
    const w = s.world;
    const currency = await tokenAccountOf(w, s.borrower, w.currencyMint);
    const collateral = await tokenAccountOf(w, s.borrower, s.collateralMint);
    const treasury = await tokenAccountOf(w, w.treasury, w.currencyMint);
    const before = {
      currency: getTokenBalance(w.svm, currency),
      collateral: getTokenBalance(w.svm, collateral),
      treasury: getTokenBalance(w.svm, treasury),
      vault: getTokenBalance(w.svm, w.vault),
      bank: readBank(w),
    };
    const l = readLoan(w, loan);
    const owed = computeOwedInterest({
      aprBps: l.aprBps,
      principal: l.principal,
      durationSeconds: l.durationSeconds,
      createdAt: l.createdAt,
      now: getNow(w).unix,
    });
    const fee = computeProtocolFee(owed);
    // sell 60 of the 100 tokens: about 119 units, enough for 100 + interest
    const sell = 60_000_000_000n;
    const collateralIsA = s.swapPool.mintA === s.collateralMint;
    const [reserveIn, reserveOut] = [
      getTokenBalance(w.svm, collateralIsA ? s.swapPool.vaultA : s.swapPool.vaultB),
      getTokenBalance(w.svm, collateralIsA ? s.swapPool.vaultB : s.swapPool.vaultA),
    ];
    const quote = quoteSwapExactIn(reserveIn, reserveOut, sell, 30);
    const ix = await marketSell(s, loan, await venueSwap(s, loan, sell, quote.amountOut));
    const sent = await sendWithLiteSvm(w.svm, [ix], s.borrower.signer);
    console.log(`MarketSell incl. the venue swap: ${sent.computeUnits} CU`);
    const after = readLoan(w, loan);
    expect(after.status).toBe("Sold");
    expect(after.soldAt).toBe(getNow(w).unix);
    expect(after.repaidAmount).toBe(PRINCIPAL + owed);
    // the fee waits in the vault as the bank's feesOwed (CollectFees moves it to the treasury)
    expect(getTokenBalance(w.svm, treasury) - before.treasury).toBe(0n);
    expect(getTokenBalance(w.svm, w.vault) - before.vault).toBe(PRINCIPAL + owed);
    expect(readBank(w).feesOwed - before.bank.feesOwed).toBe(fee);
    expect(getTokenBalance(w.svm, currency) - before.currency).toBe(quote.amountOut - PRINCIPAL - owed);
    expect(getTokenBalance(w.svm, collateral) - before.collateral).toBe(COLLATERAL - sell);
    expect(w.svm.getAccount((await findEscrowPda(w.programAddress, loan))[0]).exists).toBe(false);
    const bank = readBank(w);
    expect(bank.availableLiquidity - before.bank.availableLiquidity).toBe(PRINCIPAL + owed - fee);
    expect(bank.ongoingLoans).toBe(before.bank.ongoingLoans - 1n);
    // the sale is in the logs for the indexer: "sold", collateral sold, proceeds
    expect(sent.logs.some((line) => line.startsWith("Program data: "))).toBe(true);
  });

  it("refuses when the proceeds do not cover what is owed, and nothing moves", async () => {
    const loan = await openLoan(s);
    const currency = await tokenAccountOf(s.world, s.borrower, s.world.currencyMint);
    const before = getTokenBalance(s.world.svm, currency);
    // 10 tokens bring about 20 units: far below the 100 owed
    const code = await failureCode(
      sendWithLiteSvm(
        s.world.svm,
        [await marketSell(s, loan, await venueSwap(s, loan, 10_000_000_000n, 0n))],
        s.borrower.signer,
      ),
    );
    expect(code).toBe(P.SaleShort);
    expect(readLoan(s.world, loan).status).toBe("Ongoing");
    expect(getTokenBalance(s.world.svm, currency)).toBe(before);
    // a swap whose own minimum is not met fails in the venue (SlippageExceeded), and the loan stays
    const slipped = await failureCode(
      sendWithLiteSvm(
        s.world.svm,
        [await marketSell(s, loan, await venueSwap(s, loan, COLLATERAL, 10n ** 15n))],
        s.borrower.signer,
      ),
    );
    expect(slipped).toBe(15014);
    expect(readLoan(s.world, loan).status).toBe("Ongoing");
    await repay(s.world, s.borrower, loan);
  });

  it("refuses a substituted venue, a venue that keeps the collateral, another signer, another's account and a closed loan", async () => {
    const loan = await openLoan(s);
    const w = s.world;
    const [escrow] = await findEscrowPda(w.programAddress, loan);
    const thief = await createWallet(w.svm, w.admin, [s.collateralMint, w.currencyMint]);
    // a "venue" that is the token program itself: its transfer would hand the escrow to the thief
    const keep: Instruction = {
      ...getTransferInstruction({
        source: escrow,
        destination: thief.tokenAccounts.get(s.collateralMint)!,
        authority: loan,
        amount: COLLATERAL,
      }),
      programAddress: TOKEN_PROGRAM_ADDRESS,
    };
    expect(
      await failureCode(sendWithLiteSvm(w.svm, [await marketSell(s, loan, keep)], s.borrower.signer)),
    ).toBe(P.InvalidVenue);
    // even pinned by the admin, a venue that keeps the collateral brings no proceeds: refused
    await sendWithLiteSvm(
      w.svm,
      [
        await getSetVenuesInstruction({
          programAddress: w.programAddress,
          admin: w.admin,
          swapProgram: TOKEN_PROGRAM_ADDRESS,
        }),
      ],
      w.admin,
    );
    expect(
      await failureCode(sendWithLiteSvm(w.svm, [await marketSell(s, loan, keep)], s.borrower.signer)),
    ).toBe(P.SaleShort);
    await sendWithLiteSvm(
      w.svm,
      [
        await getSetVenuesInstruction({
          programAddress: w.programAddress,
          admin: w.admin,
          swapProgram: s.venue,
        }),
      ],
      w.admin,
    );
    // only the admin pins venues
    const notAdmin = await failureCode(
      sendWithLiteSvm(
        w.svm,
        [
          await getSetVenuesInstruction({
            programAddress: w.programAddress,
            admin: thief.signer,
            swapProgram: TOKEN_PROGRAM_ADDRESS,
          }),
        ],
        thief.signer,
      ),
    );
    expect(notAdmin).toBe(P.Unauthorized);
    // someone other than the borrower
    const swap = await venueSwap(s, loan, 80_000_000_000n, 0n, {
      destination: thief.tokenAccounts.get(w.currencyMint)!,
    });
    expect(
      await failureCode(
        sendWithLiteSvm(w.svm, [await marketSell(s, loan, swap, { borrower: thief })], thief.signer),
      ),
    ).toBe(P.Unauthorized);
    // the borrower, but proceeds into an account that is not the borrower's
    const elsewhere = await marketSell(s, loan, swap, {
      currencyAccount: thief.tokenAccounts.get(w.currencyMint)!,
    });
    expect(await failureCode(sendWithLiteSvm(w.svm, [elsewhere], s.borrower.signer))).toBe(
      P.InvalidTokenAccount,
    );
    expect(readLoan(w, loan).status).toBe("Ongoing");
    expect(getTokenBalance(w.svm, escrow)).toBe(COLLATERAL);
    // a loan already repaid
    await repay(w, s.borrower, loan);
    const closed = await failureCode(
      sendWithLiteSvm(
        w.svm,
        [await marketSell(s, loan, await venueSwap(s, loan, COLLATERAL, 0n))],
        s.borrower.signer,
      ),
    );
    expect(closed).toBe(P.LoanNotOngoing);
  });
});

describe("LiquidateSell: an auto-sell pool's overdue loan is sold into the bank", () => {
  let s: Sale;
  let autoPool: WorldPool;
  beforeAll(async () => {
    s = await createSale();
    autoPool = await createPool(s.world, {
      poolType: "defi-pool",
      collectionIds: [s.collateralMint],
      loanAprBps: 2000,
      ltvBps: 6000,
      autoSell: true,
    });
  });

  /** The venue swap selling all of a loan's escrow into the bank's vault. */
  async function sellIntoVault(loan: Address, minAmountOut = 0n) {
    return venueSwap(s, loan, COLLATERAL, minAmountOut, { destination: s.world.vault });
  }
  async function liquidateSell(loan: Address, liquidator = s.world.admin, swap?: Instruction) {
    const l = readLoan(s.world, loan);
    const owner = s.world.pools.get(l.pool)!.bank.owner;
    return getLiquidateSellInstruction({
      programAddress: s.world.programAddress,
      liquidator,
      pool: l.pool,
      bank: l.bank,
      loan,
      poolOwnerCollateralTokenAccount: await tokenAccountOf(s.world, owner, s.collateralMint),
      swap: swap ?? (await sellIntoVault(loan)),
    });
  }
  async function overdueLoan(pool: WorldPool): Promise<Address> {
    const loan = await takeLoan(s.world, {
      pool,
      borrower: s.borrower,
      collateralMint: s.collateralMint,
      collection: s.collateralMint,
      collateralAmountBaseUnits: COLLATERAL,
      collateralValueBaseUnits: 200_000_000n,
      principalBaseUnits: PRINCIPAL,
      durationSeconds: 7n * DAY,
    });
    setUnixTime(s.world, getNow(s.world).unix + 8n * DAY);
    return loan;
  }

  it("sells the collateral into the vault: the bank gets principal, interest and the surplus", async () => {
    const w = s.world;
    const loan = await overdueLoan(autoPool);
    const before = { vault: getTokenBalance(w.svm, w.vault), bank: readBank(w) };
    const out = await sendWithLiteSvm(w.svm, [await liquidateSell(loan)], w.admin);
    console.log(`LiquidateSell incl. the venue swap: ${out.computeUnits} CU`);
    const l = readLoan(w, loan);
    expect(l.status).toBe("Liquidated");
    const proceeds = getTokenBalance(w.svm, w.vault) - before.vault;
    expect(l.repaidAmount).toBe(proceeds);
    expect(proceeds).toBeGreaterThan(PRINCIPAL);
    const bank = readBank(w);
    expect(bank.availableLiquidity - before.bank.availableLiquidity).toBe(proceeds);
    expect(bank.totalLiquidity - before.bank.totalLiquidity).toBe(proceeds - PRINCIPAL);
    expect(w.svm.getAccount((await findEscrowPda(w.programAddress, loan))[0]).exists).toBe(false);
  });

  it("refuses before grace ends, on a pool without auto-sell, and a sale below what is owed; classic liquidation still works", async () => {
    const w = s.world;
    const early = await takeLoan(w, {
      pool: autoPool,
      borrower: s.borrower,
      collateralMint: s.collateralMint,
      collection: s.collateralMint,
      collateralAmountBaseUnits: COLLATERAL,
      collateralValueBaseUnits: 200_000_000n,
      principalBaseUnits: PRINCIPAL,
      durationSeconds: 7n * DAY,
    });
    expect(await failureCode(sendWithLiteSvm(w.svm, [await liquidateSell(early)], w.admin))).toBe(
      P.NotLiquidatable,
    );
    const classic = await overdueLoan(s.pool);
    expect(await failureCode(sendWithLiteSvm(w.svm, [await liquidateSell(classic)], w.admin))).toBe(
      P.AutoSellDisabled,
    );
    // a sale of only a tenth of the collateral brings about 20, not the 100 + interest owed
    const short = await liquidateSell(
      early,
      w.admin,
      await venueSwap(s, early, COLLATERAL / 10n, 0n, { destination: w.vault }),
    );
    expect(await failureCode(sendWithLiteSvm(w.svm, [short], w.admin))).toBe(P.SaleShort);
    expect(readLoan(w, early).status).toBe("Ongoing");
    // the proceeds may not go elsewhere than the vault
    const thief = await createWallet(w.svm, w.admin, [w.currencyMint]);
    const elsewhere = await liquidateSell(
      early,
      w.admin,
      await venueSwap(s, early, COLLATERAL, 0n, { destination: thief.tokenAccounts.get(w.currencyMint)! }),
    );
    expect(await failureCode(sendWithLiteSvm(w.svm, [elsewhere], w.admin))).toBe(P.SaleShort);
    await liquidate(w, w.admin, classic);
    expect(readLoan(w, classic).status).toBe("Liquidated");
  });
});

describe("MarginSwap: down payment + loan swapped into the collateral, locked as a MarginSwapLoan", () => {
  let s: Sale;
  const DOWN = 50_000_000n;
  const BORROW = 60_000_000n;
  beforeAll(async () => {
    s = await createSale();
    const currency = await tokenAccountOf(s.world, s.borrower, s.world.currencyMint);
    await mintTo(s.world.svm, s.world.admin, s.world.currencyMint, currency, 10n * DOWN);
  });

  const marginSwap = (input: {
    principal: bigint;
    minimum: bigint;
    destination?: Address;
    venue?: Address;
  }) => marginSwapInstruction(s, { downPayment: DOWN, ...input });

  it("borrows, swaps and locks what the venue delivered; the borrower paid only the down payment", async () => {
    const w = s.world;
    const currency = await tokenAccountOf(w, s.borrower, w.currencyMint);
    const [cashBefore, vaultBefore] = [getTokenBalance(w.svm, currency), getTokenBalance(w.svm, w.vault)];
    const collateralIsA = s.swapPool.mintA === s.collateralMint;
    const expected = quoteSwapExactIn(
      getTokenBalance(w.svm, collateralIsA ? s.swapPool.vaultB : s.swapPool.vaultA),
      getTokenBalance(w.svm, collateralIsA ? s.swapPool.vaultA : s.swapPool.vaultB),
      DOWN + BORROW,
      30,
    ).amountOut;
    const minimum = (expected * 99n) / 100n;
    const ix = await marginSwap({ principal: BORROW, minimum });
    const out = await sendWithLiteSvm(w.svm, [ix], s.borrower.signer);
    console.log(`MarginSwap incl. the venue swap: ${out.computeUnits} CU`);
    const loan = readLoan(w, ix.loan);
    expect(loan).toMatchObject({
      status: "Ongoing",
      kind: "MarginSwapLoan",
      principal: BORROW,
      collateralAmount: expected,
    });
    expect(getTokenBalance(w.svm, ix.escrow)).toBe(expected);
    expect(cashBefore - getTokenBalance(w.svm, currency)).toBe(DOWN);
    expect(vaultBefore - getTokenBalance(w.svm, w.vault)).toBe(BORROW);
    // it is repaid like any loan: the collateral comes back
    await repay(w, s.borrower, ix.loan);
    expect(readLoan(w, ix.loan).status).toBe("Repaid");
    expect(
      getTokenBalance(w.svm, await tokenAccountOf(w, s.borrower, s.collateralMint)),
    ).toBeGreaterThanOrEqual(expected);
  });

  it("refuses leverage above the pool's LTV, a swap that delivers elsewhere or less, and a substituted venue", async () => {
    const w = s.world;
    const vault = getTokenBalance(w.svm, w.vault);
    // 60% LTV: borrowing 100 against about 75 tokens (150 units) is above it
    const greedy = await marginSwap({ principal: 100_000_000n, minimum: 75_000_000_000n });
    expect(await failureCode(sendWithLiteSvm(w.svm, [greedy], s.borrower.signer))).toBe(P.LtvExceeded);
    const elsewhere = await marginSwap({
      principal: BORROW,
      minimum: 50_000_000_000n,
      destination: await tokenAccountOf(w, s.borrower, s.collateralMint),
    });
    expect(await failureCode(sendWithLiteSvm(w.svm, [elsewhere], s.borrower.signer))).toBe(P.SaleShort);
    // a minimum above what the venue delivers
    const short = await marginSwap({ principal: BORROW, minimum: 60_000_000_000n });
    expect(await failureCode(sendWithLiteSvm(w.svm, [short], s.borrower.signer))).toBe(P.SaleShort);
    const fake = await marginSwap({
      principal: BORROW,
      minimum: 50_000_000_000n,
      venue: TOKEN_PROGRAM_ADDRESS,
    });
    expect(await failureCode(sendWithLiteSvm(w.svm, [fake], s.borrower.signer))).toBe(P.InvalidVenue);
    expect(getTokenBalance(w.svm, w.vault)).toBe(vault);
  });
});
