import {
  accrueLendingIndex,
  decodeLendingPosition,
  decodeLendingReserve,
  decodeVenuesAccount,
  findLendingPositionPda,
  findLendingReservePda,
  findVenuesPda,
  type LendingReserveAccount,
  lendingAmountForShares,
  NO_VENUE,
  type VenuePull,
} from "@cistern/sdk";
import type { Address } from "@solana/kit";
import type { RpcClient } from "../../solana/rpc-client.ts";
import type { BankDelegation, LendingVenueReader } from "./lending-venue.ts";

/**
 * The local lending venue as the API reads it: the program the lending program's Venues account pins, its
 * reserve of a mint and a bank's position there (PDAs of the venue), with the venue's own maths.
 */
export interface LocalLendingVenue extends LendingVenueReader {
  readonly name: "local";
  /** The pinned lending venue program, or null when none is pinned. */
  program(): Promise<Address | null>;
}

export function createLocalLendingVenue(rpc: RpcClient, lendingProgramId: Address): LocalLendingVenue {
  async function program(): Promise<Address | null> {
    const [venues] = await findVenuesPda(lendingProgramId);
    const [account] = (await rpc.getMultipleAccounts([venues])).accounts;
    if (!account) return null;
    const pinned = decodeVenuesAccount(account.data).lendingProgram;
    return pinned === NO_VENUE ? null : pinned;
  }
  return {
    name: "local",
    program,
    async reserve(mint) {
      const venueProgram = await program();
      if (venueProgram === null) return null;
      const [reserve] = await findLendingReservePda(venueProgram, mint);
      const [account] = (await rpc.getMultipleAccounts([reserve])).accounts;
      if (!account || account.owner !== venueProgram) return null;
      return { venueProgram, reserve, rateBps: decodeLendingReserve(account.data).rateBps };
    },
    async delegation(bank, mint, nowSeconds) {
      const venueProgram = await program();
      if (venueProgram === null) return null;
      const [reserve] = await findLendingReservePda(venueProgram, mint);
      const [position, positionBump] = await findLendingPositionPda(venueProgram, reserve, bank);
      const [reserveAccount, positionAccount] = (await rpc.getMultipleAccounts([reserve, position])).accounts;
      if (!reserveAccount || reserveAccount.owner !== venueProgram) return null;
      const r: LendingReserveAccount = decodeLendingReserve(reserveAccount.data);
      const shares =
        positionAccount && positionAccount.owner === venueProgram
          ? decodeLendingPosition(positionAccount.data).shares
          : 0n;
      const index = accrueLendingIndex(r, BigInt(Math.floor(nowSeconds)));
      return {
        venue: "local",
        venueProgram,
        reserve,
        venueVault: r.vault,
        position,
        positionBump,
        rateBps: r.rateBps,
        index,
        shares,
        positionValue: lendingAmountForShares(shares, index),
      };
    },
  };
}

/** The TakeLoan accounts that pull delegated liquidity back (see the lending program's LAYOUT, TakeLoan). */
export async function toVenuePull(lendingProgramId: Address, d: BankDelegation): Promise<VenuePull> {
  const [venues] = await findVenuesPda(lendingProgramId);
  return {
    venues,
    venueProgram: d.venueProgram,
    reserve: d.reserve,
    position: d.position,
    venueVault: d.venueVault,
  };
}
