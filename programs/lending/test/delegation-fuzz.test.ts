/**
 * Delegation invariant fuzz: random sequences of deposits, withdrawals, delegations, withdrawals of delegated
 * funds (part or all), loans that pull from the venue, repays and clock jumps, against the lending program and
 * the local lending venue in LiteSVM. After every step:
 * - the vault's balance equals the bank's available liquidity, and the bank's position in the venue, valued at
 *   the venue's index now, is worth the delegated principal at least, less the venue's rounding of each deposit
 *   (shares round down, against the depositor: at most 2 base units a deposit), which the bank's total absorbs
 *   when the position is withdrawn;
 * - total = available + delegated + outstanding principal of Ongoing loans;
 * - what the lender could withdraw (available + the position's value) never decreases, except by the lender's
 *   own withdrawal or a loan's principal leaving.
 * Seeded and bounded: deterministic and a few seconds.
 *
 * The same through the real marginfi v2 (issue #43): delegations, withdrawals, loans that pull, clock jumps, and
 * among them marginfi's bank changing state (Paused, Operational, ReduceOnly, KilledByBankruptcy, a state unknown
 * to this program) and Delegates naming a non-canonical marginfi account. After every move the bank's books equal
 * its vault + its one marginfi account (+ loans), and a move marginfi's state refuses (packages/protocol
 * marginfiBankRefusal) is refused with that code and moves nothing.
 */
import {
  type MarginfiBankState,
  marginfiBankRefusal,
  marginfiBankStateOf,
  PROGRAM_ERROR_CODE as P,
} from "@cistern/protocol";
import {
  accrueLendingIndex,
  decodeLendingPosition,
  decodeLendingReserve,
  lendingAmountForShares,
} from "@cistern/sdk";
import {
  deposit,
  getAccountData,
  getNow,
  getTokenBalance,
  mintTo,
  readBank,
  readLoan,
  repay,
  setUnixTime,
  withdraw,
} from "@cistern/sdk/testing";
import type { Address } from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDelegationWorld, DAY } from "./support/delegation-world.ts";
import { createMarginfiWorld } from "./support/marginfi-world.ts";
import { canonicalAndNext, keyBytes } from "./support/pda.ts";
import { failureCode } from "./support/sale-world.ts";

type Action =
  | { type: "deposit"; amount: bigint }
  | { type: "withdraw"; permille: number }
  | { type: "delegate"; permille: number }
  | { type: "withdrawDelegated"; permille: number }
  | { type: "loan"; amount: bigint }
  | { type: "repay" }
  | { type: "jump"; seconds: bigint };

const permille = fc.integer({ min: 1, max: 1000 });
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ type: fc.constant("deposit" as const), amount: fc.bigInt({ min: 1n, max: 500_000_000n }) }),
  fc.record({ type: fc.constant("withdraw" as const), permille }),
  fc.record({ type: fc.constant("delegate" as const), permille }),
  fc.record({ type: fc.constant("withdrawDelegated" as const), permille }),
  fc.record({
    type: fc.constant("loan" as const),
    amount: fc.bigInt({ min: 1_000_000n, max: 400_000_000n }),
  }),
  fc.record({ type: fc.constant("repay" as const) }),
  fc.record({ type: fc.constant("jump" as const), seconds: fc.bigInt({ min: 1n, max: 20n * DAY }) }),
);

describe("delegation invariants under random sequences (LiteSVM)", () => {
  it("keeps the bank's accounting whole and the lender's withdrawable amount from shrinking", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 8, maxLength: 16 }), async (actions) => {
        const d = await createDelegationWorld();
        const { w, owner, venue, position } = d;
        const { loan, borrower } = await d.loanSetup();
        await mintTo(w.svm, w.admin, w.currencyMint, w.lender.tokenAccounts.get(w.currencyMint)!, 10n ** 13n);
        const ongoing: Address[] = [];
        const shares = () => {
          const data = getAccountData(w.svm, position);
          return data === null ? 0n : decodeLendingPosition(data).shares;
        };
        const positionValue = () => {
          const reserve = decodeLendingReserve(getAccountData(w.svm, venue.reserve)!);
          return lendingAmountForShares(shares(), accrueLendingIndex(reserve, getNow(w).unix));
        };
        const withdrawable = () => readBank(w).availableLiquidity + positionValue();
        let dust = 0n; // the venue's rounding on the bank's deposits since its position was last emptied
        const check = () => {
          const bank = readBank(w);
          expect(getTokenBalance(w.svm, w.vault)).toBe(bank.availableLiquidity + bank.feesOwed);
          if (shares() === 0n) dust = 0n;
          expect(positionValue() + dust).toBeGreaterThanOrEqual(bank.delegatedLiquidity);
          const lent = ongoing.reduce((sum, l) => sum + readLoan(w, l).principal, 0n);
          expect(bank.totalLiquidity).toBe(bank.availableLiquidity + bank.delegatedLiquidity + lent);
        };
        for (const action of actions) {
          const before = withdrawable();
          let leaves = 0n; // what may legitimately leave the lender's reach in this step
          const bank = readBank(w);
          try {
            switch (action.type) {
              case "deposit":
                await deposit(w, action.amount);
                break;
              case "withdraw": {
                const amount = (bank.availableLiquidity * BigInt(action.permille)) / 1000n;
                if (amount === 0n) continue;
                leaves = amount;
                await withdraw(w, amount);
                break;
              }
              case "delegate": {
                const amount = (bank.availableLiquidity * BigInt(action.permille)) / 1000n;
                if (amount === 0n) continue;
                await d.delegate(owner, amount);
                dust += 2n;
                break;
              }
              case "withdrawDelegated": {
                const held = shares();
                if (held === 0n) continue;
                const part = (held * BigInt(action.permille)) / 1000n;
                await d.withdrawDelegated(owner, part === 0n ? 1n : part);
                break;
              }
              case "loan": {
                const reach = bank.availableLiquidity + bank.delegatedLiquidity;
                if (action.amount > reach || action.amount > 490_000_000n) continue;
                leaves = action.amount;
                ongoing.push(await loan(action.amount, true));
                break;
              }
              case "repay": {
                const l = ongoing.shift();
                if (l === undefined) continue;
                await repay(w, borrower, l);
                break;
              }
              case "jump":
                setUnixTime(w, getNow(w).unix + action.seconds);
                break;
            }
          } catch (error) {
            throw new Error(
              `${JSON.stringify(action, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}: ${error}`,
            );
          }
          check();
          // shares round against the depositor by at most a unit or two (here: the bank)
          expect(withdrawable() + leaves + 3n).toBeGreaterThanOrEqual(before);
        }
      }),
      { seed: 1_625, numRuns: 25 },
    );
  }, 120_000);
});

type MarginfiAction =
  | { type: "delegate"; permille: number }
  | { type: "withdrawDelegated"; permille: number }
  | { type: "loan"; amount: bigint }
  | { type: "state"; byte: number }
  | { type: "nonCanonical"; amount: bigint; atCanonicalAddress: boolean }
  | { type: "jump"; seconds: bigint };

const marginfiActionArb: fc.Arbitrary<MarginfiAction> = fc.oneof(
  fc.record({ type: fc.constant("delegate" as const), permille }),
  fc.record({ type: fc.constant("withdrawDelegated" as const), permille }),
  fc.record({
    type: fc.constant("loan" as const),
    amount: fc.bigInt({ min: 1_000_000n, max: 400_000_000n }),
  }),
  // marginfi's admin (or its bankruptcy handling) moves its bank between states, or to one this program does not know
  fc.record({ type: fc.constant("state" as const), byte: fc.constantFrom(0, 1, 1, 2, 2, 3, 7) }),
  fc.record({
    type: fc.constant("nonCanonical" as const),
    amount: fc.bigInt({ min: 1n, max: 100_000_000n }),
    atCanonicalAddress: fc.boolean(),
  }),
  fc.record({ type: fc.constant("jump" as const), seconds: fc.bigInt({ min: 1n, max: 20n * DAY }) }),
);

describe("delegation through marginfi under random sequences (LiteSVM, the real marginfi)", () => {
  it("after every move the bank's books equal its vault + its one marginfi account (+ loans); what marginfi's state refuses moves nothing", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(marginfiActionArb, { minLength: 8, maxLength: 12 }), async (actions) => {
        const m = await createMarginfiWorld();
        const { w } = m;
        const { loan } = await m.loanSetup();
        const { other } = canonicalAndNext(w.programAddress, ["marginfi_account", keyBytes(w.bank)]);
        let borrowed = 0n;
        let state: MarginfiBankState = "operational";
        const snapshot = () => ({
          bank: readBank(w),
          vault: getTokenBalance(w.svm, w.vault),
          position: getAccountData(w.svm, m.position),
          mbank: getAccountData(w.svm, m.currency.bank),
        });
        const check = () => {
          const bank = readBank(w);
          expect(getTokenBalance(w.svm, w.vault)).toBe(bank.availableLiquidity);
          expect(bank.delegatedLiquidity).toBe(m.positionValue());
          expect(bank.totalLiquidity).toBe(bank.availableLiquidity + bank.delegatedLiquidity + borrowed);
          expect(getAccountData(w.svm, other[0])).toBeNull(); // never a second marginfi account
        };
        /** Runs a move; a refusal must carry `want` when given and move nothing. */
        const attempt = async (run: () => Promise<unknown>, want: number | null, onSuccess = () => {}) => {
          const before = snapshot();
          const code = await failureCode(run());
          if (code === "success") {
            expect(want, "went through although refused by the rule").toBeNull();
            onSuccess();
            return;
          }
          if (want !== null) expect(code).toBe(want);
          expect(snapshot()).toEqual(before);
        };
        const refusal = (move: "deposit" | "withdraw") => {
          const name = marginfiBankRefusal(state, move);
          return name === null ? null : P[name];
        };
        for (const action of actions) {
          const bank = readBank(w);
          try {
            switch (action.type) {
              case "delegate": {
                const amount = (bank.availableLiquidity * BigInt(action.permille)) / 1000n;
                if (amount === 0n) continue;
                await attempt(() => m.delegate(m.owner, amount), refusal("deposit"));
                break;
              }
              case "withdrawDelegated": {
                if (bank.delegatedLiquidity === 0n) continue;
                const amount =
                  action.permille === 1000 ? 0n : (bank.delegatedLiquidity * BigInt(action.permille)) / 1000n;
                await attempt(() => m.withdrawDelegated(m.owner, amount), refusal("withdraw"));
                break;
              }
              case "loan": {
                if (action.amount > bank.availableLiquidity + bank.delegatedLiquidity) continue;
                const pulls = action.amount > bank.availableLiquidity;
                await attempt(
                  () => loan(action.amount, true),
                  pulls ? refusal("withdraw") : null,
                  () => {
                    borrowed += action.amount;
                  },
                );
                break;
              }
              case "state":
                m.setBankState(action.byte);
                state = marginfiBankStateOf(action.byte);
                break;
              case "nonCanonical":
                // a second marginfi account of the bank's PDA, or the canonical address with another bump
                await attempt(
                  () =>
                    m.delegate(
                      m.owner,
                      action.amount,
                      action.atCanonicalAddress ? { bump: other[1] } : { position: other[0], bump: other[1] },
                    ),
                  P.InvalidPda,
                );
                break;
              case "jump":
                setUnixTime(w, getNow(w).unix + action.seconds);
                m.postPrices();
                break;
            }
          } catch (error) {
            throw new Error(
              `${JSON.stringify(action, (_k, v) => (typeof v === "bigint" ? v.toString() : v))} in ${state}: ${error}`,
            );
          }
          check();
        }
      }),
      { seed: 4_343, numRuns: 6 },
    );
  }, 240_000);
});
