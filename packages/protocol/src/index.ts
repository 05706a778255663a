/**
 * @cistern/protocol — Cistern's pure TypeScript rules and maths (no I/O, no Solana dependency).
 *
 * Units: money is bigint base units ({@link BaseUnits}); rates are basis points; durations and
 * instants are seconds (epoch seconds) as numbers, bigints accepted by the maths.
 */
export * from "./actions.ts";
export * from "./amounts.ts";
export * from "./assets.ts";
export * from "./base58.ts";
export * from "./chain-health.ts";
export * from "./chat.ts";
export * from "./constants.ts";
export * from "./currencies.ts";
export * from "./display.ts";
export * from "./error-sentences.ts";
export * from "./errors.ts";
export * from "./explorers.ts";
export * from "./format.ts";
export * from "./http-errors.ts";
export * from "./interest.ts";
export * from "./liquidity-summary.ts";
export * from "./loan-calendar.ts";
export * from "./loan-interest.ts";
export * from "./loan-quote.ts";
export * from "./loan-requests.ts";
export * from "./loan-timing.ts";
export * from "./marginfi-bank-state.ts";
export * from "./market-sell-quote.ts";
export * from "./network-costs.ts";
export * from "./nft-market-quotes.ts";
export * from "./offer-ranking.ts";
export * from "./offer-rules.ts";
export * from "./parse-bank.ts";
export * from "./parse-loan.ts";
export * from "./parse-pool.ts";
export * from "./pool-form.ts";
export * from "./pool-payload.ts";
export * from "./priority-fee.ts";
export * from "./program-errors.ts";
export * from "./program-failure.ts";
export * from "./refinance-rule.ts";
export * from "./refresh-scopes.ts";
export * from "./server-fields.ts";
export * from "./transaction-kinds.ts";
export * from "./transaction-state.ts";
export * from "./validation.ts";
export * from "./valuation.ts";
export * from "./wallet-list.ts";
