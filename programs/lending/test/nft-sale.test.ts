/**
 * The lending program composing with the local NFT market: an NFT loan's instant sell to the best collection bid
 * (MarketSell), the mortgage (TakeMortgage buys a listing into a new loan's escrow) and auto-sell at
 * liquidation (LiquidateSell into the vault), with the adversarial cases the issue names.
 */
import { readFileSync } from "node:fs";
import { computeOwedInterest, computeProtocolFee, PROGRAM_ERROR_CODE as E } from "@cistern/protocol";
import {
  getLiquidateInstruction,
  getLiquidateSellInstruction,
  getRepayInstruction,
  NFT_MARKET_ERRORS,
} from "@cistern/sdk";
import {
  createPool,
  getNow,
  getTokenBalance,
  mintTo,
  readBank,
  readLoan,
  readPool,
  sendWithLiteSvm,
  setUnixTime,
  tokenAccountOf,
} from "@cistern/sdk/testing";
import { generateKeyPairSigner } from "@solana/kit";
import { beforeEach, describe, expect, it } from "vitest";
import {
  createNftSale,
  DAY,
  instantSell,
  LTV_BPS,
  listNft,
  MARKET_SO,
  MORTGAGE_APR_BPS,
  type NftSale,
  openNftLoan,
  placeBid,
  sellLoanToBid,
  takeMortgageInstruction,
  USDC,
} from "./support/nft-sale-world.ts";
import { failureCode } from "./support/sale-world.ts";

const send = (s: NftSale, ixs: Parameters<typeof sendWithLiteSvm>[1], payer = s.borrower.signer) =>
  sendWithLiteSvm(s.world.svm, ixs, payer);
const balance = async (s: NftSale, wallet: NftSale["borrower"], mint = s.world.currencyMint) =>
  getTokenBalance(s.world.svm, await tokenAccountOf(s.world, wallet, mint));

describe("instant sell: an NFT loan sold to the best collection bid in one transaction", () => {
  let s: NftSale;
  beforeEach(async () => {
    s = await createNftSale();
  });

  it("repays what the program asks now (the fee as the bank's feesOwed), the rest to the borrower; the loan ends Sold", async () => {
    const { loan, nft } = await openNftLoan(s, 50n * USDC);
    setUnixTime(s.world, getNow(s.world).unix + 2n * DAY);
    const bid = await placeBid(s, 90n * USDC);
    const before = await balance(s, s.borrower);
    const vaultBefore = getTokenBalance(s.world.svm, s.world.vault);
    const l = readLoan(s.world, loan);
    const owed = computeOwedInterest({
      aprBps: l.aprBps,
      principal: l.principal,
      durationSeconds: l.durationSeconds,
      createdAt: l.createdAt,
      now: getNow(s.world).unix,
    });
    const fee = computeProtocolFee(owed);
    const sale = await sellLoanToBid(
      s,
      loan,
      bid,
      await tokenAccountOf(s.world, s.borrower, s.world.currencyMint),
    );
    const sent = await send(s, [await instantSell(s, loan, sale)]);
    expect(sent.computeUnits).toBeLessThanOrEqual(120_000n);
    expect(readLoan(s.world, loan)).toMatchObject({ status: "Sold", repaidAmount: 50n * USDC + owed });
    expect(await balance(s, s.borrower)).toBe(before + 90n * USDC - 50n * USDC - owed);
    expect(getTokenBalance(s.world.svm, s.world.vault)).toBe(vaultBefore + 50n * USDC + owed);
    expect(readBank(s.world).feesOwed).toBe(fee);
    expect(await balance(s, s.world.treasury)).toBe(0n);
    expect(await balance(s, s.bidder, nft)).toBe(1n);
    expect(readPool(s.world, s.pool.address).currentLoans).toBe(0n);
  });

  it("a bid below what is owed moves nothing", async () => {
    const { loan, nft } = await openNftLoan(s, 50n * USDC);
    const bid = await placeBid(s, 50n * USDC); // principal only: the interest is not covered
    const sale = await sellLoanToBid(
      s,
      loan,
      bid,
      await tokenAccountOf(s.world, s.borrower, s.world.currencyMint),
    );
    expect(await failureCode(send(s, [await instantSell(s, loan, sale)]))).toBe(E.SaleShort);
    expect(readLoan(s.world, loan).status).toBe("Ongoing");
    expect(await balance(s, s.bidder, nft)).toBe(0n);
    expect(getTokenBalance(s.world.svm, bid.vault)).toBe(50n * USDC);
  });

  it("refuses a sale by someone other than the borrower", async () => {
    const { loan } = await openNftLoan(s, 50n * USDC);
    const bid = await placeBid(s, 90n * USDC);
    const sale = await sellLoanToBid(
      s,
      loan,
      bid,
      await tokenAccountOf(s.world, s.bidder, s.world.currencyMint),
    );
    expect(await failureCode(send(s, [await instantSell(s, loan, sale, s.bidder)], s.bidder.signer))).toBe(
      E.Unauthorized,
    );
  });

  it("refuses a substituted market program (the same code at an id the admin did not pin)", async () => {
    const { loan } = await openNftLoan(s, 50n * USDC);
    const rogue = (await generateKeyPairSigner()).address;
    s.world.svm.addProgram(rogue, new Uint8Array(readFileSync(MARKET_SO)));
    const bid = await placeBid(s, 90n * USDC);
    const sale = await sellLoanToBid(
      s,
      loan,
      bid,
      await tokenAccountOf(s.world, s.borrower, s.world.currencyMint),
    );
    expect(await failureCode(send(s, [await instantSell(s, loan, { ...sale, programAddress: rogue })]))).toBe(
      E.InvalidVenue,
    );
  });

  it("refuses a substituted bid account (the bid's bytes under another owner)", async () => {
    const { loan } = await openNftLoan(s, 50n * USDC);
    const bid = await placeBid(s, 90n * USDC);
    const fake = (await generateKeyPairSigner()).address;
    const real = s.world.svm.getAccount(bid.bid);
    s.world.svm.setAccount({ ...real, address: fake, programAddress: s.world.admin.address } as never);
    const sale = await sellLoanToBid(
      s,
      loan,
      { bid: fake, vault: bid.vault },
      await tokenAccountOf(s.world, s.borrower, s.world.currencyMint),
    );
    expect(await failureCode(send(s, [await instantSell(s, loan, sale)]))).toBe(
      NFT_MARKET_ERRORS.InvalidOwner,
    );
    expect(readLoan(s.world, loan).status).toBe("Ongoing");
  });
});

describe("mortgage: buy a listed NFT with a down payment and a loan", () => {
  let s: NftSale;
  beforeEach(async () => {
    s = await createNftSale();
  });

  it("pays the seller, locks the NFT in the loan's escrow at the mortgage APR and counts the mortgage; repaid, the NFT is the buyer's", async () => {
    const listing = await listNft(s, 100n * USDC);
    const ix = await takeMortgageInstruction(s, listing, 60n * USDC);
    const vaultBefore = getTokenBalance(s.world.svm, s.world.vault);
    const sent = await send(s, [ix]);
    expect(sent.computeUnits).toBeLessThanOrEqual(120_000n);
    const loan = readLoan(s.world, ix.loan);
    expect(loan).toMatchObject({
      kind: "Mortgage",
      status: "Ongoing",
      aprBps: MORTGAGE_APR_BPS,
      principal: 60n * USDC,
    });
    expect(loan.collection).toBe(s.collection);
    expect(getTokenBalance(s.world.svm, ix.escrow)).toBe(1n);
    expect(await balance(s, s.seller)).toBe(100n * USDC);
    expect(await balance(s, s.borrower)).toBe(60n * USDC); // 100 - 40 down payment
    expect(getTokenBalance(s.world.svm, s.world.vault)).toBe(vaultBefore - 60n * USDC);
    const pool = readPool(s.world, s.pool.address);
    expect(pool).toMatchObject({
      totalMortgages: 1n,
      currentLoans: 1n,
      lastMortgageAt: getNow(s.world).unix,
    });
    expect(sent.logs.join("\n")).toContain("Program data: bW9ydGdhZ2U="); // "mortgage"

    // the interest owed at repay comes on top of the 60 the buyer still holds
    await mintTo(
      s.world.svm,
      s.world.admin,
      s.world.currencyMint,
      await tokenAccountOf(s.world, s.borrower, s.world.currencyMint),
      10n * USDC,
    );
    await send(s, [
      await getRepayInstruction({
        programAddress: s.world.programAddress,
        borrower: s.borrower.signer,
        pool: s.pool.address,
        bank: s.pool.bank.address,
        loan: ix.loan,
        borrowerCollateralTokenAccount: await tokenAccountOf(s.world, s.borrower, listing.nft),
        borrowerCurrencyTokenAccount: await tokenAccountOf(s.world, s.borrower, s.world.currencyMint),
      }),
    ]);
    expect(readLoan(s.world, ix.loan).status).toBe("Repaid");
    expect(await balance(s, s.borrower, listing.nft)).toBe(1n);
  });

  it("left unpaid past expiry + grace, it is liquidated: the pool owner gets the NFT, the buyer keeps neither", async () => {
    const listing = await listNft(s, 100n * USDC);
    const ix = await takeMortgageInstruction(s, listing, 60n * USDC);
    await send(s, [ix]);
    const liquidate = async () =>
      getLiquidateInstruction({
        programAddress: s.world.programAddress,
        liquidator: s.world.admin,
        pool: s.pool.address,
        bank: s.pool.bank.address,
        loan: ix.loan,
        poolOwnerCollateralTokenAccount: await tokenAccountOf(s.world, s.pool.bank.owner, listing.nft),
      });
    expect(await failureCode(send(s, [await liquidate()], s.world.admin))).toBe(E.NotLiquidatable);
    setUnixTime(s.world, readLoan(s.world, ix.loan).expiredAt + 8n * 3600n + 1n);
    await send(s, [await liquidate()], s.world.admin);
    expect(readLoan(s.world, ix.loan).status).toBe("Liquidated");
    expect(await balance(s, s.pool.bank.owner, listing.nft)).toBe(1n);
    expect(await balance(s, s.borrower, listing.nft)).toBe(0n);
    expect(await balance(s, s.borrower)).toBe(60n * USDC);
  });

  it("refuses a pool without the mortgage flag", async () => {
    const plain = await createPool(s.world, {
      poolType: "nft-pool",
      collectionIds: [s.collection],
      loanAprBps: 2000,
      ltvBps: LTV_BPS,
    });
    const listing = await listNft(s, 100n * USDC);
    const ix = await takeMortgageInstruction(s, listing, 60n * USDC, { pool: plain, aprBps: 0 });
    expect(await failureCode(send(s, [ix]))).toBe(E.MortgageDisabled);
    expect(await balance(s, s.seller)).toBe(0n);
  });

  it("refuses an NFT outside the pool's collections (even when the attestation names the pool's)", async () => {
    const listing = await listNft(s, 100n * USDC, (await generateKeyPairSigner()).address);
    const ix = await takeMortgageInstruction(s, listing, 60n * USDC);
    expect(await failureCode(send(s, [ix]))).toBe(E.CollectionNotInPool);
  });

  it("refuses a down payment below the LTV rule (the loan above 60% of the price)", async () => {
    const listing = await listNft(s, 100n * USDC);
    // the oracle values the NFT at 200, so only the price keeps the loan at 60%: 61 of 100 is refused
    const ix = await takeMortgageInstruction(s, listing, 61n * USDC, { value: 200n * USDC });
    expect(await failureCode(send(s, [ix]))).toBe(E.LtvExceeded);
    expect(await balance(s, s.borrower)).toBe(100n * USDC);
    expect(readPool(s.world, s.pool.address).totalMortgages).toBe(0n);
  });

  it("refuses the loan curve's APR, an unpinned market and a price above the buyer's means", async () => {
    const listing = await listNft(s, 100n * USDC);
    expect(
      await failureCode(send(s, [await takeMortgageInstruction(s, listing, 60n * USDC, { aprBps: 2000 })])),
    ).toBe(E.AprMismatch);
    const rogue = (await generateKeyPairSigner()).address;
    s.world.svm.addProgram(rogue, new Uint8Array(readFileSync(MARKET_SO)));
    expect(
      await failureCode(send(s, [await takeMortgageInstruction(s, listing, 60n * USDC, { market: rogue })])),
    ).toBe(E.InvalidVenue);
    const dear = await listNft(s, 200n * USDC); // 60 borrowed + 100 held < 200
    // SPL Token's InsufficientFunds (custom error 1) inside the market's Buy: the whole transaction fails
    expect(
      await failureCode(
        send(s, [await takeMortgageInstruction(s, dear, 60n * USDC, { value: 200n * USDC })]),
      ),
    ).toBe(1);
    expect(await balance(s, s.borrower)).toBe(100n * USDC);
  });
});

describe("auto-sell at liquidation: an overdue NFT loan sold to the best bid into the bank", () => {
  it("credits the bank with the bid; without a bid that pays the lenders, the classic liquidation still works", async () => {
    const s = await createNftSale();
    const first = await openNftLoan(s, 50n * USDC);
    const second = await openNftLoan(s, 50n * USDC);
    setUnixTime(s.world, readLoan(s.world, first.loan).expiredAt + 8n * 3600n + 1n);
    const bid = await placeBid(s, 80n * USDC);
    const bankBefore = readBank(s.world);
    const sell = async (loan: typeof first.loan, b: { bid: typeof bid.bid; vault: typeof bid.vault }) =>
      getLiquidateSellInstruction({
        programAddress: s.world.programAddress,
        liquidator: s.world.admin,
        pool: s.pool.address,
        bank: s.pool.bank.address,
        loan,
        poolOwnerCollateralTokenAccount: await tokenAccountOf(
          s.world,
          s.pool.bank.owner,
          readLoan(s.world, loan).collateralMint,
        ),
        swap: await sellLoanToBid(s, loan, b, s.world.vault),
      });
    await send(s, [await sell(first.loan, bid)], s.world.admin);
    expect(readLoan(s.world, first.loan)).toMatchObject({ status: "Liquidated", repaidAmount: 80n * USDC });
    const bankAfter = readBank(s.world);
    expect(bankAfter.availableLiquidity).toBe(bankBefore.availableLiquidity + 80n * USDC);
    expect(bankAfter.totalLiquidity).toBe(bankBefore.totalLiquidity + 30n * USDC);
    expect(await balance(s, s.bidder, first.nft)).toBe(1n);

    const low = await placeBid(s, 50n * USDC, 2n);
    expect(await failureCode(send(s, [await sell(second.loan, low)], s.world.admin))).toBe(E.SaleShort);
    await send(
      s,
      [
        await getLiquidateInstruction({
          programAddress: s.world.programAddress,
          liquidator: s.world.admin,
          pool: s.pool.address,
          bank: s.pool.bank.address,
          loan: second.loan,
          poolOwnerCollateralTokenAccount: await tokenAccountOf(s.world, s.pool.bank.owner, second.nft),
        }),
      ],
      s.world.admin,
    );
    expect(readLoan(s.world, second.loan).status).toBe("Liquidated");
    expect(await balance(s, s.pool.bank.owner, second.nft)).toBe(1n);
  });
});
