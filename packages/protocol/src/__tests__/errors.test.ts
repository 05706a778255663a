import { describe, expect, it } from "vitest";
import { createActionError, getActionErrorToast } from "../actions.ts";
import {
  CisternError,
  ERROR_CODES,
  ERROR_MESSAGES,
  getErrorCodeName,
  getErrorText,
  isCisternError,
} from "../errors.ts";

describe("ERROR_CODES", () => {
  it("are unique and stay in their domain ranges", () => {
    const values = Object.values(ERROR_CODES);
    expect(new Set(values).size).toBe(values.length);
    const ranges: Array<[string, number, number]> = [
      ["AMOUNT_", 1000, 1999],
      ["INVALID_DECIMALS", 1000, 1999],
      ["UNKNOWN_CURRENCY", 1000, 1999],
      ["MISSING_LOAN", 2000, 2999],
      ["INVALID_INTEREST", 2000, 2999],
      ["DURATION_", 2000, 2999],
      ["LOAN_", 2000, 2999],
      ["NO_RELIABLE_PRICE", 2000, 2999],
      ["UNKNOWN_POOL_TYPE", 3000, 3999],
      ["INVALID_POOL_FORM", 3000, 3999],
      ["HTTP_", 4000, 4999],
      ["NO_TRANSACTIONS", 5000, 5999],
      ["UNKNOWN_TRANSACTION_KIND", 5000, 5999],
      ["NO_SIGNATURE", 5000, 5999],
      ["BLOCK_HEIGHT", 5000, 5999],
      ["TRANSACTION_SEND", 5000, 5999],
      ["TRANSACTION_TOO_LARGE", 5000, 5999],
      ["WALLET_", 14000, 14099],
      ["MOBILE_WALLET_", 14100, 14199],
      ["INVALID_PUBLIC_KEY", 7000, 7999],
      ["INVALID_REFERRAL", 7000, 7999],
      ["IMAGE_URL", 7000, 7999],
      ["ACTION_FAILED", 8000, 8999],
      ["CHAT_", 8000, 8999],
      ["INVALID_SERVER_FIELD", 9000, 9999],
    ];
    for (const [name, code] of Object.entries(ERROR_CODES)) {
      const range = ranges.find(([prefix]) => name.startsWith(prefix));
      expect(range, name).toBeDefined();
      expect(code).toBeGreaterThanOrEqual(range![1]);
      expect(code).toBeLessThanOrEqual(range![2]);
    }
  });

  it("pins codes other parts rely on", () => {
    expect(ERROR_CODES.MISSING_LOAN_OR_CURRENCY_DATA).toBe(2000);
    expect(ERROR_CODES.UNKNOWN_POOL_TYPE).toBe(3000);
    expect(ERROR_CODES.HTTP_BAD_REQUEST).toBe(4400);
    expect(ERROR_CODES.HTTP_NOT_FOUND).toBe(4404);
    expect(ERROR_CODES.HTTP_UNPROCESSABLE_ENTITY).toBe(4422);
    expect(ERROR_CODES.NO_TRANSACTIONS_PROVIDED).toBe(5000);
    expect(ERROR_CODES.UNKNOWN_TRANSACTION_KIND).toBe(5001);
    expect(ERROR_CODES.NO_SIGNATURE_CONFIRMATION).toBe(5002);
    expect(ERROR_CODES.WALLET_SIGN_MESSAGE_UNSUPPORTED).toBe(14000);
    expect(ERROR_CODES.ACTION_FAILED).toBe(8000);
  });

  it("every code has a message", () => {
    for (const code of Object.values(ERROR_CODES)) expect(ERROR_MESSAGES[code].length).toBeGreaterThan(0);
  });
});

describe("spec section 8 messages, verbatim", () => {
  const text = (e: CisternError) => e.message;
  it("sender, loan and pool messages", () => {
    expect(text(new CisternError(ERROR_CODES.NO_TRANSACTIONS_PROVIDED))).toBe("No transactions provided");
    expect(text(new CisternError(ERROR_CODES.UNKNOWN_TRANSACTION_KIND))).toBe("Unknown transaction kind");
    expect(text(new CisternError(ERROR_CODES.NO_SIGNATURE_CONFIRMATION))).toBe("No signature confirmation");
    expect(text(new CisternError(ERROR_CODES.MISSING_LOAN_OR_CURRENCY_DATA))).toBe(
      "Missing required loan or currency data",
    );
    expect(text(new CisternError(ERROR_CODES.UNKNOWN_POOL_TYPE))).toBe("Unknown pool type");
    expect(text(new CisternError(ERROR_CODES.BLOCK_HEIGHT_EXCEEDED))).toBe(
      "The transaction was not confirmed in time. This is due to network congestion. Please try again in few mins.",
    );
  });

  it("wallet messages", () => {
    expect(text(new CisternError(ERROR_CODES.WALLET_SIGN_MESSAGE_UNSUPPORTED))).toBe(
      "Wallet does not support signing messages. Ledger are not supported for now to update pool metadata.",
    );
    expect(text(new CisternError(ERROR_CODES.WALLET_SEND_VERSIONED_UNSUPPORTED))).toBe(
      "Sending versioned transactions isn't supported by this wallet",
    );
    expect(text(new CisternError(ERROR_CODES.WALLET_SEND_VERSION_UNSUPPORTED, { n: 0 }))).toBe(
      "Sending transaction version 0 isn't supported by this wallet",
    );
    expect(text(new CisternError(ERROR_CODES.WALLET_SIGN_VERSIONED_UNSUPPORTED))).toBe(
      "Signing versioned transactions isn't supported by this wallet",
    );
    expect(text(new CisternError(ERROR_CODES.WALLET_SIGN_VERSION_UNSUPPORTED, { n: 1 }))).toBe(
      "Signing transaction version 1 isn't supported by this wallet",
    );
    expect(text(new CisternError(ERROR_CODES.MOBILE_WALLET_NOT_FOUND))).toBe(
      "Found no installed wallet that supports the mobile wallet protocol.",
    );
    expect(text(new CisternError(ERROR_CODES.MOBILE_WALLET_PORT_OUT_OF_RANGE, { port: 80 }))).toBe(
      "Association port number must be between 49152 and 65535. 80 given.",
    );
  });

  it("action errors: 'Error in {action}: {message}' with the stack as detail", () => {
    const cause = new Error("insufficient funds");
    const err = createActionError("Repay Loan", cause);
    expect(err.message).toBe("Error in Repay Loan: insufficient funds");
    expect(err.code).toBe(8000);
    expect(err.cause).toBe(cause);
    const toast = getActionErrorToast("Create Pool", cause);
    expect(toast.title).toBe("Error in Create Pool: insufficient funds");
    expect(toast.detail).toContain("insufficient funds");
    expect(toast.detail).toBe(cause.stack);
    expect(getActionErrorToast("Withdraw", "plain").title).toBe("Error in Withdraw: plain");
  });
});

describe("CisternError and isCisternError", () => {
  it("carries code, context and cause", () => {
    const cause = new Error("x");
    const err = new CisternError(ERROR_CODES.UNKNOWN_CURRENCY, { mint: "abc" }, { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("CisternError");
    expect(err.code).toBe(1005);
    expect(err.context).toEqual({ mint: "abc" });
    expect(err.cause).toBe(cause);
    expect(Object.isFrozen(err.context)).toBe(true);
  });

  it("guards by class and optional code", () => {
    const err = new CisternError(ERROR_CODES.UNKNOWN_POOL_TYPE);
    expect(isCisternError(err)).toBe(true);
    expect(isCisternError(err, ERROR_CODES.UNKNOWN_POOL_TYPE)).toBe(true);
    expect(isCisternError(err, ERROR_CODES.AMOUNT_EMPTY)).toBe(false);
    expect(isCisternError(new Error("Unknown pool type"))).toBe(false);
    expect(isCisternError({ code: 3000, message: "Unknown pool type" })).toBe(false);
    expect(isCisternError(null)).toBe(false);
    // an error from another copy of the module carries the same global brand
    const foreign = new Error("Unknown pool type") as Error & Record<symbol, unknown> & { code: number };
    Object.defineProperty(foreign, Symbol.for("@cistern/protocol/CisternError"), { value: true });
    foreign.code = 3000;
    expect(isCisternError(foreign, ERROR_CODES.UNKNOWN_POOL_TYPE)).toBe(true);
  });

  it("names codes and extracts text from anything thrown", () => {
    expect(getErrorCodeName(3000)).toBe("UNKNOWN_POOL_TYPE");
    expect(getErrorCodeName(1)).toBeUndefined();
    expect(getErrorText(new Error("a"))).toBe("a");
    expect(getErrorText("b")).toBe("b");
    expect(getErrorText({ c: 1 })).toBe('{"c":1}');
    expect(getErrorText(undefined)).toBe("undefined");
  });
});
