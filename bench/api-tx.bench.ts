// Write-path benchmark: POST /nft/quote and /defi/quote at 1,000 req/s and /defi/take-loan building at
// 500 req/s (open loop, keep-alive, loopback). The localnet (lending program deployed, config initialised,
// 6 nft-pools + 3 defi-pools) runs in its own child process, the load generator in another, the API here and, as
// production scales out, with API_TX_PROCESSES=N in N - 1 more processes over one PostgreSQL database
// (API_TX_POSTGRES_URL, the machine's server by default; the load spread over the processes in turn, as a load
// balancer would). By default (or without a reachable PostgreSQL) one process over the embedded PGlite: on this
// 2-core machine two processes over PostgreSQL cost more CPU per build (1.58 vs 1.28-1.37 ms) and answered slower.
// Targets: quote p99 <= 10 ms at 1,000 req/s; build p99 <= 25 ms at 500 req/s.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_WORLD, getAssociatedTokenAddress, startLocalnet } from "@cistern/localnet";
import { getPriorityFeeOptions } from "@cistern/protocol";
import {
  decodeSwapPool,
  findBankPda,
  getAddSwapLiquidityInstruction,
  getInitializeConfigInstruction,
  getInitializeSwapPoolInstruction,
  getSetVenuesInstruction,
  readKeypairFile,
} from "@cistern/sdk";
import {
  type Address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { createApp } from "../apps/api/src/app.ts";
import { loadConfig } from "../apps/api/src/config/config.ts";
import type { Database } from "../apps/api/src/db/database.ts";
import { runMigrations } from "../apps/api/src/db/migrate.ts";
import { getPgliteStats, openPgliteDatabase } from "../apps/api/src/db/pglite-database.ts";
import { openPostgresDatabase } from "../apps/api/src/db/postgres-database.ts";
import { getPostJsonCount } from "../apps/api/src/http/post-json.ts";
import { registerTxRoutes } from "../apps/api/src/tx/index.ts";
import { createLoadClient } from "./load-client.ts";
import { assertOneSuccess, createVerdict } from "./verdict.ts";

const SELF = fileURLToPath(import.meta.url);
const SO_PATH = resolve(SELF, "../../programs/lending/build/lending.so");
const SWAP_VENUE_SO_PATH = resolve(SELF, "../../programs/swap-venue/build/swap-venue.so");
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const JTO = DEMO_WORLD.tokens.find((t) => t.symbol === "JTO")!.mint;
const DAY = 86_400;

interface Job {
  name: string;
  /** The path (and query) asked of every API process in turn. */
  url: string;
  /** POST with this JSON body; GET when absent. */
  body?: string;
  rate: number;
  seconds: number;
}
interface JobResult {
  name: string;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests sent, the warm-up's included (what the API's CPU time below is divided by). */
  sent: number;
  firstError?: string;
}
/** The load generator's marks around each job, so the API process can read its own CPU time for it. */
interface JobMark {
  mark: "start" | "end";
  name: string;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Child: open-loop load (requests start on schedule whatever the latency). */
async function loadGenerator(jobs: Job[], bases: string[]): Promise<JobResult[]> {
  const client = createLoadClient(256);
  let turn = 0;
  const results: JobResult[] = [];
  for (const job of jobs) {
    process.send!({ mark: "start", name: job.name } satisfies JobMark);
    const latencies: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    const hit = async () => {
      const started = performance.now();
      const answer = await client.send(`${bases[turn++ % bases.length]}${job.url}`, job.body);
      latencies.push(performance.now() - started);
      if (answer.status < 200 || answer.status >= 300) {
        errors++;
        firstError ??= `${answer.status} ${answer.failure}`;
      }
    };
    // Warm-up: two seconds at the full rate, not measured (JIT, caches, first catalogue and price load).
    for (let i = 0; i < job.rate * 2; i++) {
      void hit();
      await new Promise((r) => setTimeout(r, 1000 / job.rate));
    }
    await new Promise((r) => setTimeout(r, 500));
    latencies.length = 0;
    errors = 0;
    firstError = undefined;
    const total = job.rate * job.seconds;
    const interval = 1000 / job.rate;
    const start = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      pending.push(hit());
    }
    await Promise.all(pending);
    const elapsed = (performance.now() - start) / 1000;
    process.send!({ mark: "end", name: job.name } satisfies JobMark);
    latencies.sort((a, b) => a - b);
    results.push({
      name: job.name,
      requests: total,
      errors,
      rps: Math.round(total / elapsed),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? Number.NaN,
      sent: job.rate * 2 + total,
      ...(firstError ? { firstError } : {}),
    });
  }
  client.close();
  return results;
}

/** What the main process tells an extra API process. */
interface ApiChildArgs {
  env: Record<string, string>;
  databaseUrl: string;
}

/** Child: one more API process over the same PostgreSQL, answering its CPU time and JSON-RPC calls on request. */
async function apiChild(args: ApiChildArgs): Promise<void> {
  const db = await openPostgresDatabase(args.databaseUrl);
  const app = await createApp(loadConfig(args.env), { db });
  await registerTxRoutes(app, { env: args.env });
  await app.listen({ host: "127.0.0.1", port: 0 });
  process.on("message", async (m: { id: number; close?: boolean }) => {
    if (m.close) {
      await app.close();
      await db.close();
    }
    const used = process.cpuUsage();
    process.send!({ id: m.id, cpuMs: (used.user + used.system) / 1000, rpcCalls: getPostJsonCount() });
    if (m.close) process.exit(0);
  });
  process.on("disconnect", () => process.exit(0));
  process.send!({ id: 0, port: (app.server.address() as { port: number }).port });
}

/** A fresh database on the PostgreSQL server at `adminUrl` (dropped with the returned function), or null. */
async function createBenchDatabase(
  adminUrl: string,
): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const { default: pg } = await import("pg");
  const name = `cistern_api_tx_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch {
    return null;
  } finally {
    await admin.end().catch(() => undefined);
  }
  return {
    url: adminUrl.replace(/\/[^/]*$/, `/${name}`),
    async drop() {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/** Child: the localnet. */
async function localnetChild(dataDir: string): Promise<void> {
  const net = await startLocalnet({
    rpcPort: 0,
    dataDir,
    slotMs: 400,
    programs: [{ soPath: SO_PATH }, { soPath: SWAP_VENUE_SO_PATH }],
  });
  process.on(
    "message",
    async (m: {
      faucet?: string;
      fund?: string;
      tokens?: { owner: string; mint: string; amount: string }[];
      close?: boolean;
      id: number;
    }) => {
      if (m.faucet) process.send!({ id: m.id, value: await net.faucet(m.faucet) });
      if (m.fund) {
        await net.fundWallet(m.fund, { lamports: 100_000_000_000n });
        process.send!({ id: m.id, value: null });
      }
      if (m.tokens) {
        for (const t of m.tokens)
          await net.fundWallet(t.owner, { tokens: [{ mint: t.mint, amount: BigInt(t.amount) }] });
        process.send!({ id: m.id, value: null });
      }
      if (m.close) {
        await net.close();
        process.send!({ id: m.id, value: null });
        process.exit(0);
      }
    },
  );
  process.on("disconnect", () => {
    void net.close().finally(() => process.exit(0));
  });
  process.send!({
    id: 0,
    value: {
      rpcUrl: net.rpcUrl,
      programId: net.programs[0]!.programId,
      venueProgramId: net.programs[1]!.programId,
      faucetKeypairPath: net.faucetKeypairPath,
    },
  });
}

async function post(app: FastifyInstance, url: string, payload: object): Promise<Record<string, unknown>> {
  const r = await app.inject({ method: "POST", url, payload });
  if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
  return r.json();
}

async function send(
  app: FastifyInstance,
  built: Record<string, unknown>,
  signer: KeyPairSigner,
): Promise<void> {
  for (const b64 of built.transactions as string[]) {
    const tx = getTransactionDecoder().decode(Buffer.from(b64, "base64"));
    const signed = await partiallySignTransaction([signer.keyPair], tx);
    const route = built.kind === "NormalCoSigned" ? "/send-cos-transaction" : "/send-transaction";
    const r = await post(app, route, { transaction: getBase64EncodedWireTransaction(signed) });
    if (r.result === null) throw new Error(JSON.stringify(r));
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "cistern-bench-tx-"));
  const chain = fork(SELF, ["--localnet", join(dataDir, "chain")], { stdio: "inherit" });
  let nextId = 1;
  const waiters = new Map<number, (v: unknown) => void>();
  chain.on("message", (m: { id: number; value: unknown }) => waiters.get(m.id)?.(m.value));
  const ask = <T>(msg: object, id = nextId++) =>
    new Promise<T>((r) => {
      waiters.set(id, r as (v: unknown) => void);
      if (id !== 0) chain.send({ ...msg, id });
    });
  const { rpcUrl, programId, venueProgramId, faucetKeypairPath } = await ask<{
    rpcUrl: string;
    programId: string;
    venueProgramId: string;
    faucetKeypairPath: string;
  }>({}, 0);
  console.log(`api-tx: localnet at ${rpcUrl}`);

  const wanted = Number(process.env.API_TX_PROCESSES ?? 1);
  const postgres =
    wanted > 1
      ? await createBenchDatabase(
          process.env.API_TX_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
        )
      : null;
  const processes = postgres === null ? 1 : wanted;
  if (wanted > 1 && postgres === null)
    console.log("api-tx: no PostgreSQL reachable: one API process over PGlite");
  const db: Database =
    postgres === null ? await openPgliteDatabase(undefined) : await openPostgresDatabase(postgres.url);
  await runMigrations(db);
  const env = {
    LOG_LEVEL: "silent",
    // one client sends the whole load: the per-client rate limit would measure itself, not the API
    RATE_LIMIT_PER_MINUTE: "0",
    DATA_DIR: dataDir,
    SOLANA_RPC_URL: rpcUrl,
    LENDING_PROGRAM_ID: programId,
    INDEXER: "off",
  };
  const app = await createApp(loadConfig(env), { db });
  const tx = await registerTxRoutes(app, { env });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const port = (app.server.address() as { port: number }).port;

  // Only the program's upgrade authority (the localnet faucet) may initialise the config.
  const admin = await readKeypairFile(faucetKeypairPath);
  const lender = await generateKeyPairSigner();
  const borrower = await generateKeyPairSigner();
  await ask({ fund: admin.address });
  await ask({ faucet: lender.address });
  await ask({ fund: lender.address });
  const given = await ask<{ nfts: { mint: string; collectionId: string }[] }>({ faucet: borrower.address });
  await ask({ fund: borrower.address });
  const init = await getInitializeConfigInstruction({
    programAddress: programId as Address,
    admin: admin.address,
    oracle: tx.oracle.address,
    treasury: admin.address,
    protocolFeeBps: 2000,
  });
  const built = await tx.factory.build({
    feePayer: admin.address,
    groups: [[init]],
    options: getPriorityFeeOptions(),
    needsOracle: false,
  });
  await send(app, built as unknown as Record<string, unknown>, admin);
  // the local swap venue: pinned, with a JTO/USDC pool of 100,000 JTO against 250,000 USDC
  const adminTx = async (instructions: Instruction[]) =>
    send(
      app,
      (await tx.factory.build({
        feePayer: admin.address,
        groups: [instructions],
        options: getPriorityFeeOptions(),
        needsOracle: false,
      })) as unknown as Record<string, unknown>,
      admin,
    );
  const venue = venueProgramId as Address;
  await adminTx([
    await getSetVenuesInstruction({
      programAddress: programId as Address,
      admin: admin.address,
      swapProgram: venue,
    }),
  ]);
  const initPool = await getInitializeSwapPoolInstruction({
    programAddress: venue,
    payer: admin.address,
    mintX: JTO as Address,
    mintY: USDC as Address,
    feeBps: 30,
  });
  await adminTx([initPool]);
  const reserves = { [JTO]: 100_000_000_000_000n, [USDC]: 250_000_000_000n };
  await ask({
    tokens: Object.entries(reserves).map(([mint, amount]) => ({
      owner: admin.address,
      mint,
      amount: String(amount),
    })),
  });
  const [poolAccount] = await tx.state.getAccounts([initPool.pool]);
  const swapPool = { ...decodeSwapPool(poolAccount!.data), address: initPool.pool };
  const ata = async (mint: Address) => (await getAssociatedTokenAddress(admin.address, mint)) as Address;
  await adminTx([
    await getAddSwapLiquidityInstruction({
      programAddress: venue,
      depositor: admin.address,
      pool: swapPool,
      depositorTokenA: await ata(swapPool.mintA),
      depositorTokenB: await ata(swapPool.mintB),
      amountA: reserves[swapPool.mintA]!,
      amountB: reserves[swapPool.mintB]!,
    }),
  ]);
  const [bank] = await findBankPda(programId as Address, lender.address, USDC as Address);
  const collections = [...new Set(given.nfts.map((n) => n.collectionId))];
  const limits = { minDuration: DAY, maxDuration: 30 * DAY, maxAmountUsd: 100_000, minAmountUsd: 1 };
  for (let i = 0; i < 6; i++) {
    const b = await post(app, "/nft/create-pool", {
      bank,
      owner: lender.address,
      amount: i === 0 ? "5000000000" : "0",
      mint: USDC,
      seed: String(100 + i),
      param: {
        apr: 1000 + 250 * i,
        limits,
        collections: collections.map((c) => ({
          collection: c,
          collectionLtv: 4000 + 500 * i,
          exposure: 5000,
        })),
      },
    });
    await send(app, b, lender);
  }
  for (let i = 0; i < 3; i++) {
    const b = await post(app, "/defi/create-pool", {
      bank,
      owner: lender.address,
      amount: "0",
      mint: USDC,
      seed: String(200 + i),
      param: {
        apr: 1200 + 300 * i,
        limits,
        currencies: [{ currency: JTO, currencyLtv: 5000 + 500 * i, exposure: 5000 }],
      },
    });
    await send(app, b, lender);
  }

  // one ongoing token loan, for the market-sell quote
  const loanBuild = await post(app, "/defi/take-loan", {
    borrower: borrower.address,
    collateralMint: JTO,
    collateralAmount: "40000000000",
    duration: 7 * DAY,
    amount: "10000000",
  });
  await send(app, loanBuild, borrower);
  const sellLoan = (loanBuild.metadata as { loan: string }).loan;

  // the other API processes, started once the world is built (their snapshots read it)
  const apiChildren = Array.from({ length: processes - 1 }, () =>
    fork(SELF, ["--api", JSON.stringify({ env, databaseUrl: postgres!.url } satisfies ApiChildArgs)], {
      stdio: "inherit",
    }),
  );
  let nextApiAsk = 1;
  const askApi = (child: ReturnType<typeof fork>, msg: object, id = nextApiAsk++) =>
    new Promise<{ port: number; cpuMs: number; rpcCalls: number }>((done) => {
      const on = (m: { id: number; port: number; cpuMs: number; rpcCalls: number }) => {
        if (m.id !== id) return;
        child.off("message", on);
        done(m);
      };
      child.on("message", on);
      if (id !== 0) child.send({ ...msg, id });
    });
  const childPorts = await Promise.all(apiChildren.map((c) => askApi(c, {}, 0).then((m) => m.port)));
  const bases = [port, ...childPorts].map((p) => `http://127.0.0.1:${p}`);
  console.log(
    `api-tx: world ready, starting load on ${processes === 1 ? "one API process over PGlite" : `${processes} API processes over PostgreSQL`}`,
  );
  const jobs: Job[] = [
    {
      name: "POST /nft/quote",
      url: `/nft/quote`,
      body: JSON.stringify({ collection: collections[0], duration: 7 * DAY, amount: "100000000" }),
      rate: 1000,
      seconds: 6,
    },
    {
      name: "POST /defi/quote",
      url: `/defi/quote`,
      body: JSON.stringify({ collateralMint: JTO, collateralAmount: "20000000000", duration: 7 * DAY }),
      rate: 1000,
      seconds: 6,
    },
    {
      name: "GET /swap/v1/quote (local venue)",
      url: `/swap/v1/quote?inputMint=${JTO}&outputMint=${USDC}&amount=40000000000&slippageBps=100`,
      rate: 500,
      seconds: 6,
    },
    {
      name: "POST /defi/market-sell-quote",
      url: `/defi/market-sell-quote`,
      body: JSON.stringify({ borrower: borrower.address, loan: sellLoan }),
      rate: 500,
      seconds: 6,
    },
    {
      name: "POST /defi/multi-quote (margin)",
      url: `/defi/multi-quote`,
      body: JSON.stringify({
        mode: "margin",
        currencyIn: JTO,
        currency: USDC,
        amountIn: "20000000",
        minDurationInDays: 7,
        borrower: borrower.address,
      }),
      rate: 500,
      seconds: 6,
    },
    {
      name: "POST /defi/take-loan (build)",
      url: `/defi/take-loan`,
      body: JSON.stringify({
        borrower: borrower.address,
        collateralMint: JTO,
        collateralAmount: "20000000000",
        duration: 7 * DAY,
        amount: "10000000",
      }),
      rate: 500,
      seconds: 6,
    },
  ];
  // `--only <text>` keeps the jobs whose name contains it (to profile one route)
  const only = process.argv.indexOf("--only");
  if (only > 0) jobs.splice(0, jobs.length, ...jobs.filter((j) => j.name.includes(process.argv[only + 1]!)));
  // each job's request succeeds in this world before it is measured (a refusal would be measured otherwise)
  for (const job of jobs) await assertOneSuccess(job.name, `${bases[0]}${job.url}`, job.body);
  const generator = fork(SELF, ["--load", JSON.stringify(bases)], { stdio: "inherit" });
  // The API's CPU time (every API process, every thread) per request of each job, warm-up included: a figure the
  // machine's other load moves far less than latency does.
  const usage = async () => {
    const own = process.cpuUsage();
    const children = await Promise.all(apiChildren.map((c) => askApi(c, {})));
    return {
      cpuMs: (own.user + own.system) / 1000 + children.reduce((n, c) => n + c.cpuMs, 0),
      rpcCalls: getPostJsonCount() + children.reduce((n, c) => n + c.rpcCalls, 0),
      statements: getPgliteStats().statements,
    };
  };
  const marks: Promise<void>[] = [];
  const atStart = new Map<string, Promise<Awaited<ReturnType<typeof usage>>>>();
  const cpuMs = new Map<string, number>();
  const statements = new Map<string, number>();
  const rpcCalls = new Map<string, number>();
  const results = await new Promise<JobResult[]>((done) => {
    generator.on("message", (m: JobResult[] | JobMark) => {
      if (!("mark" in m)) return done(m);
      if (m.mark === "start") atStart.set(m.name, usage());
      else
        marks.push(
          Promise.all([atStart.get(m.name)!, usage()]).then(([start, end]) => {
            cpuMs.set(m.name, end.cpuMs - start.cpuMs);
            statements.set(m.name, end.statements - start.statements);
            rpcCalls.set(m.name, end.rpcCalls - start.rpcCalls);
          }),
        );
    });
    generator.send(jobs);
  });
  generator.kill();
  await Promise.all(marks);
  const targets: Record<string, number> = {
    "POST /nft/quote": 10,
    "POST /defi/quote": 10,
    "GET /swap/v1/quote (local venue)": 10,
    "POST /defi/market-sell-quote": 10,
    "POST /defi/multi-quote (margin)": 10,
    "POST /defi/take-loan (build)": 25,
  };
  console.log(
    `api-tx: open-loop load on loopback (pools: 6 nft, 3 defi; one swap pool; issued messages in the database; ${processes === 1 ? "one API process over PGlite" : `${processes} API processes over PostgreSQL`}; cpu: all API processes)`,
  );
  const verdict = createVerdict("api-tx");
  for (const r of results) {
    const target = targets[r.name]!;
    verdict.check(r.errors === 0, r.name, `${r.errors} of ${r.requests} requests not answered 2xx`);
    verdict.check(r.p99 <= target, r.name, `p99 ${r.p99.toFixed(2)} ms > ${target} ms`);
    console.log(
      `${r.name.padEnd(34)} ${String(r.rps).padStart(5)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  max ${r.max.toFixed(1)} ms  cpu ${((cpuMs.get(r.name) ?? Number.NaN) / r.sent).toFixed(2)} ms/req  ${processes === 1 ? `PGlite ${((statements.get(r.name) ?? Number.NaN) / r.sent).toFixed(2)} statements/req  ` : ""}RPC ${((rpcCalls.get(r.name) ?? Number.NaN) / r.sent).toFixed(2)} calls/req  errors ${r.errors}/${r.requests}  target p99 <= ${target} ms: ${r.p99 <= target && r.errors === 0 ? "met" : "MISSED"}`,
    );
    if (r.firstError) console.log(`  first error: ${r.firstError}`);
  }
  verdict.finish();
  await Promise.all(apiChildren.map((c) => askApi(c, { close: true })));
  await app.close();
  await db.close();
  await postgres?.drop();
  await ask({ close: true });
  rmSync(dataDir, { recursive: true, force: true });
}

if (process.argv[2] === "--load") {
  process.on("message", async (jobs: Job[]) => {
    process.send!(await loadGenerator(jobs, JSON.parse(process.argv[3]!)));
  });
} else if (process.argv[2] === "--api") {
  void apiChild(JSON.parse(process.argv[3]!));
} else if (process.argv[2] === "--localnet") {
  void localnetChild(process.argv[3]!);
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
  // The localnet child exits when this process does (its IPC channel closes).
}
