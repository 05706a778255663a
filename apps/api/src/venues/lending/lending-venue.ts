import type { MarginfiBankState } from "@cistern/protocol";
import type { Address } from "@solana/kit";

/** A bank's delegation as the lending venue holds it, valued at the venue's share price now. */
export interface BankDelegation {
  venue: "local" | "marginfi";
  venueProgram: Address;
  /** The venue's reserve of the mint (marginfi: its bank). */
  reserve: Address;
  venueVault: Address;
  /** The bank's position in the venue (marginfi: its marginfi account). */
  position: Address;
  positionBump: number;
  /** The venue's yearly rate paid to depositors, basis points. */
  rateBps: number;
  /** Share price now, 12 decimals. */
  index: bigint;
  /** Shares held (marginfi: whole shares, floored). */
  shares: bigint;
  /** What the shares are worth now, base units (floor, as a withdrawal pays). */
  positionValue: bigint;
  /** marginfi only: the accounts its delegation instructions name, and whether it takes deposits now. */
  marginfi?: MarginfiDelegationAccounts;
}

/** The marginfi accounts of a bank's delegation (see the lending program's LAYOUT: Delegate through marginfi). */
export interface MarginfiDelegationAccounts {
  group: Address;
  /** The marginfi bank of the mint. */
  bank: Address;
  liquidityVault: Address;
  liquidityVaultAuthority: Address;
  /** The price account marginfi's risk engine reads for that bank. */
  oracle: Address;
  /** false when marginfi's bank is paused or reduce-only: no new deposits. */
  operational: boolean;
  /** marginfi's bank state: what it takes now is packages/protocol's marginfiBankRefusal(state, move). */
  state: MarginfiBankState;
  /** What the bank can still take before its deposit limit, base units (null: no limit). */
  depositRoom: bigint | null;
  /** Whether the bank's marginfi account exists yet (the first delegation creates it). */
  positionExists: boolean;
}

/**
 * What the delegation read routes need of a lending venue, whichever answers: the local lending venue (the
 * embedded default, a program of ours on localnet) or marginfi v2 (production).
 */
export interface LendingVenueReader {
  readonly name: "local" | "marginfi";
  /** The venue's reserve of `mint` and its rate, or null when the venue takes no such mint. */
  reserve(mint: Address): Promise<{ venueProgram: Address; reserve: Address; rateBps: number } | null>;
  /** The bank's position in the reserve of `mint` (shares 0 when it has none yet); null without a reserve. */
  delegation(bank: Address, mint: Address, nowSeconds: number): Promise<BankDelegation | null>;
  /**
   * The venue's accounts that every pull from it names whichever bank pulls (its program, group, reserves and their
   * vaults and price accounts): the protocol lookup table holds them. None when absent.
   */
  tableAddresses?(): Promise<Address[]>;
}
