/**
 * Delegation of idle bank liquidity through the real marginfi v2 program (the vendored mainnet build at its
 * mainnet id, in LiteSVM): Delegate / WithdrawDelegated / TakeLoan's pull as CPIs from the bank's PDA into a
 * marginfi account only it controls; marginfi's curve sets the yield, checked to the base unit; adversarial cases.
 */
import { PROGRAM_ERROR_CODE as P } from "@cistern/protocol";
import { getSetDelegationInstruction } from "@cistern/sdk";
import {
  createFundedSigner,
  getAccountData,
  getNow,
  getTokenBalance,
  readBank,
  sendWithLiteSvm,
  setUnixTime,
} from "@cistern/sdk/testing";
import { generateKeyPairSigner } from "@solana/kit";
import { beforeEach, describe, expect, it } from "vitest";
import { createMarginfiWorld, DAY, i80f48At, type MarginfiWorld, MFI } from "./support/marginfi-world.ts";
import { failureCode } from "./support/sale-world.ts";

describe("delegation through marginfi v2 (LiteSVM, the real program)", () => {
  let m: MarginfiWorld;
  /** The books equal vault + marginfi position: available == vault, delegated == marginfi's value, total == both. */
  const checkBooks = (borrowed = 0n) => {
    const bank = readBank(m.w);
    expect(getTokenBalance(m.w.svm, m.w.vault)).toBe(bank.availableLiquidity);
    expect(bank.delegatedLiquidity).toBe(m.positionValue());
    expect(bank.totalLiquidity).toBe(bank.availableLiquidity + bank.delegatedLiquidity + borrowed);
  };
  const snapshot = () => ({
    bank: readBank(m.w),
    vault: getTokenBalance(m.w.svm, m.w.vault),
    position: getAccountData(m.w.svm, m.position),
  });

  beforeEach(async () => {
    m = await createMarginfiWorld();
  });

  it("delegates into a marginfi account only the bank's PDA controls; marginfi's curve pays the bank to the base unit", async () => {
    const sent = await m.delegate(m.owner, 600_000_000n);
    console.log(`marginfi Delegate (opening the marginfi account): ${sent.computeUnits} CU`);
    expect(sent.computeUnits).toBeLessThanOrEqual(300_000n);
    const account = getAccountData(m.w.svm, m.position)!;
    expect(Buffer.from(account.subarray(40, 72))).toEqual(
      Buffer.from(new Uint8Array((await import("@solana/kit")).getAddressEncoder().encode(m.w.bank))),
    ); // authority = the bank's PDA
    let bank = readBank(m.w);
    expect(bank.availableLiquidity).toBe(400_000_000n);
    expect(bank.delegatedLiquidity).toBeGreaterThanOrEqual(599_999_999n);
    checkBooks();
    const again = await m.delegate(m.owner, 100_000_000n);
    console.log(`marginfi Delegate: ${again.computeUnits} CU`);
    checkBooks();

    // 30 days later marginfi's borrower has paid interest; the keeper's sync accrues it and marks the position
    const before = readBank(m.w);
    setUnixTime(m.w, getNow(m.w).unix + 30n * DAY);
    await m.delegate(m.owner, 0n);
    bank = readBank(m.w);
    const value = m.positionValue();
    expect(bank.delegatedLiquidity).toBe(value);
    expect(value).toBeGreaterThan(before.delegatedLiquidity);
    expect(bank.totalLiquidity - before.totalLiquidity).toBe(value - before.delegatedLiquidity);
    // the expected growth from marginfi's own bank state: shares x the new asset share value, floored
    const mb = getAccountData(m.w.svm, m.currency.bank)!;
    const account2 = getAccountData(m.w.svm, m.position)!;
    const shares = i80f48At(account2, 72 + 40);
    expect(bank.delegatedLiquidity).toBe((shares * i80f48At(mb, 80)) >> 96n);
    checkBooks();

    // withdrawing everything gives the lender exactly that amount
    const vaultBefore = getTokenBalance(m.w.svm, m.w.vault);
    const out = await m.withdrawDelegated(m.owner, 0n);
    console.log(`marginfi WithdrawDelegated (all): ${out.computeUnits} CU`);
    expect(out.computeUnits).toBeLessThanOrEqual(300_000n);
    expect(getTokenBalance(m.w.svm, m.w.vault) - vaultBefore).toBe(value);
    bank = readBank(m.w);
    expect(bank.delegatedLiquidity).toBe(0n);
    expect(bank.totalLiquidity).toBe(before.totalLiquidity + value - before.delegatedLiquidity);
    checkBooks();
  });

  it("withdraws part of the position (the risk engine gets the bank and its oracle) and keeps the books true", async () => {
    await m.delegate(m.owner, 600_000_000n);
    setUnixTime(m.w, getNow(m.w).unix + 7n * DAY);
    const sent = await m.withdrawDelegated(m.owner, 250_000_000n);
    console.log(`marginfi WithdrawDelegated (part): ${sent.computeUnits} CU`);
    expect(sent.computeUnits).toBeLessThanOrEqual(300_000n);
    expect(readBank(m.w).availableLiquidity).toBe(650_000_000n);
    checkBooks();
  });

  it("a loan that needs delegated funds pulls them back from marginfi in the same transaction", async () => {
    await m.delegate(m.owner, 900_000_000n);
    const { loan } = await m.loanSetup();
    const { cu } = await loan(400_000_000n, true);
    console.log(`marginfi TakeLoan with pull: ${cu} CU`);
    expect(cu).toBeLessThanOrEqual(300_000n);
    const bank = readBank(m.w);
    expect(bank.availableLiquidity).toBe(0n);
    checkBooks(400_000_000n);
    // without the pull accounts the same loan is refused, nothing moves
    const before = snapshot();
    expect(await failureCode(loan(100_000_000n, false))).toBe(P.InsufficientLiquidity);
    expect(snapshot()).toEqual(before);
  });

  it("invariant fuzz: after any sequence of delegations, withdrawals, loans that pull and clock jumps, the books equal vault + marginfi position + loans", async () => {
    let seed = 34;
    const rand = (n: bigint) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return n <= 0n ? 0n : BigInt(seed) % n;
    };
    const { loan } = await m.loanSetup();
    let borrowed = 0n;
    for (let step = 0; step < 24; step++) {
      const bank = readBank(m.w);
      const op = Number(rand(4n));
      const before = snapshot();
      try {
        if (op === 0 && bank.availableLiquidity > 0n)
          await m.delegate(m.owner, 1n + rand(bank.availableLiquidity));
        else if (op === 1 && bank.delegatedLiquidity > 0n)
          await m.withdrawDelegated(m.owner, rand(bank.delegatedLiquidity + 1n));
        else if (op === 2) {
          const principal = 1_000_000n + rand(300_000_000n);
          await loan(principal, true);
          borrowed += principal;
        } else setUnixTime(m.w, getNow(m.w).unix + rand(20n * DAY));
      } catch {
        expect(snapshot()).toEqual(before); // a refused step moves nothing
      }
      checkBooks(borrowed);
    }
  });

  describe("adversarial", () => {
    it("refuses another marginfi group, a marginfi at another id, and a marginfi account the bank's PDA does not control", async () => {
      const other = await generateKeyPairSigner();
      const before = snapshot();
      // another group: a real marginfi group the admin makes, not the pinned one
      const { marginfiGroupInitialize } = await import("@cistern/localnet");
      const { signedBy } = await import("./support/marginfi-world.ts");
      await sendWithLiteSvm(
        m.w.svm,
        [
          signedBy(marginfiGroupInitialize({ group: other.address, admin: m.w.admin.address }), [
            other,
            m.w.admin,
          ]),
        ],
        m.w.admin,
      );
      expect(await failureCode(m.delegate(m.owner, 1_000_000n, { group: other.address }))).toBe(
        P.InvalidVenue,
      );
      // marginfi's binary loaded at another id
      const fake = (await generateKeyPairSigner()).address;
      const { readVendoredProgram, VENDORED_PROGRAMS } = await import("@cistern/localnet");
      m.w.svm.addProgram(fake, readVendoredProgram(VENDORED_PROGRAMS.find((p) => p.programId === MFI)!));
      expect(await failureCode(m.delegate(m.owner, 1_000_000n, { program: fake }))).toBe(P.InvalidVenue);
      // a marginfi account in the pinned group owned by someone else
      expect(
        await failureCode(m.delegate(m.owner, 1_000_000n, { position: m.borrower.account.address })),
      ).toBe(P.AccountMismatch);
      // the collateral bank (another mint)
      expect(await failureCode(m.delegate(m.owner, 1_000_000n, { mbank: m.collateral.bank }))).toBe(
        P.InvalidMint,
      );
      expect(snapshot()).toEqual(before);
    });

    it("only the bank owner withdraws delegated funds (not the keeper, not a stranger)", async () => {
      const keeper = await createFundedSigner(m.w.svm);
      await sendWithLiteSvm(
        m.w.svm,
        [
          getSetDelegationInstruction({
            programAddress: m.w.programAddress,
            owner: m.owner,
            bank: m.w.bank,
            keeper: keeper.address,
          }),
        ],
        m.owner,
      );
      await m.delegate(keeper, 300_000_000n); // the keeper may delegate
      const before = snapshot();
      expect(await failureCode(m.withdrawDelegated(keeper, 0n))).toBe(P.Unauthorized);
      const stranger = await createFundedSigner(m.w.svm);
      expect(await failureCode(m.withdrawDelegated(stranger, 0n))).toBe(P.Unauthorized);
      expect(await failureCode(m.delegate(stranger, 1_000_000n))).toBe(P.Unauthorized);
      expect(snapshot()).toEqual(before);
    });

    it("a paused marginfi bank or one at its deposit limit: delegation and a loan needing those funds are refused, nothing moves", async () => {
      await m.delegate(m.owner, 800_000_000n);
      const { loan } = await m.loanSetup();
      await m.configureBank({ operationalState: 0 });
      let before = snapshot();
      expect(await failureCode(m.delegate(m.owner, 1_000_000n))).toBe(P.VenuePaused);
      expect(await failureCode(loan(400_000_000n, true))).toBe(P.VenuePaused);
      expect(snapshot()).toEqual(before);
      await m.configureBank({ operationalState: 1, depositLimit: 2_850_000_000n });
      before = snapshot();
      expect(await failureCode(m.delegate(m.owner, 100_000_000n))).toBe(P.VenueDepositLimit);
      expect(snapshot()).toEqual(before);
    });

    it("marginfi at 100% utilization cannot pay: the borrower gets a clear error and the books stay true", async () => {
      await m.delegate(m.owner, 900_000_000n);
      // marginfi's borrower takes what is left in marginfi's vault
      const left = getTokenBalance(m.w.svm, m.currency.liquidityVault);
      await m.marginfiBorrow(left - 10_000_000n);
      const { loan } = await m.loanSetup();
      const before = snapshot();
      expect(await failureCode(loan(300_000_000n, true))).toBe(P.InsufficientLiquidity);
      expect(await failureCode(m.withdrawDelegated(m.owner, 0n))).toBe(P.InsufficientLiquidity);
      expect(snapshot()).toEqual(before);
      checkBooks();
    });

    it("rounding favours the pool: delegated never exceeds what marginfi would pay out", async () => {
      for (const amount of [1n, 3n, 7_777_777n, 123_456_789n]) {
        await m.delegate(m.owner, amount);
        setUnixTime(m.w, getNow(m.w).unix + 3_333n);
        checkBooks();
      }
      const bank = readBank(m.w);
      const vaultBefore = getTokenBalance(m.w.svm, m.w.vault);
      await m.withdrawDelegated(m.owner, 0n);
      expect(getTokenBalance(m.w.svm, m.w.vault) - vaultBefore).toBeGreaterThanOrEqual(
        bank.delegatedLiquidity,
      );
      checkBooks();
    });
  });
});
