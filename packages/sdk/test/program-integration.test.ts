import { fileURLToPath } from "node:url";
import { computeRepayment, computeTotalInterest } from "@cistern/protocol";
import { generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { decodeLendingError } from "../src/index.ts";
import {
  collectFees,
  createFundedSigner,
  createLendingWorld,
  createPool,
  createWallet,
  getNow,
  getTokenBalance,
  liquidate,
  mintNft,
  mintTo,
  readBank,
  readLoan,
  readPool,
  repay,
  setUnixTime,
  takeLoan,
} from "../src/testing/index.ts";

const LENDING_SO = fileURLToPath(new URL("../../../programs/lending/build/lending.so", import.meta.url));

describe("sdk builders against the lending program (LiteSVM)", () => {
  it("opens an NFT loan, repays it with the protocol's numbers, and reports program errors by name", async () => {
    const world = await createLendingWorld({ soPath: LENDING_SO, depositBaseUnits: 1_000_000_000n });
    const collection = (await generateKeyPairSigner()).address;
    const pool = await createPool(world, {
      poolType: "nft-pool",
      collectionIds: [collection],
      loanAprBps: 20_000,
    });
    const borrower = await createWallet(world.svm, world.admin, [world.currencyMint]);
    const nft = await mintNft(world, borrower, collection);
    const start = getNow(world).unix;
    const loanAddress = await takeLoan(world, {
      pool,
      borrower,
      collateralMint: nft,
      collection,
      collateralAmountBaseUnits: 1n,
      collateralValueBaseUnits: 500_000_000n,
      principalBaseUnits: 250_000_000n,
      durationSeconds: 7n * 86_400n,
    });
    const loan = readLoan(world, loanAddress);
    expect(loan).toMatchObject({
      status: "Ongoing",
      kind: "ClassicLoan",
      isDefi: false,
      borrower: borrower.signer.address,
      pool: pool.address,
      collateralMint: nft,
      collection,
      principal: 250_000_000n,
      aprBps: 20_000,
      durationSeconds: 604_800n,
      createdAt: start,
      expiredAt: start + 604_800n,
    });
    expect(loan.interest).toBe(
      computeTotalInterest({ aprBps: 20_000, principal: 250_000_000n, durationSeconds: 604_800n }),
    );
    expect(getTokenBalance(world.svm, loan.escrow)).toBe(1n);
    expect(readPool(world, pool.address).currentLoans).toBe(1n);
    expect(readBank(world).availableLiquidity).toBe(750_000_000n);

    // liquidating before expiry + grace fails with the program's NotLiquidatable
    const liquidator = await createFundedSigner(world.svm, 1n);
    const failure = await liquidate(world, liquidator, loanAddress).then(
      () => null,
      (error: unknown) => error,
    );
    expect(decodeLendingError(failure, { programAddress: world.programAddress })?.name).toBe(
      "NotLiquidatable",
    );

    // repay 3 days later: borrower pays principal + owed interest, fee to the treasury
    const now = start + 3n * 86_400n + 1234n;
    setUnixTime(world, now);
    const expected = computeRepayment({
      aprBps: 20_000,
      principal: 250_000_000n,
      durationSeconds: 604_800n,
      createdAt: start,
      now,
    });
    const borrowerCurrency = borrower.tokenAccounts.get(world.currencyMint)!;
    // without the interest in the wallet the token program refuses the transfer (its error, not the program's)
    const short = await repay(world, borrower, loanAddress).then(
      () => null,
      (error: unknown) => error as { logs?: string[] },
    );
    expect(short?.logs?.some((line) => line.includes("insufficient funds"))).toBe(true);
    expect(decodeLendingError(short, { programAddress: world.programAddress })).toBeNull();
    expect(readLoan(world, loanAddress).status).toBe("Ongoing");
    await mintTo(world.svm, world.admin, world.currencyMint, borrowerCurrency, expected.owedInterest);
    await repay(world, borrower, loanAddress);
    expect(getTokenBalance(world.svm, borrowerCurrency)).toBe(0n);
    // the fee waits in the vault as the bank's feesOwed until CollectFees moves it to the treasury
    expect(readBank(world).feesOwed).toBe(expected.protocolFee);
    expect(getTokenBalance(world.svm, world.vault)).toBe(
      1_000_000_000n + expected.lenderInterest + expected.protocolFee,
    );
    await collectFees(world);
    expect(getTokenBalance(world.svm, world.treasury.tokenAccounts.get(world.currencyMint)!)).toBe(
      expected.protocolFee,
    );
    expect(getTokenBalance(world.svm, world.vault)).toBe(1_000_000_000n + expected.lenderInterest);
    expect(getTokenBalance(world.svm, borrower.tokenAccounts.get(nft)!)).toBe(1n);
    const repaid = readLoan(world, loanAddress);
    expect(repaid).toMatchObject({
      status: "Repaid",
      repaidAt: now,
      repaidAmount: expected.repayment,
      protocolFeePaid: expected.protocolFee,
    });
    expect(readBank(world)).toMatchObject({
      availableLiquidity: 1_000_000_000n + expected.lenderInterest,
      totalLiquidity: 1_000_000_000n + expected.lenderInterest,
      ongoingLoans: 0n,
      feesOwed: 0n,
    });
    // a second repay is refused
    const second = await repay(world, borrower, loanAddress).then(
      () => null,
      (error: unknown) => error,
    );
    expect(decodeLendingError(second, { programAddress: world.programAddress })?.name).toBe("LoanNotOngoing");
  }, 30_000);
});
