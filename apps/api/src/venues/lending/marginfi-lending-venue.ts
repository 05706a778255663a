import { findProgramDerivedAddress } from "@cistern/sdk";
import { type Address, getAddressEncoder } from "@solana/kit";
import type { RpcClient } from "../../solana/rpc-client.ts";
import type { LendingVenueReader } from "./lending-venue.ts";
import {
  decodeMarginfiAccount,
  decodeMarginfiBank,
  I80F48_ONE,
  type MarginfiBank,
  marginfiAssetAmount,
  marginfiRatesBps,
} from "./marginfi-accounts.ts";

export interface MarginfiVenueOptions {
  programId: Address;
  group: Address;
  /** The marginfi bank that takes each mint in `group`. */
  bankByMint: ReadonlyMap<Address, Address>;
}

/** The 12-decimal index our delegation view speaks, from marginfi's I80F48 asset share value (floored). */
const INDEX_ONE = 1_000_000_000_000n;

/**
 * marginfi v2 as the delegation read routes see it (production). A Cistern bank's position is the marginfi
 * account the bank's PDA owns in the group, at marginfi's own PDA (seeds "marginfi_account", group, authority,
 * account index 0, third-party id 0). Figures are as of the marginfi bank's last accrual; the lending rate is
 * what marginfi's curve pays depositors at the bank's utilization now. A bank outside the group, of another
 * mint, not owned by `programId` or not operational counts as "no reserve".
 */
export function createMarginfiLendingVenue(
  rpc: RpcClient,
  options: MarginfiVenueOptions,
): LendingVenueReader {
  async function readBank(mint: Address): Promise<{ address: Address; bank: MarginfiBank } | null> {
    const address = options.bankByMint.get(mint);
    if (address === undefined) return null;
    const [account] = (await rpc.getMultipleAccounts([address])).accounts;
    if (!account || account.owner !== options.programId) return null;
    const bank = decodeMarginfiBank(account.data);
    if (bank.group !== options.group || bank.mint !== mint || bank.operationalState !== "operational") {
      return null;
    }
    return { address, bank };
  }
  return {
    name: "marginfi",
    async reserve(mint) {
      const found = await readBank(mint);
      if (found === null) return null;
      return {
        venueProgram: options.programId,
        reserve: found.address,
        rateBps: marginfiRatesBps(found.bank).lendingRateBps,
      };
    },
    async delegation(bank, mint) {
      const found = await readBank(mint);
      if (found === null) return null;
      const [position, positionBump] = await findMarginfiAccountPda(options.programId, options.group, bank);
      const [account] = (await rpc.getMultipleAccounts([position])).accounts;
      let shares = 0n;
      if (account && account.owner === options.programId) {
        const decoded = decodeMarginfiAccount(account.data);
        if (decoded.authority === bank && decoded.group === options.group) {
          shares = decoded.balances.find((b) => b.bank === found.address)?.assetShares ?? 0n;
        }
      }
      return {
        venue: "marginfi",
        venueProgram: options.programId,
        reserve: found.address,
        venueVault: found.bank.liquidityVault,
        position,
        positionBump,
        rateBps: marginfiRatesBps(found.bank).lendingRateBps,
        index: (found.bank.assetShareValue * INDEX_ONE) / I80F48_ONE,
        shares: shares / I80F48_ONE,
        positionValue: marginfiAssetAmount(found.bank, shares),
      };
    },
  };
}

/** marginfi's PDA of the account `authority` owns in `group` (account index 0, no third party). */
export function findMarginfiAccountPda(programId: Address, group: Address, authority: Address) {
  const encoder = getAddressEncoder();
  return findProgramDerivedAddress({
    programAddress: programId,
    seeds: [
      "marginfi_account",
      encoder.encode(group),
      encoder.encode(authority),
      Uint8Array.from([0, 0]),
      Uint8Array.from([0, 0]),
    ],
  });
}
