import { type Address, address } from "@solana/kit";
import type { ApiConfig } from "../../config/config.ts";
import type { RpcClient } from "../../solana/rpc-client.ts";
import type { LendingVenueReader } from "./lending-venue.ts";
import { createLocalLendingVenue } from "./local-lending-venue.ts";
import { createMarginfiLendingVenue } from "./marginfi-lending-venue.ts";

/**
 * The lending venue banks delegate to, for the read routes, the builders and the keeper alike: marginfi v2 when
 * the configuration names a marginfi group (the lending program must pin the same program and group), else the
 * local lending venue the lending program pins; null without a lending program.
 */
export function createLendingVenueReader(
  rpc: RpcClient,
  config: Pick<ApiConfig, "marginfi">,
  lendingProgramId: Address | undefined,
): LendingVenueReader | null {
  if (lendingProgramId === undefined) return null;
  const marginfi = config.marginfi;
  if (marginfi !== undefined) {
    return createMarginfiLendingVenue(rpc, {
      programId: address(marginfi.programId),
      group: address(marginfi.group),
      bankByMint: new Map(Object.entries(marginfi.bankByMint).map(([m, b]) => [address(m), address(b)])),
      lendingProgram: lendingProgramId,
    });
  }
  return createLocalLendingVenue(rpc, lendingProgramId);
}
