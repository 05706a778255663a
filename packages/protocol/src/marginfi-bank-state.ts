/**
 * What marginfi v2 lets a depositor do in each state of its bank, as the lending program applies it to a bank's
 * delegation (programs/lending/src/delegation.c `mfi_state_refusal`, LAYOUT.md "Delegate through marginfi"): the
 * one rule the API's delegation quotes and builders read. marginfi's own source (mrgnlabs/marginfi-v2,
 * mrgn-0.1.1 `Bank::assert_operational_mode`; later versions' `validate_bank_state`): a deposit needs Operational;
 * a withdrawal (a lender's balance going down) is allowed in Operational and ReduceOnly; Paused refuses both;
 * KilledByBankruptcy (set by marginfi's bankruptcy handling, never by its admin) refuses everything.
 */
import type { ProgramErrorName } from "./program-errors.ts";

/** Offset of BankOperationalState (u8) in marginfi's Bank account (1,864 bytes). */
export const MARGINFI_BANK_STATE_OFFSET = 608;

/** marginfi's BankOperationalState in its byte order (the byte is the index). */
export const MARGINFI_BANK_STATES = ["paused", "operational", "reduceOnly", "killedByBankruptcy"] as const;

/** A marginfi bank's state; "unknown" for a byte this version does not know (a newer marginfi). */
export type MarginfiBankState = (typeof MARGINFI_BANK_STATES)[number] | "unknown";

/** The state of a marginfi bank's BankOperationalState byte. */
export function marginfiBankStateOf(byte: number): MarginfiBankState {
  return MARGINFI_BANK_STATES[byte] ?? "unknown";
}

/** A delegation move: a deposit into marginfi (Delegate) or a withdrawal from it (WithdrawDelegated, a loan's pull). */
export type MarginfiMove = "deposit" | "withdraw";

/** The lending program's error for a move marginfi refuses in this state (the program raises the same code). */
export type MarginfiBankRefusal = Extract<
  ProgramErrorName,
  "VenuePaused" | "VenueReduceOnly" | "VenueBankrupt" | "VenueStateUnknown"
>;

/**
 * Why marginfi refuses `move` in `state`, or null when it takes it (a withdrawal still needs the liquidity in
 * marginfi's vault). An unknown state refuses deposits and leaves a withdrawal to marginfi's own checks.
 */
export function marginfiBankRefusal(
  state: MarginfiBankState,
  move: MarginfiMove,
): MarginfiBankRefusal | null {
  switch (state) {
    case "operational":
      return null;
    case "reduceOnly":
      return move === "deposit" ? "VenueReduceOnly" : null;
    case "paused":
      return "VenuePaused";
    case "killedByBankruptcy":
      return "VenueBankrupt";
    case "unknown":
      return move === "deposit" ? "VenueStateUnknown" : null;
  }
}
