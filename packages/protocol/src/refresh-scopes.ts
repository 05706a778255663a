/**
 * What to reload after a successful transaction (spec section 4, "Refresh after success").
 */
import type { ActionName } from "./actions.ts";

/** Data scopes the app can refresh. */
export const REFRESH_SCOPES = [
  "assets",
  "user-stats",
  "loans",
  "mypool",
  "stats",
  "balance",
  "pool",
] as const;
/** One of {@link REFRESH_SCOPES}. */
export type RefreshScope = (typeof REFRESH_SCOPES)[number];

/**
 * Scopes refreshed after each action succeeds. From the spec's table: close pool, withdraw, deposit
 * (Add Liquidity), NFT loan (Borrow NFT), token loan (Borrow Tokens), margin swap, market sell, NFT
 * market sell, mortgage, repay (see {@link getRefreshScopes} for token loans), multiple repay,
 * delegate / withdraw delegated, extend loan (nothing).
 * Create Pool and Update Pool are not in the spec's table; Cistern refreshes them like a deposit
 * (balance, mypool, pool) and like a pool edit (mypool, pool). Liquidate Loan (Cistern's own) moves the
 * collateral to the pool owner and the loan to history: loans, assets, balance, mypool. Swap (Cistern's own,
 * the swap widget) changes the wallet's tokens: balance, assets. Posting or cancelling a loan request moves the
 * collateral (loans, assets: requests are read under the loans scope); filling one lends from the lender's bank
 * (loans, balance, mypool). Buy NFT (Cistern's own: a listed NFT bought outright) brings an NFT and takes currency:
 * assets, balance.
 */
export const REFRESH_SCOPES_BY_ACTION: Readonly<Record<ActionName, readonly RefreshScope[]>> = Object.freeze({
  "Close Pool": ["mypool"],
  Withdraw: ["balance", "mypool"],
  "Add Liquidity": ["balance", "mypool", "pool"],
  "Borrow NFT": ["loans", "assets", "balance"],
  "Borrow Tokens": ["loans", "balance"],
  "Margin Swap": ["loans", "balance"],
  "Market Sell": ["loans", "balance"],
  "Market Sell NFT": ["loans", "assets", "balance"],
  "Take Mortgage": ["loans", "assets", "balance"],
  "Buy NFT": ["assets", "balance"],
  "Repay Loan": ["loans", "balance"],
  "Multiple Repay": ["loans", "assets", "balance"],
  "Delegate Funds": ["balance", "mypool"],
  "Withdraw Delegated Funds": ["balance", "mypool"],
  "Extend Loan": [],
  "Create Pool": ["balance", "mypool", "pool"],
  "Update Pool": ["mypool", "pool"],
  "Liquidate Loan": ["loans", "assets", "balance", "mypool"],
  Swap: ["balance", "assets"],
  "Refinance Loan": ["loans", "balance"],
  "Post Loan Request": ["loans", "assets"],
  "Cancel Loan Request": ["loans", "assets"],
  "Fill Loan Request": ["loans", "balance", "mypool"],
  "Upgrade Pool": ["balance", "mypool", "pool"],
});

/**
 * Scopes to refresh after `action` succeeds. Repaying a token loan also refreshes assets
 * (spec: "repay: loans, balance (plus assets for token loans)").
 */
export function getRefreshScopes(
  action: ActionName,
  options: { isTokenLoan?: boolean } = {},
): RefreshScope[] {
  const scopes = [...REFRESH_SCOPES_BY_ACTION[action]];
  if (action === "Repay Loan" && options.isTokenLoan) scopes.push("assets");
  return scopes;
}
