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
}
