/**
 * A LiteSVM world for the sales that compose with the swap venue: the lending program and the local swap venue
 * deployed side by side, the venue pinned, a seeded collateral/currency pool (2 currency units per token), a
 * defi-pool and a funded borrower. Used by the MarketSell / LiquidateSell tests and bench/venue-cu.bench.ts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  decodeSwapPool,
  findEscrowPda,
  findLoanPda,
  getAddSwapLiquidityInstruction,
  getInitializeSwapPoolInstruction,
  getMarginSwapInstruction,
  getMarketSellInstruction,
  getSetVenuesInstruction,
  getSwapInstruction,
  type SwapPoolAccount,
} from "@cistern/sdk";
import {
  createLendingWorld,
  createMint,
  createPool,
  createWallet,
  getAccountData,
  getNow,
  type LendingWorld,
  LiteSvmTransactionError,
  mintTo,
  readLoan,
  sendWithLiteSvm,
  takeLoan,
  tokenAccountOf,
  type Wallet,
  type WorldPool,
} from "@cistern/sdk/testing";
import { type Address, generateKeyPairSigner, type Instruction } from "@solana/kit";

const LENDING_SO = fileURLToPath(new URL("../../build/lending.so", import.meta.url));
const VENUE_SO = fileURLToPath(new URL("../../../swap-venue/build/swap-venue.so", import.meta.url));
export const DAY = 86_400n;
/** 100 collateral tokens (9 decimals) per loan; the pool prices 1 token at 2 currency units (6 decimals). */
export const COLLATERAL = 100_000_000_000n;
export const PRINCIPAL = 100_000_000n;

export interface Sale {
  world: LendingWorld;
  venue: Address;
  swapPool: SwapPoolAccount & { address: Address };
  pool: WorldPool;
  collateralMint: Address;
  borrower: Wallet;
}

export async function failureCode(run: Promise<unknown>): Promise<number | string> {
  try {
    await run;
    return "success";
  } catch (error) {
    if (!(error instanceof LiteSvmTransactionError)) throw error;
    for (const line of [...error.logs].reverse()) {
      const m = /custom program error: 0x([0-9a-f]+)/i.exec(line);
      if (m?.[1]) return Number.parseInt(m[1], 16);
    }
    return error.message.split("\n")[0]!;
  }
}

export async function createSale(): Promise<Sale> {
  const world = await createLendingWorld({ soPath: LENDING_SO, depositBaseUnits: 10_000_000_000n });
  const venue = (await generateKeyPairSigner()).address;
  world.svm.addProgram(venue, new Uint8Array(readFileSync(VENUE_SO)));
  const collateralMint = await createMint(world.svm, world.admin, 9);
  // the venue's pool: 100,000 tokens against 200,000 currency units (2 per token)
  const init = await getInitializeSwapPoolInstruction({
    programAddress: venue,
    payer: world.admin,
    mintX: collateralMint,
    mintY: world.currencyMint,
    feeBps: 30,
  });
  await sendWithLiteSvm(world.svm, [init], world.admin);
  const swapPool = { ...decodeSwapPool(getAccountData(world.svm, init.pool)!), address: init.pool };
  const operator = await createWallet(world.svm, world.admin, [collateralMint, world.currencyMint]);
  await mintTo(
    world.svm,
    world.admin,
    collateralMint,
    operator.tokenAccounts.get(collateralMint)!,
    100_000n * 10n ** 9n,
  );
  await mintTo(
    world.svm,
    world.admin,
    world.currencyMint,
    operator.tokenAccounts.get(world.currencyMint)!,
    200_000n * 10n ** 6n,
  );
  const aIsCollateral = swapPool.mintA === collateralMint;
  await sendWithLiteSvm(
    world.svm,
    [
      await getAddSwapLiquidityInstruction({
        programAddress: venue,
        depositor: operator.signer,
        pool: swapPool,
        depositorTokenA: operator.tokenAccounts.get(swapPool.mintA)!,
        depositorTokenB: operator.tokenAccounts.get(swapPool.mintB)!,
        amountA: aIsCollateral ? 100_000n * 10n ** 9n : 200_000n * 10n ** 6n,
        amountB: aIsCollateral ? 200_000n * 10n ** 6n : 100_000n * 10n ** 9n,
      }),
    ],
    operator.signer,
  );
  await sendWithLiteSvm(
    world.svm,
    [
      await getSetVenuesInstruction({
        programAddress: world.programAddress,
        admin: world.admin,
        swapProgram: venue,
      }),
    ],
    world.admin,
  );
  const pool = await createPool(world, {
    poolType: "defi-pool",
    collectionIds: [collateralMint],
    loanAprBps: 2000,
    ltvBps: 6000,
  });
  const borrower = await createWallet(world.svm, world.admin, [collateralMint, world.currencyMint]);
  await mintTo(
    world.svm,
    world.admin,
    collateralMint,
    borrower.tokenAccounts.get(collateralMint)!,
    10n * COLLATERAL,
  );
  return { world, venue, swapPool, pool, collateralMint, borrower };
}

export async function openLoan(s: Sale): Promise<Address> {
  return takeLoan(s.world, {
    pool: s.pool,
    borrower: s.borrower,
    collateralMint: s.collateralMint,
    collection: s.collateralMint,
    collateralAmountBaseUnits: COLLATERAL,
    collateralValueBaseUnits: 200_000_000n,
    principalBaseUnits: PRINCIPAL,
    durationSeconds: 7n * DAY,
  });
}

/** The venue swap selling `amountIn` of the loan's escrow into the borrower's currency account. */
export async function venueSwap(
  s: Sale,
  loan: Address,
  amountIn: bigint,
  minAmountOut: bigint,
  over: Partial<Parameters<typeof getSwapInstruction>[0]> = {},
): Promise<Instruction> {
  const [escrow] = await findEscrowPda(s.world.programAddress, loan);
  const collateralIsA = s.swapPool.mintA === s.collateralMint;
  return getSwapInstruction({
    programAddress: s.venue,
    user: loan,
    source: escrow,
    destination: await tokenAccountOf(s.world, s.borrower, s.world.currencyMint),
    pool: s.swapPool.address,
    vaultIn: collateralIsA ? s.swapPool.vaultA : s.swapPool.vaultB,
    vaultOut: collateralIsA ? s.swapPool.vaultB : s.swapPool.vaultA,
    amountIn,
    minAmountOut,
    ...over,
  });
}

export async function marketSell(
  s: Sale,
  loan: Address,
  swap: Instruction,
  over: { borrower?: Wallet; currencyAccount?: Address } = {},
) {
  const l = readLoan(s.world, loan);
  const borrower = over.borrower ?? s.borrower;
  return getMarketSellInstruction({
    programAddress: s.world.programAddress,
    borrower: borrower.signer,
    pool: l.pool,
    bank: l.bank,
    loan,
    borrowerCollateralTokenAccount: await tokenAccountOf(s.world, borrower, l.collateralMint),
    borrowerCurrencyTokenAccount:
      over.currencyAccount ?? (await tokenAccountOf(s.world, borrower, l.currencyMint)),
    swap,
  });
}

/**
 * MarginSwap of `downPayment` + `principal` through the venue into at least `minimum` collateral, in the sale's
 * pool (attested at 2 currency units a token); `destination` and `venue` substitute accounts for refusal tests.
 */
export async function marginSwapInstruction(
  s: Sale,
  input: { downPayment: bigint; principal: bigint; minimum: bigint; destination?: Address; venue?: Address },
) {
  const w = s.world;
  const nonce = w.counters.loanNonce++;
  const [loan] = await findLoanPda(w.programAddress, s.pool.address, s.borrower.signer.address, nonce);
  const [escrow] = await findEscrowPda(w.programAddress, loan);
  const currency = await tokenAccountOf(w, s.borrower, w.currencyMint);
  const collateralIsA = s.swapPool.mintA === s.collateralMint;
  const swap = getSwapInstruction({
    programAddress: input.venue ?? s.venue,
    user: s.borrower.signer,
    source: currency,
    destination: input.destination ?? escrow,
    pool: s.swapPool.address,
    vaultIn: collateralIsA ? s.swapPool.vaultB : s.swapPool.vaultA,
    vaultOut: collateralIsA ? s.swapPool.vaultA : s.swapPool.vaultB,
    amountIn: input.downPayment + input.principal,
    minAmountOut: 0n,
  });
  return getMarginSwapInstruction({
    programAddress: w.programAddress,
    borrower: s.borrower.signer,
    oracle: w.oracle,
    pool: s.pool.address,
    bank: s.pool.bank.address,
    collateralMint: s.collateralMint,
    borrowerCurrencyTokenAccount: currency,
    downPaymentBaseUnits: input.downPayment,
    nonce,
    principalBaseUnits: input.principal,
    durationSeconds: 7n * DAY,
    collateralAmountBaseUnits: input.minimum,
    expectedAprBps: 2000,
    attestation: {
      collateralValueBaseUnits: (input.minimum * 2n) / 1000n, // 9-decimal tokens at 2 six-decimal units each
      collection: s.collateralMint,
      currencyPriceMicroUsd: 1_000_000n,
      walletAgeSeconds: 0n,
      pastLoans: 0n,
      volumeMicroUsd: 0n,
      slot: getNow(w).slot,
    },
    swap,
  });
}
