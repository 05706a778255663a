import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Address } from "@solana/kit";
import { BOOTSTRAP_ERROR, BootstrapError } from "./bootstrap-error.ts";
import { type ChainClient, createChainClient } from "./chain-client.ts";
import { type Cluster, type ClusterInfo, isCluster, writeClusterInfo } from "./cluster-info.ts";
import { ensureLendingProgram, type ProgramDeployAction } from "./deploy-lending.ts";
import { type ConfigAction, ensureProgramConfig } from "./ensure-config.ts";
import { getKeysDir, loadOrCreateClusterKeys } from "./key-files.ts";
import { ensureLendingVenue, type LendingVenueResult } from "./lending-venue.ts";
import { ensureMarginfi, type MarginfiResult } from "./marginfi.ts";
import { ensureNftMarket, type NftMarketResult } from "./nft-market.ts";
import {
  assertDemoMints,
  type DemoSeedResult,
  ensureLocalnetLamports,
  seedDemoLenders,
} from "./seed-demo.ts";
import { ensureSwapVenue, type SwapVenueResult } from "./swap-venue.ts";
import { ensureTreasuryTokenAccounts, type TreasuryTokenAccount } from "./treasury-accounts.ts";

/** On localnet the admin is topped up to 100 SOL whenever it holds less than 20 SOL. */
export const LOCALNET_ADMIN_MIN_LAMPORTS = 20_000_000_000n;
/** Lamports the localnet admin is topped up to. */
export const LOCALNET_ADMIN_TOP_UP_LAMPORTS = 100_000_000_000n;

/** Options of {@link bootstrapCluster}. */
export interface BootstrapClusterOptions {
  /** HTTP JSON-RPC URL of the cluster. */
  rpcUrl: string;
  /** PubSub URL (a Cistern localnet also serves PubSub on the HTTP port, so rpcUrl with ws: works). */
  wsUrl: string;
  /** Where keys/ and cluster.json live. */
  dataDir: string;
  cluster: Cluster;
  /** Path of the lending program ELF (programs/lending/build/lending.so). */
  lendingSoPath: string;
  /** Seed demo lenders, banks and pools (localnet only). */
  demo?: boolean;
  /**
   * Path of the local swap venue ELF (programs/swap-venue/build/swap-venue.so): when given it is deployed and
   * pinned as the lending program's swap venue, with demo pools when `demo` (the embedded default's stand-in
   * for Jupiter; a real cluster pins its own venue instead).
   */
  swapVenueSoPath?: string;
  /** The local lending venue's program (programs/lending-venue): deployed, pinned and (demo) given reserves. */
  lendingVenueSoPath?: string;
  /** The local NFT market program to deploy and pin (with `demo`: listings and bids of the demo collections). */
  nftMarketSoPath?: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** What {@link bootstrapCluster} produced; every action says whether this run changed anything. */
export interface BootstrapClusterResult {
  lendingProgramId: Address;
  adminAddress: Address;
  oracleAddress: Address;
  treasuryAddress: Address;
  cluster: Cluster;
  programAction: ProgramDeployAction;
  configAction: ConfigAction;
  treasuryTokenAccounts: TreasuryTokenAccount[];
  clusterInfo: ClusterInfo;
  clusterInfoPath: string;
  demo?: DemoSeedResult;
  swapVenue?: SwapVenueResult;
  lendingVenue?: LendingVenueResult;
  nftMarket?: NftMarketResult;
  /** marginfi's group and banks (localnet demo only: on a cluster they are marginfi's own). */
  marginfi?: MarginfiResult;
}

function assertOptions(options: BootstrapClusterOptions): Uint8Array {
  const bad = (message: string): never => {
    throw new BootstrapError(BOOTSTRAP_ERROR.INVALID_OPTIONS, message);
  };
  if (!isCluster(options.cluster))
    bad(`cluster must be localnet, devnet or mainnet (got ${String(options.cluster)})`);
  for (const [name, value] of [
    ["rpcUrl", options.rpcUrl],
    ["wsUrl", options.wsUrl],
  ] as const) {
    if (typeof value !== "string" || !URL.canParse(value)) bad(`${name} is not a URL: ${String(value)}`);
  }
  if (typeof options.dataDir !== "string" || options.dataDir.length === 0) bad("dataDir is required");
  if (options.demo && options.cluster !== "localnet") bad("demo seeding is for localnet only");
  const soPath = options.lendingSoPath;
  if (typeof soPath !== "string" || !existsSync(soPath) || !statSync(soPath).isFile()) {
    throw new BootstrapError(
      BOOTSTRAP_ERROR.PROGRAM_FILE_MISSING,
      `lending program file not found: ${String(soPath)} (build it with npm run build:programs)`,
    );
  }
  const bytes = new Uint8Array(readFileSync(soPath));
  if (bytes.length < 4 || bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[2] !== 0x4c || bytes[3] !== 0x46) {
    throw new BootstrapError(BOOTSTRAP_ERROR.PROGRAM_FILE_MISSING, `${soPath} is not an ELF program (.so)`);
  }
  return bytes;
}

/**
 * Brings a cluster to a usable Cistern state, idempotently (a second run sends no transaction):
 * keys in `<dataDir>/keys/` (generated once, mode 0600; on localnet the admin is funded with the admin
 * faucet RPC), the lending program deployed or upgraded in place when the .so changed, the config
 * initialized (admin, oracle, treasury, 2000 bps) or its oracle / treasury rotated, the treasury's fee
 * token accounts, demo lenders with banks and pools on localnet when `demo`, and `<dataDir>/cluster.json`.
 * Everything goes through signed transactions over the RPC. Bad input fails before anything is written.
 */
export async function bootstrapCluster(options: BootstrapClusterOptions): Promise<BootstrapClusterResult> {
  const log = options.log ?? (() => {});
  const programBytes = assertOptions(options);
  // the lending program's id is its key file's, read below: failures name lending errors from then on
  let lendingProgramId: Address | undefined;
  const chain: ChainClient = createChainClient({
    rpcUrl: options.rpcUrl,
    wsUrl: options.wsUrl,
    cluster: options.cluster,
    lendingProgramId: () => lendingProgramId,
  });
  await chain.assertReachable();
  if (options.demo) await assertDemoMints(chain);

  const dataDir = resolve(options.dataDir);
  mkdirSync(getKeysDir(dataDir), { recursive: true, mode: 0o700 });
  const keys = await loadOrCreateClusterKeys(dataDir);
  lendingProgramId = keys.program.address;
  log(`admin ${keys.admin.address}, oracle ${keys.oracle.address}, treasury ${keys.treasury.address}`);

  if (options.cluster === "localnet") {
    await ensureLocalnetLamports(
      chain,
      keys.admin.address,
      LOCALNET_ADMIN_MIN_LAMPORTS,
      LOCALNET_ADMIN_TOP_UP_LAMPORTS,
    );
  }

  const program = await ensureLendingProgram({
    chain,
    programBytes,
    program: keys.program,
    admin: keys.admin,
  });
  log(`lending program ${keys.program.address}: ${program.action}`);

  const config = await ensureProgramConfig({
    chain,
    programAddress: keys.program.address,
    admin: keys.admin,
    oracle: keys.oracle.address,
    treasury: keys.treasury.address,
  });
  log(`config: ${config.action}`);

  const treasuryTokenAccounts = await ensureTreasuryTokenAccounts({
    chain,
    admin: keys.admin,
    treasury: keys.treasury.address,
  });

  let swapVenue: SwapVenueResult | undefined;
  if (options.swapVenueSoPath !== undefined) {
    swapVenue = await ensureSwapVenue({
      chain,
      dataDir,
      admin: keys.admin,
      lendingProgramId: keys.program.address,
      soPath: options.swapVenueSoPath,
      demo: options.demo === true,
    });
    const seeded = swapVenue.pools.filter((p) => p.action !== "unchanged").length;
    log(
      `swap venue ${swapVenue.programId}: ${swapVenue.programAction}, ${swapVenue.venuesAction}; ${seeded} pools seeded`,
    );
  }

  let lendingVenue: LendingVenueResult | undefined;
  if (options.lendingVenueSoPath !== undefined) {
    lendingVenue = await ensureLendingVenue({
      chain,
      dataDir,
      admin: keys.admin,
      lendingProgramId: keys.program.address,
      soPath: options.lendingVenueSoPath,
      demo: options.demo === true,
      // the demo localnet's lending venue is marginfi (pinned below); the local venue stays deployed, unpinned
      pin: !(options.demo === true && options.cluster === "localnet"),
    });
    const created = lendingVenue.reserves.filter((r) => r.action === "created").length;
    log(
      `lending venue ${lendingVenue.programId}: ${lendingVenue.programAction}, ${lendingVenue.venuesAction}; ${created} reserves created`,
    );
  }

  let nftMarket: NftMarketResult | undefined;
  if (options.nftMarketSoPath !== undefined) {
    nftMarket = await ensureNftMarket({
      chain,
      dataDir,
      admin: keys.admin,
      lendingProgramId: keys.program.address,
      soPath: options.nftMarketSoPath,
      demo: options.demo === true,
    });
    log(
      `NFT market ${nftMarket.programId}: ${nftMarket.programAction}, ${nftMarket.venuesAction}; ${nftMarket.listings} listings and ${nftMarket.bids} bids seeded`,
    );
  }

  let marginfi: MarginfiResult | undefined;
  if (options.demo && options.cluster === "localnet") {
    marginfi = await ensureMarginfi({
      chain,
      dataDir,
      admin: keys.admin,
      demo: true,
      lendingProgramId: keys.program.address,
    });
    log(
      `marginfi group ${marginfi.group}: ${marginfi.groupAction}; banks ${marginfi.banks.map((b) => `${b.symbol} ${b.bank} ${b.action}`).join(", ")}`,
    );
  }

  let demo: DemoSeedResult | undefined;
  if (options.demo) {
    demo = await seedDemoLenders({ chain, programAddress: keys.program.address, dataDir });
    const created = demo.lenders.flatMap((l) => l.pools).filter((p) => p.action === "created").length;
    log(`demo: ${demo.lenders.length} lenders, ${created} pools created`);
  }

  const clusterInfo: ClusterInfo = {
    lendingProgramId: keys.program.address,
    admin: keys.admin.address,
    oracle: keys.oracle.address,
    treasury: keys.treasury.address,
    rpcUrl: options.rpcUrl,
    wsUrl: options.wsUrl,
    cluster: options.cluster,
  };
  writeClusterInfo(dataDir, clusterInfo);
  return {
    lendingProgramId: keys.program.address,
    adminAddress: keys.admin.address,
    oracleAddress: keys.oracle.address,
    treasuryAddress: keys.treasury.address,
    cluster: options.cluster,
    programAction: program.action,
    configAction: config.action,
    treasuryTokenAccounts,
    clusterInfo,
    clusterInfoPath: resolve(dataDir, "cluster.json"),
    ...(demo ? { demo } : {}),
    ...(swapVenue ? { swapVenue } : {}),
    ...(lendingVenue ? { lendingVenue } : {}),
    ...(nftMarket ? { nftMarket } : {}),
    ...(marginfi ? { marginfi } : {}),
  };
}
