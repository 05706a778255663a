import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { getPriorityFeeOptions } from "@cistern/protocol";
import { getInitializeConfigInstruction } from "@cistern/sdk";
import {
  createKeyPairSignerFromBytes,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
} from "@solana/kit";
import type { FastifyInstance } from "fastify";
import {
  createChainClient,
  ensureLendingVenue,
  ensureMarginfi,
  ensureNftMarket,
  ensureSwapVenue,
  type MarginfiResult,
  pinMarginfi,
} from "../../../packages/bootstrap/src/index.ts";
import { startChatTimeline } from "../../api/src/chat/chat-timeline.ts";
import { createApp, createIndexer, loadConfig } from "../../api/src/index.ts";
import { registerTxRoutes, type TxContext } from "../../api/src/tx/index.ts";
import { createLiquidationKeeper, type KeeperRound } from "../../api/src/tx/keeper/liquidation-keeper.ts";
import type { ValuationSources } from "../../api/src/valuation/valuation-sources.ts";
import { startWebServer, type WebServer } from "../server.ts";
import { parseRuntimeConfig } from "../src/config/runtime-config.ts";
import { buildWebApp, makeTempDir, removeDir, WEB_ROOT } from "./harness.ts";

const LENDING_SO = resolve(WEB_ROOT, "../../programs/lending/build/lending.so");
const SWAP_VENUE_SO = resolve(WEB_ROOT, "../../programs/swap-venue/build/swap-venue.so");
const LENDING_VENUE_SO = resolve(WEB_ROOT, "../../programs/lending-venue/build/lending-venue.so");
const NFT_MARKET_SO = resolve(WEB_ROOT, "../../programs/nft-market/build/nft-market.so");

/** Localnet with the lending program, the API (read + write path, indexer on) and the web app. */
export interface Stack {
  localnet: LocalnetHandle;
  api: FastifyInstance;
  apiUrl: string;
  webUrl: string;
  programId: string;
  /** The API's write side (builder, sender, chain state). */
  tx: TxContext;
  /**
   * One round of the API's liquidation keeper (on by default with `npm start` on the localnet, every 15 s; the
   * journeys run a round when they need it): liquidates every loan past expiry + grace to its pool owner.
   */
  runKeeperRound(): Promise<KeeperRound>;
  /** marginfi's group and banks when the stack was started with `lendingVenue: "marginfi"`. */
  marginfi?: MarginfiResult;
  close(): Promise<void>;
}

/** JSON-RPC call to localnet (admin methods included). */
export async function rpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** The journeys' slot time: short, so the suite runs quickly. */
export const JOURNEY_SLOT_MS = 100;

/**
 * Builds the web app, starts localnet with the lending program, the API with its write path and
 * indexer, initialises the program config (oracle = the API's oracle key) and serves the web app.
 * `slotMs` undefined runs the localnet at its own slot time (400 ms, as `npm start`): what a benchmark of the
 * user's wait needs.
 */
export async function startStack(options: {
  slotMs: number | undefined;
  /** Extra API environment (e.g. CATALOG_FILE). */
  env?: Record<string, string>;
  /** Where prices and collection values come from (default: the chain's market and pools, as `npm start`). */
  valuationSources?: ValuationSources;
  /**
   * The pinned lending venue: the local lending venue (default), or marginfi v2 as `npm start` pins it (the
   * bootstrap's group and USDC / SOL banks with their demo market, the API given MARGINFI_GROUP / MARGINFI_BANKS).
   */
  lendingVenue?: "local" | "marginfi";
}): Promise<Stack> {
  const root = await makeTempDir("cistern-web-stack-");
  const buildDir = join(root, "dist");
  await buildWebApp(buildDir, "journeys-build");
  const localnet = await startLocalnet({
    rpcPort: 0,
    dataDir: join(root, "chain"),
    slotMs: options.slotMs,
    programs: [{ soPath: LENDING_SO }],
  });
  const programId = localnet.programs[0]!.programId;
  const admin = await createKeyPairSignerFromBytes(
    Uint8Array.from(JSON.parse(await readFile(localnet.faucetKeypairPath, "utf8")) as number[]),
  );
  const chain = createChainClient({
    rpcUrl: localnet.rpcUrl,
    wsUrl: localnet.wsUrl,
    cluster: "localnet",
  });
  // marginfi's group and banks are made before the API starts (it reads them from its environment, as with
  // `npm start`); the lending program pins them once its config exists, below
  const marginfi =
    options.lendingVenue === "marginfi"
      ? await ensureMarginfi({ chain, dataDir: root, admin, demo: true })
      : undefined;
  const marginfiEnv: Record<string, string> = marginfi
    ? {
        MARGINFI_GROUP: marginfi.group,
        MARGINFI_BANKS: marginfi.banks.map((b) => `${b.mint}:${b.bank}`).join(","),
      }
    : {};
  const env = {
    LOG_LEVEL: "silent",
    DATA_DIR: join(root, "api"),
    SOLANA_RPC_URL: localnet.rpcUrl,
    LENDING_PROGRAM_ID: programId,
    INDEXER_RECONCILE_MS: "1000",
    TX_REBROADCAST_MS: "500",
    ...marginfiEnv,
    ...options.env,
  };
  const config = loadConfig(env);
  const api = await createApp(
    config,
    options.valuationSources ? { valuationSources: options.valuationSources } : {},
  );
  const tx = await registerTxRoutes(api, { env });
  const ctx = api.cistern;
  ctx.prices.start();
  const indexer = createIndexer({
    db: ctx.db,
    rpc: ctx.rpc,
    wsUrl: config.solanaWsUrl,
    programId,
    reconcileIntervalMs: config.reconcileIntervalMs,
    log: api.log,
    now: ctx.now,
  });
  api.addHook("onClose", async () => indexer.stop());
  await indexer.start();
  startChatTimeline(api, 1000);
  const apiUrl = await api.listen({ host: "127.0.0.1", port: 0 });

  // Program config: the faucet (the program's upgrade authority) is the admin, the API's oracle
  // co-signs loans, fees go to a fresh treasury.
  const init = await getInitializeConfigInstruction({
    programAddress: programId as never,
    admin: admin.address,
    oracle: tx.oracle.address,
    treasury: (await generateKeyPairSigner()).address,
    protocolFeeBps: 2000,
  });
  const built = await tx.factory.build({
    feePayer: admin.address,
    groups: [[init]],
    options: getPriorityFeeOptions(),
    needsOracle: false,
  });
  const decoded = getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64"));
  const signed = getBase64EncodedWireTransaction(await partiallySignTransaction([admin.keyPair], decoded));
  const sent = await fetch(`${apiUrl}/send-transaction`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ transaction: signed, blockHeight: built.lastValidBlockHeight }),
  });
  const sentBody = (await sent.json()) as { result?: string | null };
  if (!sent.ok || !sentBody.result)
    throw new Error(`config initialisation failed: ${JSON.stringify(sentBody)}`);
  // The local swap venue, as npm start has it: deployed, pinned, its demo pairs seeded at the demo prices.
  await ensureSwapVenue({
    chain,
    dataDir: root,
    admin,
    lendingProgramId: programId as never,
    soPath: SWAP_VENUE_SO,
    demo: true,
  });
  // and the local lending venue with its USDC and SOL reserves (deployed, not pinned, when marginfi is the venue)
  await ensureLendingVenue({
    chain,
    dataDir: root,
    admin,
    lendingProgramId: programId as never,
    soPath: LENDING_VENUE_SO,
    demo: true,
    pin: marginfi === undefined,
  });
  // and the local NFT market with the demo market maker's listings and bids
  await ensureNftMarket({
    chain,
    dataDir: root,
    admin,
    lendingProgramId: programId as never,
    soPath: NFT_MARKET_SO,
    demo: true,
  });
  if (marginfi) marginfi.venuesAction = await pinMarginfi(chain, admin, programId as never, marginfi.group);
  // the API started before the venues were seeded: it values from the seeded market and pools now, as `npm start`
  // (which seeds before the API starts) does from its first request
  await ctx.prices.refresh();

  let web: WebServer | undefined;
  try {
    web = await startWebServer({
      port: 0,
      distDir: buildDir,
      config: parseRuntimeConfig({ apiUrl, rpcUrl: localnet.rpcUrl, cluster: "localnet" }),
    });
  } catch (error) {
    await api.close();
    await localnet.close();
    throw error;
  }
  // the liquidation keeper, as `npm start` runs it: its own fee payer, funded by the localnet
  const keeperSigner = await generateKeyPairSigner();
  await localnet.fundWallet(keeperSigner.address, { lamports: 2_000_000_000n });
  const keeper = createLiquidationKeeper(tx, keeperSigner, api.log);
  return {
    localnet,
    api,
    apiUrl,
    webUrl: web.url,
    programId,
    tx,
    runKeeperRound: () => keeper.runRound(),
    ...(marginfi ? { marginfi } : {}),
    async close() {
      await web?.close();
      await api.close();
      await localnet.close();
      await removeDir(root);
    },
  };
}
