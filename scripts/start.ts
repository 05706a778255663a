// `npm start`: the whole product on the embedded default, in one process tree:
// localnet (JSON-RPC + PubSub over LiteSVM) -> bootstrap (deploy the lending program, config, demo lenders)
// -> API (read side, indexer, price feed, loan calculator, builder, sender) -> web app server.
// Flags: --reset (fresh chain and database), --data-dir DIR (default ./.data), --no-build (reuse apps/web/dist),
// --api-processes N (N API processes over one PostgreSQL: needs DATABASE_URL; the extra ones on API_PORT+1...),
// --no-web (SOLANA_CLUSTER=devnet|mainnet only: the API alone, no web build or server).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bootstrapCluster, publishDemoPoolMetadata } from "@cistern/bootstrap";
import { startLocalnet } from "@cistern/localnet";
import { loadConfig, startApi } from "../apps/api/src/index.ts";
import { startWebServer } from "../apps/web/server.ts";
import { getRuntimeConfigFromEnv, parseRuntimeConfig } from "../apps/web/src/config/runtime-config.ts";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

interface StartFlags {
  reset: boolean;
  build: boolean;
  dataDir: string;
  rpcPort: number;
  apiPort: number;
  webPort: number;
  apiProcesses: number;
  web: boolean;
}

function parseFlags(argv: string[]): StartFlags {
  const flags: StartFlags = {
    reset: false,
    build: true,
    dataDir: resolve(process.env.DATA_DIR ?? ".data"),
    rpcPort: Number(process.env.RPC_PORT ?? 8899),
    apiPort: Number(process.env.API_PORT ?? 3001),
    webPort: Number(process.env.WEB_PORT ?? 3000),
    apiProcesses: 1,
    web: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--reset") flags.reset = true;
    else if (arg === "--no-build") flags.build = false;
    else if (arg === "--no-web") flags.web = false;
    else if (arg === "--data-dir" && argv[i + 1] !== undefined) flags.dataDir = resolve(argv[++i] as string);
    else if (arg === "--api-processes" && /^[1-9]\d?$/.test(argv[i + 1] ?? ""))
      flags.apiProcesses = Number(argv[++i]);
    else
      throw new Error(
        `unknown flag '${arg}' (known: --reset, --no-build, --no-web, --data-dir DIR, --api-processes N with N from 1 to 99)`,
      );
  }
  return flags;
}

function buildWeb(): void {
  console.log("building the web app (vite build)...");
  const build = spawnSync("npx", ["vite", "build", "--logLevel", "warn"], {
    cwd: join(repoRoot, "apps/web"),
    stdio: "inherit",
  });
  if (build.status !== 0) throw new Error("web build failed");
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  if (flags.apiProcesses > 1 && !process.env.DATABASE_URL)
    throw new Error(
      "--api-processes needs DATABASE_URL: the embedded PGlite database belongs to one process",
    );
  const target = process.env.SOLANA_CLUSTER ?? "localnet";
  if (!flags.web && target === "localnet")
    throw new Error("--no-web is for SOLANA_CLUSTER=devnet or mainnet");
  if (flags.web && (flags.build || !existsSync(join(repoRoot, "apps/web/dist/index.html")))) buildWeb();
  if (target !== "localnet") return startOnCluster(flags, target);

  // A fresh chain needs a fresh index: the embedded database lives in <dataDir>/pglite.
  if (flags.reset) rmSync(join(flags.dataDir, "pglite"), { recursive: true, force: true });

  const localnet = await startLocalnet({
    rpcPort: flags.rpcPort,
    dataDir: join(flags.dataDir, "localnet"),
    reset: flags.reset,
    seed: true,
  });
  const cluster = await bootstrapCluster({
    rpcUrl: localnet.rpcUrl,
    wsUrl: localnet.wsUrl,
    dataDir: flags.dataDir,
    cluster: "localnet",
    lendingSoPath: join(repoRoot, "programs/lending/build/lending.so"),
    swapVenueSoPath: join(repoRoot, "programs/swap-venue/build/swap-venue.so"),
    lendingVenueSoPath: join(repoRoot, "programs/lending-venue/build/lending-venue.so"),
    nftMarketSoPath: join(repoRoot, "programs/nft-market/build/nft-market.so"),
    demo: true,
  });
  // The demo rule set lets only the programs it lists be delegated or receive the demo pNFTs: the lending program,
  // so loans against them (delegate + lock, and the default's transfer) pass it, and the NFT market, whose listings
  // hold pNFTs and whose bids take them (#32; the bootstrap set the same before the market maker listed).
  await localnet.setDemoRuleSetPrograms([
    cluster.lendingProgramId,
    ...(cluster.nftMarket ? [cluster.nftMarket.programId] : []),
  ]);

  // The demo's lending venue is marginfi v2 (group and banks made by the bootstrap): the API reads and builds for it.
  const marginfiEnv: Record<string, string> = cluster.marginfi
    ? {
        MARGINFI_GROUP: cluster.marginfi.group,
        MARGINFI_BANKS: cluster.marginfi.banks.map((b) => `${b.mint}:${b.bank}`).join(","),
      }
    : {};
  const apiConfig = loadConfig({
    // Short readable lines on the console; request lines only with LOG_LEVEL=debug.
    LOG_FORMAT: "pretty",
    ...marginfiEnv,
    ...process.env,
    API_PORT: String(flags.apiPort),
    SOLANA_RPC_URL: localnet.rpcUrl,
    SOLANA_WS_URL: localnet.wsUrl,
    SOLANA_CLUSTER: "localnet",
    DATA_DIR: flags.dataDir,
    LENDING_PROGRAM_ID: cluster.lendingProgramId,
  });
  const api = await startApi(apiConfig);
  // More API processes over the same PostgreSQL: any of them serves any request (a load balancer in front
  // spreads them); one indexer and one keeper lead through advisory locks and hand over when their process dies.
  const extraApis: ChildProcess[] = [];
  for (let i = 1; i < flags.apiProcesses; i++) {
    const child = spawn(process.execPath, ["--import", "tsx", join(repoRoot, "apps/api/src/main.ts")], {
      cwd: join(repoRoot, "apps/api"),
      stdio: "inherit",
      env: {
        LOG_FORMAT: "pretty",
        ...marginfiEnv,
        ...process.env,
        API_PORT: String(flags.apiPort + i),
        SOLANA_RPC_URL: localnet.rpcUrl,
        SOLANA_WS_URL: localnet.wsUrl,
        SOLANA_CLUSTER: "localnet",
        DATA_DIR: flags.dataDir,
        LENDING_PROGRAM_ID: cluster.lendingProgramId,
      },
    });
    extraApis.push(child);
  }
  // Demo pool names and thumbnails are off-chain metadata: published through the API's signed write route.
  const names = cluster.demo
    ? await publishDemoPoolMetadata({ apiUrl: api.url, dataDir: flags.dataDir, demo: cluster.demo }).then(
        (r) => `demo pool names: ${r.posted} published, ${r.pools.length - r.posted} already set`,
        (e: unknown) => `warning: demo pool names not published: ${e instanceof Error ? e.message : e}`,
      )
    : "demo pool names: no demo pools";
  console.log(names);

  const web = await startWebServer({
    port: flags.webPort,
    distDir: join(repoRoot, "apps/web/dist"),
    config: parseRuntimeConfig({
      apiUrl: api.url,
      rpcUrl: localnet.rpcUrl,
      cluster: "localnet",
      supportUrl: process.env.SUPPORT_URL,
      // ?referral=cistern credits the protocol treasury, ?referral=founders the admin wallet (both keys in
      // the data dir); CISTERN_WEB_REFERRAL_NAMES adds or replaces names
      referralNames: {
        cistern: cluster.treasuryAddress,
        founders: cluster.adminAddress,
        ...getRuntimeConfigFromEnv(process.env).referralNames,
      },
    }),
  });

  console.log(`
Cistern is running on the embedded default (localnet).
  web app         ${web.url}
  API             ${api.url}   (docs: ${api.url}/docs)${extraApis.map((_, i) => `\n  API process ${i + 2}   http://${apiConfig.host}:${flags.apiPort + i + 1}`).join("")}
  Solana RPC      ${localnet.rpcUrl}
  Solana PubSub   ${localnet.wsUrl}
  lending program ${cluster.lendingProgramId}
  data directory  ${flags.dataDir}
Open the web app, choose "Development wallet" in Connect Wallet, and fund it from the faucet. Ctrl+C stops.`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("\nstopping...");
    await web.close();
    for (const child of extraApis) child.kill("SIGTERM");
    await api.close();
    await localnet.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/**
 * `SOLANA_CLUSTER=devnet` (or mainnet): the API and the web app against the given RPC and the deployed program,
 * without a localnet, its faucet or the development wallet. Needs SOLANA_RPC_URL, LENDING_PROGRAM_ID and the
 * oracle's key file (ORACLE_KEYPAIR_PATH; never generated off localnet).
 */
async function startOnCluster(flags: StartFlags, cluster: string): Promise<void> {
  for (const name of ["SOLANA_RPC_URL", "LENDING_PROGRAM_ID"])
    if (!process.env[name]) throw new Error(`SOLANA_CLUSTER=${cluster} needs ${name}`);
  const apiConfig = loadConfig({
    LOG_FORMAT: "pretty",
    ...process.env,
    API_PORT: String(flags.apiPort),
    DATA_DIR: flags.dataDir,
  });
  const api = await startApi(apiConfig);
  const web = flags.web
    ? await startWebServer({
        port: flags.webPort,
        distDir: join(repoRoot, "apps/web/dist"),
        config: parseRuntimeConfig({
          apiUrl: process.env.CISTERN_WEB_API_URL ?? api.url,
          rpcUrl: apiConfig.solanaRpcUrl,
          cluster,
          supportUrl: process.env.SUPPORT_URL,
          referralNames: getRuntimeConfigFromEnv(process.env).referralNames,
        }),
      })
    : null;
  // the catalogue of collections and tokens this deployment lends against, valued by the production sources
  const { valuation } = apiConfig;
  console.log(`
Cistern is running against ${cluster} (no localnet, no development wallet).
  web app         ${web?.url ?? "off (--no-web)"}
  API             ${api.url}   (docs: ${api.url}/docs)
  Solana RPC      ${apiConfig.solanaRpcUrl}
  lending program ${apiConfig.lendingProgramId}
  catalogue       ${valuation.catalogFile ?? `apps/api/src/catalog/catalogs/${cluster}.json`}
  prices          ${valuation.tokenSource === "pyth" ? `Pyth ${valuation.hermesUrl}` : "local swap pools"}, collections ${valuation.collectionSource === "marketplaces" ? `Magic Eden ${valuation.magicEdenApiUrl} + Tensor ${valuation.tensorApiUrl}` : "local NFT market"}
Ctrl+C stops.`);
  const stop = async () => {
    await web?.close();
    await api.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
