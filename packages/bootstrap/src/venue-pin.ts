import { decodeVenuesAccount, findVenuesPda, getSetVenuesInstruction, NO_VENUE } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import type { ChainClient } from "./chain-client.ts";

/** Whether SetVenues was sent (the lending program's Venues did not pin the venue yet). */
export type VenuePinAction = "pinned" | "unchanged";

/**
 * Pins one venue program in the lending program's Venues account, keeping the other pinned venues; sends
 * nothing when it is pinned already.
 */
export async function pinVenue(
  chain: ChainClient,
  admin: KeyPairSigner,
  lendingProgramId: Address,
  venue: { swapProgram: Address } | { marketProgram: Address } | { lendingProgram: Address },
): Promise<VenuePinAction> {
  const [venuesAddress] = await findVenuesPda(lendingProgramId);
  const account = await chain.fetchAccount(venuesAddress);
  const current = account === null ? null : decodeVenuesAccount(account.data);
  const next = {
    swapProgram: current?.swapProgram ?? NO_VENUE,
    marketProgram: current?.marketProgram ?? NO_VENUE,
    lendingProgram: current?.lendingProgram ?? NO_VENUE,
    ...venue,
  };
  if (
    current !== null &&
    current.swapProgram === next.swapProgram &&
    current.marketProgram === next.marketProgram &&
    current.lendingProgram === next.lendingProgram
  )
    return "unchanged";
  const [name] = Object.keys(venue);
  await chain.send(
    `pin the ${name === "swapProgram" ? "swap venue" : name === "marketProgram" ? "NFT market" : "lending venue"}`,
    [await getSetVenuesInstruction({ programAddress: lendingProgramId, admin, ...next })],
    admin,
  );
  return "pinned";
}
