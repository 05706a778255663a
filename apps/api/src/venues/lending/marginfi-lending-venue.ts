import { findProgramDerivedAddress } from "@cistern/sdk";
import { type Address, getAddressEncoder } from "@solana/kit";
import type { RpcClient } from "../../solana/rpc-client.ts";
import type { LendingVenueReader, MarginfiDelegationAccounts } from "./lending-venue.ts";
import {
  decodeMarginfiAccount,
  decodeMarginfiBank,
  I80F48_ONE,
  type MarginfiBank,
  marginfiAssetAmount,
  marginfiRatesBps,
  marginfiTotalDeposits,
} from "./marginfi-accounts.ts";

export interface MarginfiVenueOptions {
  programId: Address;
  group: Address;
  /** The marginfi bank that takes each mint in `group`. */
  bankByMint: ReadonlyMap<Address, Address>;
  /** The lending program: the bank's marginfi account is its PDA ["marginfi_account", bank]. */
  lendingProgram: Address;
}

/** The 12-decimal index our delegation view speaks, from marginfi's I80F48 asset share value (floored). */
const INDEX_ONE = 1_000_000_000_000n;
/** Pyth's push oracle program: its PDA [shard u16 LE, feed id] is a feed's sponsored price account. */
const PYTH_PUSH_ORACLE_PROGRAM = "pythWSnswVUd12oZpeFP8e9CVaEqJg25g1Vtc2biRsT" as Address;
/** OracleSetup::PythPushOracle: the bank's oracle key is the Pyth feed id. */
const ORACLE_SETUP_PYTH_PUSH = 3;
const U64_MAX = (1n << 64n) - 1n;

/**
 * marginfi v2 as the delegation routes, builders and keeper see it. A Cistern bank's position is the marginfi
 * account at the lending program's PDA ["marginfi_account", bank], whose authority is the bank's PDA (the lending
 * program creates it on the first delegation). Figures are as of the marginfi bank's last accrual; the lending
 * rate is what marginfi's curve pays depositors at the bank's utilization now. A marginfi bank outside the group,
 * of another mint or not owned by `programId` counts as "no reserve"; a paused one has no reserve for new
 * delegations (`reserve`) but its positions are still read (`delegation`, with `marginfi.operational` false).
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
    if (bank.group !== options.group || bank.mint !== mint) return null;
    return { address, bank };
  }
  return {
    name: "marginfi",
    async reserve(mint) {
      const found = await readBank(mint);
      if (found === null || found.bank.operationalState !== "operational") return null;
      return {
        venueProgram: options.programId,
        reserve: found.address,
        rateBps: marginfiRatesBps(found.bank).lendingRateBps,
      };
    },
    async delegation(bank, mint) {
      const found = await readBank(mint);
      if (found === null) return null;
      const [position, positionBump] = await findMarginfiPositionPda(options.lendingProgram, bank);
      const [account] = (await rpc.getMultipleAccounts([position])).accounts;
      let shares = 0n;
      if (account && account.owner === options.programId) {
        const decoded = decodeMarginfiAccount(account.data);
        if (decoded.authority === bank && decoded.group === options.group) {
          shares = decoded.balances.find((b) => b.bank === found.address)?.assetShares ?? 0n;
        }
      }
      const limit = found.bank.depositLimit;
      const deposits = marginfiTotalDeposits(found.bank);
      const marginfi: MarginfiDelegationAccounts = {
        group: options.group,
        bank: found.address,
        liquidityVault: found.bank.liquidityVault,
        liquidityVaultAuthority: (await marginfiVaultAuthority(options.programId, found.address))[0],
        oracle: await marginfiOracleAccount(found.bank),
        operational: found.bank.operationalState === "operational",
        state: found.bank.operationalState,
        depositRoom: limit === U64_MAX ? null : limit > deposits ? limit - deposits - 1n : 0n,
        positionExists: account !== null && account !== undefined && account.owner === options.programId,
      };
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
        marginfi,
      };
    },
    async tableAddresses() {
      // what TakeLoan's pull through marginfi names besides the bank's own position (LAYOUT.md, TakeLoan)
      const out: Address[] = [options.programId, options.group];
      for (const mint of options.bankByMint.keys()) {
        const found = await readBank(mint);
        if (found === null) continue;
        out.push(
          found.address,
          found.bank.liquidityVault,
          (await marginfiVaultAuthority(options.programId, found.address))[0],
          await marginfiOracleAccount(found.bank),
        );
      }
      return out;
    },
  };
}

/** The bank's marginfi account: the lending program's PDA ["marginfi_account", bank]. */
export function findMarginfiPositionPda(lendingProgram: Address, bank: Address) {
  return findProgramDerivedAddress({
    programAddress: lendingProgram,
    seeds: ["marginfi_account", getAddressEncoder().encode(bank)],
  });
}

/** marginfi's liquidity vault authority of a bank (PDA ["liquidity_vault_auth", bank]). */
function marginfiVaultAuthority(programId: Address, bank: Address) {
  return findProgramDerivedAddress({
    programAddress: programId,
    seeds: ["liquidity_vault_auth", getAddressEncoder().encode(bank)],
  });
}

/**
 * The price account marginfi's risk engine reads for a bank: for a Pyth push oracle, the sponsored feed account
 * of its feed id (Pyth push oracle PDA [shard 0, feed id]); otherwise the oracle key itself.
 */
async function marginfiOracleAccount(bank: MarginfiBank): Promise<Address> {
  if (bank.oracleSetup !== ORACLE_SETUP_PYTH_PUSH) return bank.oracleKey;
  const [feedAccount] = await findProgramDerivedAddress({
    programAddress: PYTH_PUSH_ORACLE_PROGRAM,
    seeds: [Uint8Array.from([0, 0]), getAddressEncoder().encode(bank.oracleKey)],
  });
  return feedAccount;
}
