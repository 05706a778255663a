/**
 * Delegation of idle bank liquidity to the pinned lending venue (SetDelegation, Delegate, WithdrawDelegated, and
 * TakeLoan pulling back) in LiteSVM with the local lending venue program: accounting, yield, adversarial cases.
 */
import { PROGRAM_ERROR_CODE as P } from "@cistern/protocol";
import {
  accrueLendingIndex,
  decodeLendingPosition,
  decodeLendingReserve,
  findLendingPositionPda,
  getInitializeLendingReserveInstruction,
  getOpenLendingPositionInstruction,
  getSetDelegationInstruction,
  getSetVenuesInstruction,
  lendingAmountForShares,
  NO_VENUE,
  LENDING_VENUE_ERRORS as V,
} from "@cistern/sdk";
import {
  createFundedSigner,
  createMint,
  getAccountData,
  getNow,
  getTokenBalance,
  type LendingWorld,
  readBank,
  sendWithLiteSvm,
  setUnixTime,
} from "@cistern/sdk/testing";
import type { Address, KeyPairSigner } from "@solana/kit";
import { beforeEach, describe, expect, it } from "vitest";
import {
  createDelegationWorld,
  DAY,
  DELEGATION_DEPOSIT,
  type DelegationWorld,
  deployLendingVenue,
  type Venue,
} from "./support/delegation-world.ts";
import { failureCode } from "./support/sale-world.ts";

describe("delegation to the pinned lending venue (LiteSVM)", () => {
  let d: DelegationWorld;
  let w: LendingWorld;
  let venue: Venue;
  let owner: KeyPairSigner;
  let position: Address;
  const delegate: DelegationWorld["delegate"] = (...args) => d.delegate(...args);
  const withdrawDelegated: DelegationWorld["withdrawDelegated"] = (...args) => d.withdrawDelegated(...args);
  const shares = () => decodeLendingPosition(getAccountData(w.svm, position)!).shares;
  /** The invariant: the vault holds exactly the available liquidity, and the position is worth at least what was delegated. */
  const checkInvariant = () => {
    const bank = readBank(w);
    expect(getTokenBalance(w.svm, w.vault)).toBe(bank.availableLiquidity);
    const reserve = decodeLendingReserve(getAccountData(w.svm, venue.reserve)!);
    const data = getAccountData(w.svm, position);
    const value =
      data === null
        ? 0n
        : lendingAmountForShares(
            decodeLendingPosition(data).shares,
            accrueLendingIndex(reserve, getNow(w).unix),
          );
    expect(value).toBeGreaterThanOrEqual(bank.delegatedLiquidity);
  };

  beforeEach(async () => {
    d = await createDelegationWorld();
    ({ w, venue, owner, position } = d);
  });

  it("delegates idle liquidity and brings it back with the venue's yield, which goes to the bank", async () => {
    const sent = await delegate(owner, 600_000_000n);
    console.log(`Delegate (opening the position): ${sent.computeUnits} CU`);
    let bank = readBank(w);
    expect(bank.availableLiquidity).toBe(400_000_000n);
    expect(bank.delegatedLiquidity).toBe(600_000_000n);
    expect(bank.totalLiquidity).toBe(DELEGATION_DEPOSIT);
    expect(shares()).toBe(600_000_000n); // index 1 at first
    checkInvariant();
    const again = await delegate(owner, 100_000_000n);
    console.log(`Delegate: ${again.computeUnits} CU`);
    checkInvariant();

    setUnixTime(w, getNow(w).unix + 30n * DAY);
    const reserve = decodeLendingReserve(getAccountData(w.svm, venue.reserve)!);
    const expected = lendingAmountForShares(shares(), accrueLendingIndex(reserve, getNow(w).unix));
    const back = await withdrawDelegated(owner, 0n);
    console.log(`WithdrawDelegated: ${back.computeUnits} CU`);
    bank = readBank(w);
    expect(bank.delegatedLiquidity).toBe(0n);
    expect(bank.availableLiquidity).toBe(300_000_000n + expected);
    // 700 units at 8% a year for 30 days: 4.60 units of yield, all the bank's
    expect(expected - 700_000_000n).toBe(4_602_739n);
    expect(bank.totalLiquidity).toBe(DELEGATION_DEPOSIT + expected - 700_000_000n);
    expect(shares()).toBe(0n);
    checkInvariant();
  });

  it("withdraws part of the position with its share of the principal", async () => {
    await delegate(owner, 800_000_000n);
    setUnixTime(w, getNow(w).unix + 10n * DAY);
    await withdrawDelegated(owner, 200_000_000n);
    const bank = readBank(w);
    expect(bank.delegatedLiquidity).toBe(600_000_000n);
    expect(shares()).toBe(600_000_000n);
    expect(bank.totalLiquidity).toBeGreaterThan(DELEGATION_DEPOSIT);
    checkInvariant();
  });

  it("lets the bank's keeper delegate, and nothing else; refuses strangers", async () => {
    const keeper = await createFundedSigner(w.svm, 1n);
    const stranger = await createFundedSigner(w.svm, 1n);
    expect(await failureCode(delegate(keeper, 1_000_000n))).toBe(P.Unauthorized);
    // only the owner sets the standing choice
    const bySomeoneElse = getSetDelegationInstruction({
      programAddress: w.programAddress,
      owner: stranger,
      bank: w.bank,
      keeper: keeper.address,
    });
    expect(await failureCode(sendWithLiteSvm(w.svm, [bySomeoneElse], stranger))).toBe(P.Unauthorized);
    await sendWithLiteSvm(
      w.svm,
      [
        getSetDelegationInstruction({
          programAddress: w.programAddress,
          owner,
          bank: w.bank,
          keeper: keeper.address,
        }),
      ],
      owner,
    );
    expect(readBank(w).delegationKeeper).toBe(keeper.address);
    await delegate(keeper, 100_000_000n);
    expect(readBank(w).delegatedLiquidity).toBe(100_000_000n);
    expect(await failureCode(withdrawDelegated(keeper, 0n))).toBe(P.Unauthorized);
    expect(await failureCode(delegate(stranger, 1_000_000n))).toBe(P.Unauthorized);
    checkInvariant();
  });

  it("refuses a substituted venue, a reserve of another mint, a foreign position and more than the bank holds; nothing moves", async () => {
    await delegate(owner, 500_000_000n);
    const before = { bank: readBank(w), vault: getTokenBalance(w.svm, w.vault), shares: shares() };
    // another copy of the venue program, not the pinned one
    const rogue = await deployLendingVenue(w, w.currencyMint);
    const [roguePosition] = await findLendingPositionPda(rogue.program, rogue.reserve, w.bank);
    expect(await failureCode(delegate(owner, 1_000_000n, { ...rogue, position: roguePosition }))).toBe(
      P.InvalidVenue,
    );
    // the pinned venue's reserve of another mint
    const otherMint = await createMint(w.svm, w.admin, 6);
    const init = await getInitializeLendingReserveInstruction({
      programAddress: venue.program,
      admin: w.admin,
      mint: otherMint,
      rateBps: 500,
    });
    await sendWithLiteSvm(w.svm, [init], w.admin);
    expect(
      await failureCode(delegate(owner, 1_000_000n, { reserve: init.reserve, venueVault: init.vault })),
    ).toBe(P.InvalidMint);
    // the pinned reserve with another reserve's vault
    expect(await failureCode(delegate(owner, 1_000_000n, { venueVault: init.vault }))).toBe(
      P.AccountMismatch,
    );
    // someone else's position in the pinned reserve: the venue refuses it
    const stranger = await createFundedSigner(w.svm, 1n);
    const open = await getOpenLendingPositionInstruction({
      programAddress: venue.program,
      payer: stranger,
      owner: stranger,
      reserve: venue.reserve,
    });
    await sendWithLiteSvm(w.svm, [open], stranger);
    expect(await failureCode(delegate(owner, 1_000_000n, { position: open.position }))).toBe(
      V.PositionMismatch,
    );
    expect(await failureCode(withdrawDelegated(owner, 1n, { position: open.position }))).toBe(
      V.PositionMismatch,
    );
    // more than available, more shares than the bank holds
    expect(await failureCode(delegate(owner, 500_000_001n))).toBe(P.InsufficientLiquidity);
    expect(await failureCode(withdrawDelegated(owner, 500_000_001n))).toBe(V.InsufficientShares);
    expect(readBank(w)).toEqual(before.bank);
    expect(getTokenBalance(w.svm, w.vault)).toBe(before.vault);
    expect(shares()).toBe(before.shares);
    checkInvariant();
  });

  it("refuses delegation while no lending venue is pinned", async () => {
    await sendWithLiteSvm(
      w.svm,
      [
        await getSetVenuesInstruction({
          programAddress: w.programAddress,
          admin: w.admin,
          swapProgram: NO_VENUE,
        }),
      ],
      w.admin,
    );
    expect(await failureCode(delegate(owner, 1_000_000n))).toBe(P.InvalidVenue);
  });

  it("a loan larger than the idle liquidity pulls what it lacks back from the venue in the same transaction", async () => {
    const { loan } = await d.loanSetup();
    await delegate(owner, 900_000_000n);
    setUnixTime(w, getNow(w).unix + 5n * DAY);
    // without the venue accounts the bank has only 100 units idle
    expect(await failureCode(loan(300_000_000n, false))).toBe(P.InsufficientLiquidity);
    const before = readBank(w);
    const reserve = decodeLendingReserve(getAccountData(w.svm, venue.reserve)!);
    const index = accrueLendingIndex(reserve, getNow(w).unix);
    const needShares = (200_000_000n * 1_000_000_000_000n + index - 1n) / index;
    let cu = 0n;
    await loan(300_000_000n, true, (c) => {
      cu = c;
    });
    console.log(`TakeLoan pulling from the lending venue: ${cu} CU`);
    expect(cu).toBeLessThanOrEqual(60_000n);
    const after = readBank(w);
    const pulled = lendingAmountForShares(needShares, index);
    expect(pulled).toBeGreaterThanOrEqual(200_000_000n);
    expect(shares()).toBe(900_000_000n - needShares);
    expect(after.availableLiquidity).toBe(before.availableLiquidity + pulled - 300_000_000n);
    const principalBack = (900_000_000n * needShares) / 900_000_000n;
    expect(after.delegatedLiquidity).toBe(900_000_000n - principalBack);
    expect(after.totalLiquidity).toBe(before.totalLiquidity + pulled - principalBack);
    checkInvariant();
    // more than idle + everything delegated: refused, nothing moves
    const snapshot = { bank: readBank(w), shares: shares(), vault: getTokenBalance(w.svm, w.vault) };
    expect(await failureCode(loan(5_000_000_000n, true))).not.toBe("success");
    expect(readBank(w)).toEqual(snapshot.bank);
    expect(shares()).toBe(snapshot.shares);
    expect(getTokenBalance(w.svm, w.vault)).toBe(snapshot.vault);
  });
});
