import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_TOKENS } from "@cistern/localnet";
import { parsePriceMicroUsd } from "@cistern/protocol";
import { findLendingReservePda, getInitializeLendingReserveInstruction } from "@cistern/sdk";
import { type Address, address, type KeyPairSigner } from "@solana/kit";
import { getTransferInstruction } from "@solana-program/token";
import type { ChainClient } from "./chain-client.ts";
import { ensureLendingProgram, type ProgramDeployAction } from "./deploy-lending.ts";
import { getKeysDir, loadOrCreateKeyFile } from "./key-files.ts";
import { fundAdmin } from "./swap-venue.ts";
import { pinVenue } from "./venue-pin.ts";

/** The demo reserves' yearly rates, basis points, by currency symbol. */
export const DEMO_RESERVE_RATES_BPS: Record<string, number> = { USDC: 650, SOL: 500 };
/** Yield the operator puts in each demo reserve's vault to pay its depositors, USD at the seeded prices. */
export const DEMO_RESERVE_YIELD_FUND_USD = 50_000n;

export interface LendingVenueResult {
  programId: Address;
  programAction: ProgramDeployAction;
  /** Whether SetVenues was sent (the lending program's Venues did not pin this venue yet). */
  /** "skipped": not pinned, because marginfi is the lending venue (see ensureMarginfi). */
  venuesAction: "pinned" | "unchanged" | "skipped";
  reserves: { currency: string; address: Address; action: "created" | "unchanged" }[];
}

/**
 * The local lending venue, idempotently: its program deployed or upgraded (key `lending-venue-program.json` in
 * the data dir, admin = upgrade authority), pinned as the lending program's lending venue (keeping the other
 * pinned venues), and with `demo` a reserve per lending currency at DEMO_RESERVE_RATES_BPS whose vault the admin
 * funds with DEMO_RESERVE_YIELD_FUND_USD to pay the yield (as a real venue's borrowers would).
 */
export async function ensureLendingVenue(input: {
  chain: ChainClient;
  dataDir: string;
  admin: KeyPairSigner;
  lendingProgramId: Address;
  soPath: string;
  demo: boolean;
  /** Pin it as the lending program's lending venue (default true; false when marginfi is pinned instead). */
  pin?: boolean;
}): Promise<LendingVenueResult> {
  const { chain, admin } = input;
  const program = await loadOrCreateKeyFile(join(getKeysDir(input.dataDir), "lending-venue-program.json"));
  const deployed = await ensureLendingProgram({
    chain,
    programBytes: new Uint8Array(readFileSync(input.soPath)),
    program,
    admin,
  });
  const venuesAction =
    input.pin === false
      ? "skipped"
      : await pinVenue(chain, admin, input.lendingProgramId, { lendingProgram: program.address });
  const reserves: LendingVenueResult["reserves"] = [];
  if (input.demo) {
    for (const token of DEMO_TOKENS.filter((t) => t.role === "currency")) {
      const mint = address(token.mint);
      const [reserve] = await findLendingReservePda(program.address, mint);
      if ((await chain.fetchAccount(reserve)) !== null) {
        reserves.push({ currency: token.symbol, address: reserve, action: "unchanged" });
        continue;
      }
      const init = await getInitializeLendingReserveInstruction({
        programAddress: program.address,
        admin,
        mint,
        rateBps: DEMO_RESERVE_RATES_BPS[token.symbol] ?? 500,
      });
      await chain.send(`create the ${token.symbol} lending reserve`, [init], admin);
      const fund =
        (DEMO_RESERVE_YIELD_FUND_USD * 1_000_000n * 10n ** BigInt(token.decimals)) /
        parsePriceMicroUsd(token.priceUsd)!;
      const source = await fundAdmin(chain, admin, mint, fund);
      await chain.send(
        `fund the ${token.symbol} reserve's yield`,
        [getTransferInstruction({ source, destination: init.vault, authority: admin, amount: fund })],
        admin,
      );
      reserves.push({ currency: token.symbol, address: reserve, action: "created" });
    }
  }
  return { programId: program.address, programAction: deployed.action, venuesAction, reserves };
}
