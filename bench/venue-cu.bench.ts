// Compute units of the instructions that compose with the venues (in-process LiteSVM, deterministic): the swap
// venue's Swap alone, MarketSell, LiquidateSell and MarginSwap each including the venue swap; the NFT instant sell
// (MarketSell with the market's SellToBid), the NFT auto-sell (LiquidateSell with SellToBid) and TakeMortgage
// (with the market's Buy); against the issues' budget of 120,000 CU for the whole transaction.

import { getLiquidateSellInstruction, quoteSwapExactIn } from "@cistern/sdk";
import {
  createPool,
  getNow,
  getTokenBalance,
  mintTo,
  readLoan,
  sendWithLiteSvm,
  setUnixTime,
  tokenAccountOf,
} from "@cistern/sdk/testing";
import {
  createNftSale,
  instantSell,
  listNft,
  openNftLoan,
  placeBid,
  sellLoanToBid,
  takeMortgageInstruction,
  USDC,
} from "../programs/lending/test/support/nft-sale-world.ts";
import {
  COLLATERAL,
  createSale,
  DAY,
  marginSwapInstruction,
  marketSell,
  openLoan,
  venueSwap,
} from "../programs/lending/test/support/sale-world.ts";

const BUDGET = 120_000n;
const s = await createSale();
const w = s.world;
const rows: [string, bigint][] = [];

// MarketSell of all the collateral, two days into the loan
const loan = await openLoan(s);
setUnixTime(w, getNow(w).unix + 2n * DAY);
const collateralIsA = s.swapPool.mintA === s.collateralMint;
const reserveIn = getTokenBalance(w.svm, collateralIsA ? s.swapPool.vaultA : s.swapPool.vaultB);
const reserveOut = getTokenBalance(w.svm, collateralIsA ? s.swapPool.vaultB : s.swapPool.vaultA);
const quote = quoteSwapExactIn(reserveIn, reserveOut, COLLATERAL, 30);
const sell = await sendWithLiteSvm(
  w.svm,
  [await marketSell(s, loan, await venueSwap(s, loan, COLLATERAL, quote.amountOut))],
  s.borrower.signer,
);
rows.push(["MarketSell (incl. venue Swap)", sell.computeUnits]);

// LiquidateSell in an auto-sell pool, a day past expiry
const auto = await createPool(w, {
  poolType: "defi-pool",
  collectionIds: [s.collateralMint],
  loanAprBps: 2000,
  ltvBps: 6000,
  autoSell: true,
});
const overdue = await openLoan({ ...s, pool: auto });
setUnixTime(w, getNow(w).unix + 8n * DAY);
const l = readLoan(w, overdue);
const liquidation = await sendWithLiteSvm(
  w.svm,
  [
    await getLiquidateSellInstruction({
      programAddress: w.programAddress,
      liquidator: w.admin,
      pool: l.pool,
      bank: l.bank,
      loan: overdue,
      poolOwnerCollateralTokenAccount: await tokenAccountOf(w, w.lender, s.collateralMint),
      swap: await venueSwap(s, overdue, COLLATERAL, 0n, { destination: w.vault }),
    }),
  ],
  w.admin,
);
rows.push(["LiquidateSell (incl. venue Swap)", liquidation.computeUnits]);

// MarginSwap: 50 down + 60 borrowed swapped into the collateral and locked (its own world: prices untouched)
const m = await createSale();
await mintTo(
  m.world.svm,
  m.world.admin,
  m.world.currencyMint,
  await tokenAccountOf(m.world, m.borrower, m.world.currencyMint),
  500_000_000n,
);
const mCollateralIsA = m.swapPool.mintA === m.collateralMint;
const bought = quoteSwapExactIn(
  getTokenBalance(m.world.svm, mCollateralIsA ? m.swapPool.vaultB : m.swapPool.vaultA),
  getTokenBalance(m.world.svm, mCollateralIsA ? m.swapPool.vaultA : m.swapPool.vaultB),
  110_000_000n,
  30,
).amountOut;
const margin = await sendWithLiteSvm(
  m.world.svm,
  [
    await marginSwapInstruction(m, {
      downPayment: 50_000_000n,
      principal: 60_000_000n,
      minimum: (bought * 99n) / 100n,
    }),
  ],
  m.borrower.signer,
);
rows.push(["MarginSwap (incl. venue Swap)", margin.computeUnits]);

// the venue's Swap on its own: the borrower sells 1 token
const own = await sendWithLiteSvm(
  w.svm,
  [
    await venueSwap(s, overdue, 1_000_000_000n, 0n, {
      user: s.borrower.signer,
      source: await tokenAccountOf(w, s.borrower, s.collateralMint),
    }),
  ],
  s.borrower.signer,
);
rows.push(["swap venue Swap", own.computeUnits]);

// the NFT market: instant sell of a loan to a collection bid, auto-sell of an overdue loan, a mortgage
const n = await createNftSale();
const nftLoan = await openNftLoan(n, 50n * USDC);
setUnixTime(n.world, getNow(n.world).unix + 2n * DAY);
const nftBid = await placeBid(n, 90n * USDC);
const borrowerCurrency = await tokenAccountOf(n.world, n.borrower, n.world.currencyMint);
const instant = await sendWithLiteSvm(
  n.world.svm,
  [await instantSell(n, nftLoan.loan, await sellLoanToBid(n, nftLoan.loan, nftBid, borrowerCurrency))],
  n.borrower.signer,
);
rows.push(["Instant sell (MarketSell + SellToBid)", instant.computeUnits]);
const overdueNft = await openNftLoan(n, 50n * USDC);
setUnixTime(n.world, readLoan(n.world, overdueNft.loan).expiredAt + 8n * 3600n + 1n);
const autoBid = await placeBid(n, 80n * USDC, 2n);
const autoSold = await sendWithLiteSvm(
  n.world.svm,
  [
    await getLiquidateSellInstruction({
      programAddress: n.world.programAddress,
      liquidator: n.world.admin,
      pool: n.pool.address,
      bank: n.pool.bank.address,
      loan: overdueNft.loan,
      poolOwnerCollateralTokenAccount: await tokenAccountOf(n.world, n.pool.bank.owner, overdueNft.nft),
      swap: await sellLoanToBid(n, overdueNft.loan, autoBid, n.world.vault),
    }),
  ],
  n.world.admin,
);
rows.push(["NFT auto-sell (LiquidateSell + SellToBid)", autoSold.computeUnits]);
const listing = await listNft(n, 100n * USDC);
const mortgage = await sendWithLiteSvm(
  n.world.svm,
  [await takeMortgageInstruction(n, listing, 60n * USDC)],
  n.borrower.signer,
);
rows.push(["TakeMortgage (incl. market Buy)", mortgage.computeUnits]);

console.log("venue-cu: compute units (LiteSVM), budget 120,000 per transaction");
for (const [name, units] of rows)
  console.log(
    `${name.padEnd(42)} ${String(units).padStart(7)} CU  ${units <= BUDGET ? "within budget" : "OVER BUDGET"}`,
  );
if (rows.some(([, units]) => units > BUDGET)) process.exit(1);
