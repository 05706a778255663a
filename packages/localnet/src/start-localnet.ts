import type { Server } from "node:http";
import { join } from "node:path";
import { Chain } from "./chain.ts";
import { getDemoAddress } from "./demo-address.ts";
import {
  ensureFaucetReserve,
  ensureJitoTipAccounts,
  runSeedSteps,
  type SeedStep,
  seedDemoWorld,
} from "./demo-seed.ts";
import { DEMO_WORLD, type DemoWorld } from "./demo-world.ts";
import { createRpcHttpServer } from "./http-server.ts";
import { loadOrCreateKeypair } from "./keypair.ts";
import {
  ensureMarginfiFeeState,
  type MarginfiOracleFeed,
  startMarginfiOracleFeed,
} from "./marginfi/index.ts";
import { type DeployedProgram, deployLocalnetPrograms } from "./program-deploy.ts";
import { PubSub } from "./pubsub.ts";
import type { RpcContext } from "./rpc/context.ts";
import { airdrop } from "./rpc/transaction-methods.ts";
import { type FaucetResult, WorldAdmin } from "./world-admin.ts";

/** A program to deploy at start. */
export interface LocalnetProgram {
  /** Expected program id; when omitted a program keypair is generated into the data dir. */
  programId?: string;
  soPath: string;
}

/** Options of {@link startLocalnet}. */
export interface StartLocalnetOptions {
  /** HTTP JSON-RPC port (0 = random; default 8899). */
  rpcPort?: number;
  /** PubSub port (default rpcPort + 1; PubSub is also served on the HTTP port). */
  wsPort?: number;
  /** Where the snapshot, ledger and keypairs live. */
  dataDir: string;
  /** Start from an empty chain (keypair files are kept so program ids stay stable). */
  reset?: boolean;
  /** Seed the demo world (default true); pass `{ steps }` to run extra idempotent seeding steps too. */
  seed?: boolean | { steps?: SeedStep[] };
  /** Slot duration in milliseconds (default 400). */
  slotMs?: number;
  programs?: LocalnetProgram[];
  /** Serve the `localnet_` admin methods (default true; turn off for any non-local configuration). */
  admin?: boolean;
  /** Bind address (default 127.0.0.1). */
  host?: string;
  /** getRecentPerformanceSamples period in seconds (default 60, as agave; shorter in tests). */
  samplePeriodSeconds?: number;
  /** Newest transactions kept for history reads (default 50,000; older ones are forgotten, as by a validator). */
  historyTransactions?: number;
  /** Ledger lines between compactions (default 20,000; a compaction runs with the next periodic snapshot). */
  compactAfterEntries?: number;
  /**
   * Shortest wall time a blockhash stays valid (default 60,000: web3.js v1 reuses a blockhash for up to 30 s);
   * never fewer than 150 blocks. Tests of expiry pass 0: 150 blocks.
   */
  blockhashMinValidityMs?: number;
}

/** A running localnet. */
export interface LocalnetHandle {
  rpcUrl: string;
  wsUrl: string;
  rpcPort: number;
  wsPort: number;
  dataDir: string;
  /** Address of the faucet keypair (mint authority of the demo tokens). */
  faucetAddress: string;
  /** Path of the faucet keypair file in the data dir. */
  faucetKeypairPath: string;
  /** Programs deployed at start, with what happened to each. */
  programs: DeployedProgram[];
  /** Moves the clock forward by `seconds`; resolves with the new unix timestamp. */
  advanceClock(seconds: number): Promise<number>;
  /** Overwrites an account. */
  setAccount(
    address: string,
    account: { lamports: bigint; data?: Uint8Array; owner?: string; executable?: boolean },
  ): Promise<void>;
  /** Gives a wallet lamports and tokens (base units). */
  fundWallet(
    address: string,
    req: { lamports?: bigint; tokens?: { mint: string; amount: bigint }[] },
  ): Promise<void>;
  /** SOL, USDC, demo tokens and demo NFTs for a wallet. */
  faucet(address: string): Promise<FaucetResult>;
  /**
   * Sets the programs the demo pNFTs' rule set allows (to hold, receive or be delegated them), by a real
   * CreateOrUpdate of Token Auth Rules signed by the faucet (the rule set's owner); any other program is refused.
   */
  setDemoRuleSetPrograms(programs: string[]): Promise<void>;
  /** Real signed SOL transfer from the faucet; resolves with the signature once durable. */
  airdrop(address: string, lamports: bigint): Promise<string>;
  demoWorld(): DemoWorld;
  /** The Pyth price accounts marginfi reads, which the localnet posts every few slots (src/marginfi). */
  marginfiOracles: MarginfiOracleFeed;
  /** Writes a snapshot now. */
  snapshot(): Promise<void>;
  /** Stops serving, snapshots and closes the ledger. */
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const a = server.address();
      resolve(typeof a === "object" && a ? a.port : port);
    });
  });
}

/**
 * Starts an embedded Solana cluster on LiteSVM: JSON-RPC over HTTP, PubSub over websockets,
 * persistent state in `dataDir`, the demo world seeded, programs deployed.
 */
export async function startLocalnet(opts: StartLocalnetOptions): Promise<LocalnetHandle> {
  const host = opts.host ?? "127.0.0.1";
  const chain = new Chain({
    dataDir: opts.dataDir,
    reset: opts.reset,
    slotMs: opts.slotMs,
    samplePeriodSeconds: opts.samplePeriodSeconds,
    historyTransactions: opts.historyTransactions,
    compactAfterEntries: opts.compactAfterEntries,
    blockhashMinValidityMs: opts.blockhashMinValidityMs,
  });
  const faucetKeypairPath = join(opts.dataDir, "faucet-keypair.json");
  const faucet = loadOrCreateKeypair(faucetKeypairPath);
  const admin = new WorldAdmin(chain, faucet);
  const ctx: RpcContext = {
    chain,
    faucet,
    identity: getDemoAddress("validator-identity"),
    adminEnabled: opts.admin ?? true,
    admin,
  };
  const server = createRpcHttpServer(ctx);
  const pubsub = new PubSub(chain);
  pubsub.attach(server);
  let rpcPort = 0;
  let wsPort = 0;
  try {
    const wantRpc = opts.rpcPort ?? 8899;
    if (opts.wsPort !== undefined) {
      rpcPort = await listen(server, host, wantRpc);
      wsPort = await pubsub.listen(host, opts.wsPort);
    } else if (wantRpc !== 0) {
      rpcPort = await listen(server, host, wantRpc);
      wsPort = await pubsub.listen(host, rpcPort + 1);
    } else {
      // Random ports: find a pair (N, N+1) so that clients deriving "RPC port + 1" (web3.js) reach us.
      for (let attempt = 1; ; attempt++) {
        rpcPort = await listen(server, host, 0);
        try {
          wsPort = await pubsub.listen(host, rpcPort + 1);
          break;
        } catch (e) {
          await new Promise<void>((resolve) => server.close(() => resolve()));
          if (attempt >= 50) throw e;
        }
      }
    }
  } catch (e) {
    server.close();
    await pubsub.close();
    await chain.close();
    throw e;
  }
  server.on("error", (e) => console.error(`localnet: http server error: ${e}`));
  chain.start();
  const rpcUrl = `http://${host}:${rpcPort}`;
  const wsUrl = `ws://${host}:${wsPort}`;
  const programs: DeployedProgram[] = [];
  const marginfiOracles = startMarginfiOracleFeed(admin);

  let closed = false;
  const handle: LocalnetHandle = {
    rpcUrl,
    wsUrl,
    rpcPort,
    wsPort,
    dataDir: opts.dataDir,
    faucetAddress: faucet.address,
    faucetKeypairPath,
    programs,
    advanceClock: (seconds) => admin.advanceClock(seconds),
    setAccount: (address, a) =>
      admin.setAccount(address, {
        lamports: a.lamports,
        data: a.data ?? new Uint8Array(),
        owner: a.owner ?? "11111111111111111111111111111111",
        executable: a.executable ?? false,
      }),
    fundWallet: (address, req) => admin.fundWallet(address, req),
    faucet: (address) => admin.faucet(address),
    setDemoRuleSetPrograms: (programs) => admin.setDemoRuleSetPrograms(programs),
    airdrop: async (address, lamports) => airdrop(ctx, address, lamports),
    demoWorld: () => DEMO_WORLD,
    marginfiOracles,
    snapshot: () => chain.snapshot(),
    close: async () => {
      if (closed) return;
      closed = true;
      marginfiOracles.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pubsub.close();
      await chain.close();
    },
  };
  try {
    await ensureFaucetReserve(admin);
    await ensureJitoTipAccounts(admin);
    await ensureMarginfiFeeState(admin);
    await marginfiOracles.refreshIfDue();
    if (opts.seed !== false) {
      await seedDemoWorld(admin);
    }
    programs.push(
      ...(await deployLocalnetPrograms({
        chain,
        rpcUrl,
        wsUrl,
        dataDir: opts.dataDir,
        payer: faucet,
        programs: opts.programs ?? [],
      })),
    );
    // The loader makes a new or upgraded program callable from the next slot.
    if (programs.some((p) => p.action !== "unchanged")) chain.advanceSlot();
    const steps = typeof opts.seed === "object" ? (opts.seed.steps ?? []) : [];
    if (steps.length > 0) await runSeedSteps(steps, { rpcUrl, wsUrl, admin, programs });
    await chain.snapshot();
  } catch (e) {
    await handle.close();
    throw e;
  }
  return handle;
}
