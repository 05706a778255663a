import { describe, expect, it } from "vitest";
import { ACTION_NAMES, getActionErrorToast, isActionName } from "../actions.ts";
import { getRefreshScopes, REFRESH_SCOPES_BY_ACTION } from "../refresh-scopes.ts";
import {
  assertTransactionsProvided,
  getSignatureFromSendResponse,
  isBundleKind,
  isCoSignedKind,
  parseTransactionKind,
  SENDER_PATH_BY_KIND,
  TransactionKind,
} from "../transaction-kinds.ts";

describe("refresh scopes (spec section 4)", () => {
  it("match the spec's table", () => {
    expect(REFRESH_SCOPES_BY_ACTION).toMatchObject({
      "Close Pool": ["mypool"],
      Withdraw: ["balance", "mypool"],
      "Add Liquidity": ["balance", "mypool", "pool"],
      "Borrow NFT": ["loans", "assets", "balance"],
      "Borrow Tokens": ["loans", "balance"],
      "Margin Swap": ["loans", "balance"],
      "Market Sell": ["loans", "balance"],
      "Market Sell NFT": ["loans", "assets", "balance"],
      "Take Mortgage": ["loans", "assets", "balance"],
      "Repay Loan": ["loans", "balance"],
      "Multiple Repay": ["loans", "assets", "balance"],
      "Delegate Funds": ["balance", "mypool"],
      "Withdraw Delegated Funds": ["balance", "mypool"],
      "Extend Loan": [],
    });
  });

  it("cover every action", () => {
    expect(Object.keys(REFRESH_SCOPES_BY_ACTION).sort()).toEqual([...ACTION_NAMES].sort());
  });

  it("add assets when repaying a token loan", () => {
    expect(getRefreshScopes("Repay Loan", { isTokenLoan: true })).toEqual(["loans", "balance", "assets"]);
    expect(getRefreshScopes("Repay Loan")).toEqual(["loans", "balance"]);
    expect(getRefreshScopes("Extend Loan")).toEqual([]);
  });

  it("refresh the wallet's balance and tokens after a swap (Cistern's own action)", () => {
    expect(getRefreshScopes("Swap")).toEqual(["balance", "assets"]);
  });

  it("refresh loans, assets, balance and the lender's pools after a liquidation (Cistern's own action)", () => {
    expect(isActionName("Liquidate Loan")).toBe(true);
    expect(getRefreshScopes("Liquidate Loan")).toEqual(["loans", "assets", "balance", "mypool"]);
    expect(getRefreshScopes("Liquidate Loan", { isTokenLoan: true })).toEqual([
      "loans",
      "assets",
      "balance",
      "mypool",
    ]);
    expect(getActionErrorToast("Liquidate Loan", new Error("LoanNotLiquidatable")).title).toBe(
      "Error in Liquidate Loan: LoanNotLiquidatable",
    );
  });
});

describe("transaction kinds and sender rules", () => {
  it("has the four kinds and their sender paths", () => {
    expect(Object.values(TransactionKind)).toEqual(["Normal", "Bundle", "NormalCoSigned", "BundleCoSigned"]);
    expect(SENDER_PATH_BY_KIND).toEqual({
      Normal: "/send-transaction",
      Bundle: "/send-bundle",
      NormalCoSigned: "/send-cos-transaction",
      BundleCoSigned: "/send-cos-bundle",
    });
    expect(isBundleKind("BundleCoSigned")).toBe(true);
    expect(isBundleKind("Normal")).toBe(false);
    expect(isCoSignedKind("NormalCoSigned")).toBe(true);
    expect(isCoSignedKind("Bundle")).toBe(false);
  });

  it("rejects unknown kinds and empty lists with the spec's messages", () => {
    expect(parseTransactionKind("Bundle")).toBe("Bundle");
    expect(() => parseTransactionKind("toString")).toThrowError("Unknown transaction kind");
    expect(() => parseTransactionKind(undefined)).toThrowError(expect.objectContaining({ code: 5001 }));
    expect(() => assertTransactionsProvided([])).toThrowError("No transactions provided");
    expect(() => assertTransactionsProvided(undefined)).toThrowError(expect.objectContaining({ code: 5000 }));
    expect(() => assertTransactionsProvided(["tx"])).not.toThrow();
  });

  it("reads the signature of a send response or throws its error", () => {
    expect(getSignatureFromSendResponse({ result: "5sig" })).toBe("5sig");
    expect(() => getSignatureFromSendResponse({})).toThrowError("No signature confirmation");
    expect(() => getSignatureFromSendResponse({ result: null })).toThrowError(
      expect.objectContaining({ code: 5002 }),
    );
    expect(() => getSignatureFromSendResponse({ error: { message: "Blockhash not found" } })).toThrowError(
      expect.objectContaining({ code: 5004, message: "Blockhash not found" }),
    );
    expect(() => getSignatureFromSendResponse({ error: "block height exceeded" })).toThrowError(
      expect.objectContaining({ code: 5003 }),
    );
  });
});
