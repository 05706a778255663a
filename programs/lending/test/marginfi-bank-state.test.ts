/**
 * Issue #43, findings 1 and 2, against the real marginfi v2 program (the vendored mainnet build, LiteSVM):
 * - every state of marginfi's bank against every delegation path (Delegate, WithdrawDelegated part and all, a
 *   TakeLoan's pull): what marginfi takes goes through, what it refuses is refused before any call into it with
 *   marginfi's reason (VenuePaused, VenueReduceOnly, VenueBankrupt, VenueStateUnknown), nothing moved; the
 *   state is set by writing its byte, as marginfi's admin does through configure (KilledByBankruptcy: marginfi's
 *   bankruptcy handling). The shared rule (packages/protocol marginfiBankRefusal) says the same for each.
 * - one bank, one marginfi account: a Delegate naming a non-canonical bump (a second marginfi account of the
 *   bank's PDA) is refused with the books and both addresses unchanged; the honest Delegate goes through.
 */
import { createHash } from "node:crypto";
import {
  MARGINFI_BANK_STATE_OFFSET,
  MARGINFI_BANK_STATES,
  type MarginfiBankState,
  marginfiBankRefusal,
  marginfiBankStateOf,
  PROGRAM_ERROR_CODE as P,
} from "@cistern/protocol";
import { getAccountData, getTokenBalance, LiteSvmTransactionError, readBank } from "@cistern/sdk/testing";
import { type Address, getAddressDecoder, getAddressEncoder, isOffCurveAddress } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { createMarginfiWorld, type MarginfiWorld, MFI } from "./support/marginfi-world.ts";
import { failureCode } from "./support/sale-world.ts";

const USDC = 1_000_000n;

/** The books equal vault + the bank's one marginfi account (+ loans' principal). */
function checkBooks(m: MarginfiWorld, borrowed = 0n) {
  const bank = readBank(m.w);
  expect(getTokenBalance(m.w.svm, m.w.vault)).toBe(bank.availableLiquidity);
  expect(bank.delegatedLiquidity).toBe(m.positionValue());
  expect(bank.totalLiquidity).toBe(bank.availableLiquidity + bank.delegatedLiquidity + borrowed);
}

function snapshot(m: MarginfiWorld, extra: Address[] = []) {
  return {
    bank: readBank(m.w),
    vault: getTokenBalance(m.w.svm, m.w.vault),
    position: getAccountData(m.w.svm, m.position),
    mbank: getAccountData(m.w.svm, m.currency.bank),
    liquidityVault: getTokenBalance(m.w.svm, m.currency.liquidityVault),
    extra: extra.map((a) => getAccountData(m.w.svm, a)),
  };
}

/** The program that failed first in a refused transaction ("success" when it went through). */
async function firstFailing(run: Promise<unknown>): Promise<string> {
  try {
    await run;
    return "success";
  } catch (error) {
    if (!(error instanceof LiteSvmTransactionError)) throw error;
    const line = error.logs.find((l) => /^Program \w+ failed/.test(l));
    return /^Program (\w+)/.exec(line ?? "")?.[1] ?? "unknown";
  }
}

/** Every bump below the canonical one whose address is off the curve (a PDA the runtime would sign for). */
function nonCanonicalBumps(program: Address, bank: Address, canonical: number): [Address, number][] {
  const out: [Address, number][] = [];
  const enc = getAddressEncoder();
  for (let bump = canonical - 1; bump >= 0 && out.length < 2; bump--) {
    const hash = createHash("sha256")
      .update("marginfi_account")
      .update(Uint8Array.from(enc.encode(bank)))
      .update(Uint8Array.of(bump))
      .update(Uint8Array.from(enc.encode(program)))
      .update("ProgramDerivedAddress")
      .digest();
    const address = getAddressDecoder().decode(hash);
    if (isOffCurveAddress(address)) out.push([address, bump]);
  }
  return out;
}

/** What the lending program answers for `move` in `state`: success, or the refusal's code. */
function expected(state: MarginfiBankState, move: "deposit" | "withdraw"): number | "success" | "marginfi" {
  const refusal = marginfiBankRefusal(state, move);
  if (refusal !== null) return P[refusal];
  return state === "unknown" ? "marginfi" : "success"; // a withdrawal in an unknown state: marginfi decides
}

describe("marginfi's bank states against every delegation path (LiteSVM, the real marginfi)", () => {
  it("the state byte is where marginfi's configure writes it", async () => {
    const m = await createMarginfiWorld();
    for (const state of [2, 0, 1]) {
      await m.configureBank({ operationalState: state });
      expect(getAccountData(m.w.svm, m.currency.bank)![MARGINFI_BANK_STATE_OFFSET]).toBe(state);
      expect(marginfiBankStateOf(state)).toBe(MARGINFI_BANK_STATES[state]);
    }
    expect(marginfiBankStateOf(3)).toBe("killedByBankruptcy");
    expect(marginfiBankStateOf(9)).toBe("unknown");
  }, 60_000);

  // 0 Paused, 1 Operational, 2 ReduceOnly, 3 KilledByBankruptcy, 7 a state this marginfi build does not have
  for (const byte of [0, 1, 2, 3, 7]) {
    const state = marginfiBankStateOf(byte);
    it(`${state} (${byte}): Delegate, a loan's pull, WithdrawDelegated part and all follow marginfi's rule`, async () => {
      const m = await createMarginfiWorld();
      const { loan } = await m.loanSetup();
      await m.delegate(m.owner, 900n * USDC); // the vault keeps 100 USDC: a 300 USDC loan pulls 200 back
      m.setBankState(byte);
      let borrowed = 0n;
      const step = async (
        name: string,
        move: "deposit" | "withdraw",
        run: () => Promise<unknown>,
        onSuccess: () => void = () => {},
      ) => {
        const want = expected(state, move);
        const before = snapshot(m);
        if (want === "marginfi") {
          // the lending program does not refuse it itself; marginfi (this build) has the last word
          const failed = await firstFailing(run());
          console.log(
            `${state}: ${name}: ${failed === "success" ? "marginfi took it" : "marginfi refused it"}`,
          );
          expect(["success", MFI], name).toContain(failed);
          if (failed === "success") onSuccess();
          else expect(snapshot(m), name).toEqual(before);
        } else if (want === "success") {
          expect(await failureCode(run()), name).toBe("success");
          onSuccess();
        } else {
          expect(await failureCode(run()), name).toBe(want);
          expect(snapshot(m), `${name} moved nothing`).toEqual(before);
        }
        checkBooks(m, borrowed);
      };
      await step("Delegate", "deposit", () => m.delegate(m.owner, 10n * USDC));
      await step(
        "TakeLoan pulling from marginfi",
        "withdraw",
        () => loan(300n * USDC, true),
        () => {
          borrowed += 300n * USDC;
        },
      );
      await step("WithdrawDelegated (part)", "withdraw", () => m.withdrawDelegated(m.owner, 50n * USDC));
      await step("WithdrawDelegated (all)", "withdraw", () => m.withdrawDelegated(m.owner, 0n));
      if (state === "operational" || state === "reduceOnly") {
        expect(readBank(m.w).delegatedLiquidity).toBe(0n);
        expect(getAccountData(m.w.svm, m.position)).not.toBeNull();
      }
    }, 60_000);
  }

  it("the issue's case: 100 USDC delegated, marginfi's admin sets its bank ReduceOnly; a loan's pull and WithdrawDelegated(all) go through", async () => {
    const m = await createMarginfiWorld();
    const { loan } = await m.loanSetup();
    await m.delegate(m.owner, 100n * USDC);
    await m.configureBank({ operationalState: 2 }); // marginfi's own configure, signed by its admin
    const before = readBank(m.w);
    // a loan the vault's 900 USDC covers, then one of 480 USDC: the vault's 450 and 30 pulled back from marginfi
    await loan(450n * USDC, false);
    await loan(480n * USDC, true);
    expect(readBank(m.w).availableLiquidity).toBe(0n);
    checkBooks(m, 930n * USDC);
    const vaultBefore = getTokenBalance(m.w.svm, m.w.vault);
    const value = m.positionValue();
    expect(value).toBeGreaterThan(69n * USDC);
    await m.withdrawDelegated(m.owner, 0n);
    expect(getTokenBalance(m.w.svm, m.w.vault) - vaultBefore).toBe(value);
    const after = readBank(m.w);
    expect(after.delegatedLiquidity).toBe(0n);
    expect(after.totalLiquidity).toBeGreaterThanOrEqual(before.totalLiquidity);
    checkBooks(m, 930n * USDC);
    // and no new deposit while reduce-only, with marginfi's reason
    const held = snapshot(m);
    expect(await failureCode(m.delegate(m.owner, 1n * USDC))).toBe(P.VenueReduceOnly);
    expect(snapshot(m)).toEqual(held);
  }, 60_000);
});

describe("one bank, one marginfi account (canonical address only)", () => {
  it("refuses a Delegate naming a second marginfi account at a non-canonical bump, the books and both addresses unchanged; the honest one goes through", async () => {
    const m = await createMarginfiWorld();
    const [[other, otherBump]] = nonCanonicalBumps(m.w.programAddress, m.w.bank, m.positionBump) as [
      [Address, number],
    ];
    // the honest Delegate: 600 USDC into the canonical account
    await m.delegate(m.owner, 600n * USDC);
    checkBooks(m);
    // the attack: a second marginfi account of the bank's PDA at a non-canonical bump, the mark moved to it
    const before = snapshot(m, [other]);
    expect(await failureCode(m.delegate(m.owner, 50n * USDC, { position: other, bump: otherBump }))).toBe(
      P.InvalidPda,
    );
    expect(snapshot(m, [other])).toEqual(before);
    expect(getAccountData(m.w.svm, other)).toBeNull();
    // nor can a withdrawal or a loan's pull name another account of the bank's PDA
    const { loan } = await m.loanSetup();
    expect(await failureCode(m.withdrawDelegated(m.owner, 0n, { position: other }))).toBe(P.InvalidPda);
    expect(await failureCode(loan(480n * USDC, true, { position: other }))).toBe(P.InvalidPda);
    expect(snapshot(m, [other])).toEqual(before);
    checkBooks(m);
    // the honest ones still go through (the loan pulls 130 USDC back)
    await m.delegate(m.owner, 50n * USDC);
    await loan(480n * USDC, true);
    checkBooks(m, 480n * USDC);
  }, 60_000);

  it("refuses opening the bank's marginfi account with a bump other than the canonical one, at either address", async () => {
    const m = await createMarginfiWorld();
    const [[other, otherBump]] = nonCanonicalBumps(m.w.programAddress, m.w.bank, m.positionBump) as [
      [Address, number],
    ];
    const before = snapshot(m, [other]);
    expect(await failureCode(m.delegate(m.owner, 50n * USDC, { bump: otherBump }))).toBe(P.InvalidPda);
    expect(await failureCode(m.delegate(m.owner, 50n * USDC, { position: other, bump: otherBump }))).toBe(
      P.InvalidPda,
    );
    expect(snapshot(m, [other])).toEqual(before);
    expect(getAccountData(m.w.svm, m.position)).toBeNull();
    await m.delegate(m.owner, 50n * USDC);
    checkBooks(m);
  }, 60_000);
});
