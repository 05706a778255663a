import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  getTransactionToast,
  isFinalTransactionStep,
  type TransactionAction,
  type TransactionMachineState,
  TransactionStep,
  transactionReducer,
} from "../transaction-state.ts";

describe("TransactionStep", () => {
  it("uses the spec's numbers", () => {
    expect(TransactionStep).toEqual({
      PREPARING: 0,
      WAITING_FOR_SIGNATURE: 1,
      SENDING: 2,
      CONFIRMED: 3,
      ERROR: 4,
    });
  });
});

describe("isFinalTransactionStep", () => {
  it("is true for CONFIRMED and ERROR only", () => {
    expect([0, 1, 2, 3, 4].map(isFinalTransactionStep)).toEqual([false, false, false, true, true]);
  });
});

describe("transactionReducer", () => {
  it("walks the happy path and clears", () => {
    let s: TransactionMachineState = null;
    s = transactionReducer(s, { type: "prepare", action: "Repay Loan" });
    expect(s).toEqual({ step: 0, action: "Repay Loan" });
    s = transactionReducer(s, { type: "requestSignature" });
    expect(s).toEqual({ step: 1, action: "Repay Loan" });
    s = transactionReducer(s, { type: "send" });
    expect(s).toEqual({ step: 2, action: "Repay Loan" });
    s = transactionReducer(s, { type: "send", signature: "sig1" });
    expect(s).toEqual({ step: 2, action: "Repay Loan", signature: "sig1" });
    s = transactionReducer(s, { type: "confirm", signature: "sig1" });
    expect(s).toEqual({ step: 3, action: "Repay Loan", signature: "sig1" });
    expect(transactionReducer(s, { type: "clear" })).toBeNull();
  });

  it("fails from any step, including before preparing", () => {
    expect(transactionReducer(null, { type: "fail", message: "bad input" })).toEqual({
      step: 4,
      errorMessage: "bad input",
    });
    for (const step of [0, 1, 2] as const) {
      expect(transactionReducer({ step }, { type: "fail", message: "m" })).toEqual({
        step: 4,
        errorMessage: "m",
      });
    }
  });

  it("ignores illegal moves, returning the same state object", () => {
    const preparing = { step: TransactionStep.PREPARING };
    expect(transactionReducer(preparing, { type: "confirm", signature: "x" })).toBe(preparing);
    expect(transactionReducer(preparing, { type: "send" })).toBe(preparing);
    expect(transactionReducer(preparing, { type: "prepare" })).toBe(preparing);
    expect(transactionReducer(null, { type: "requestSignature" })).toBeNull();
    const done = { step: TransactionStep.CONFIRMED, signature: "s" };
    expect(transactionReducer(done, { type: "fail", message: "late" })).toBe(done);
    // a new transaction may start after a final state
    expect(transactionReducer(done, { type: "prepare" })).toEqual({ step: 0 });
  });

  it("never leaves the five steps, whatever the actions", () => {
    const arbAction: fc.Arbitrary<TransactionAction> = fc.oneof(
      fc.constant<TransactionAction>({ type: "prepare" }),
      fc.constant<TransactionAction>({ type: "requestSignature" }),
      fc.constant<TransactionAction>({ type: "send" }),
      fc.constant<TransactionAction>({ type: "confirm", signature: "s" }),
      fc.constant<TransactionAction>({ type: "fail", message: "m" }),
      fc.constant<TransactionAction>({ type: "clear" }),
    );
    fc.assert(
      fc.property(fc.array(arbAction, { maxLength: 30 }), (actions) => {
        let s: TransactionMachineState = null;
        for (const a of actions) {
          const prev: TransactionMachineState = s;
          s = transactionReducer(s, a);
          if (s !== null) expect([0, 1, 2, 3, 4]).toContain(s.step);
          if (s !== null && prev !== null && s.step < prev.step) expect(s.step).toBe(0);
        }
      }),
    );
  });
});

describe("getTransactionToast", () => {
  it("shows the spec's texts for each state", () => {
    expect(getTransactionToast({ step: 0 })).toEqual({
      type: "loading",
      title: "Preparing Transaction",
      description: "Transaction is being prepared",
      durationMs: 65_000,
    });
    expect(getTransactionToast({ step: 1 })).toEqual({
      type: "loading",
      title: "Waiting for signature approve",
      description: "Please approve the transaction in your wallet",
      durationMs: 65_000,
    });
    expect(getTransactionToast({ step: 2 })).toEqual({
      type: "loading",
      title: "Processing Transaction",
      durationMs: 65_000,
    });
    expect(getTransactionToast({ step: 2, signature: "abc" })?.signature).toBe("abc");
    expect(getTransactionToast({ step: 3, signature: "abc" })).toEqual({
      type: "success",
      title: "Transaction Success",
      signature: "abc",
    });
    expect(getTransactionToast({ step: 7 })).toEqual({ type: "info", title: "Transaction Info" });
    expect(getTransactionToast(null)).toBeNull();
  });

  it("shows failures with the message and support line", () => {
    expect(getTransactionToast({ step: 4, errorMessage: "Insufficient funds" })).toEqual({
      type: "error",
      title: "Transaction Failed (Insufficient funds)",
      description: "Please reach out to us on Discord if you need assistance.",
      detail: "Insufficient funds",
    });
  });

  it("explains block height expiry", () => {
    const raw = "Signature abc has expired: block height exceeded.";
    const toast = getTransactionToast({ step: 4, errorMessage: raw });
    expect(toast?.title).toBe(
      "Transaction Failed (The transaction was not confirmed in time. This is due to network congestion. Please try again in few mins.)",
    );
    expect(toast?.detail).toBe(raw);
  });
});
