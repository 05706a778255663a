// End-to-end borrowing benchmark: 100 borrowers a second for 60 s, each a distinct wallet funded with SOL and
// JUP, go through the routes a browser calls: POST /defi/quote -> POST /defi/take-loan (build) -> sign in the
// wallet -> POST /send-cos-transaction (answers once the chain confirmed) -> GET /loan/user until the loan is
// listed. The stack is what `npm start` runs, the chain in its own process as a real cluster is to its API: the
// localnet at its own slot time (400 ms) in a child process, the bootstrap (program, config, venues, demo lenders)
// and the API with its indexer and keepers over the embedded PGlite database in this one. The borrowers run in
// another child process (open loop: each starts on schedule whatever the others are doing). One lender pool of the bench's own (the cheapest for JUP in USDC) lends every loan.
// Figures: p50 and p99 of the time from the send's answer (confirmed: the moment the web shows "Transaction
// Success" and refreshes its lists) to the loan in /loan/user (polled at once, then every POLL_MS), loans missing
// (confirmed, never listed within VISIBLE_TIMEOUT_MS), failures per step. Target: p99 <= 1 s, none missing.
// `npm run bench -- borrow-e2e`; BORROW_E2E_RATE and BORROW_E2E_SECONDS change the load (to probe).
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bootstrapCluster } from "@cistern/bootstrap";
import { DEMO_WORLD, type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { USDC_MINT } from "@cistern/protocol";
import { findBankPda } from "@cistern/sdk";
import {
  type Address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { getPgliteStats } from "../apps/api/src/db/pglite-database.ts";
import { loadConfig, startApi } from "../apps/api/src/index.ts";
import { createVerdict } from "./verdict.ts";

const SELF = fileURLToPath(import.meta.url);
const REPO = resolve(SELF, "../..");
const RATE = Number(process.env.BORROW_E2E_RATE ?? 100);
const SECONDS = Number(process.env.BORROW_E2E_SECONDS ?? 60);
const TARGET_P99_MS = 1000;
const POLL_MS = 200;
const VISIBLE_TIMEOUT_MS = 30_000;
const DAY = 86_400;
const JUP = DEMO_WORLD.tokens.find((t) => t.symbol === "JUP")!.mint;
/** Each borrower pledges 100 JUP (6 decimals) for 10 USDC over 7 days. */
const COLLATERAL = "100000000";
const PRINCIPAL = "10000000";
const DURATION = 7 * DAY;

interface Outcome {
  /** Step that failed, if any, and why. */
  failed?: { step: "quote" | "build" | "send" | "visible"; why: string };
  /** Milliseconds from the quote's start to the send's answer. */
  userMs?: number;
  /** Milliseconds from the send's answer to the loan in /loan/user. */
  visibleMs?: number;
}

// ---- a small keep-alive JSON client (node:http: undici's fetch costs about a millisecond of CPU a call) ----
const agent = new Agent({ keepAlive: true, maxSockets: 512 });
function call(url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((done, fail) => {
    const req = request(
      url,
      {
        method: payload === undefined ? "GET" : "POST",
        agent,
        headers: payload === undefined ? {} : { "content-type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", fail);
        res.on("end", () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            json = { unparsed: Buffer.concat(chunks).toString("utf8").slice(0, 200) };
          }
          done({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on("error", fail);
    req.end(payload);
  });
}

const short = (x: unknown) => JSON.stringify(x).slice(0, 300);

/** Child: one borrower's journey, as the web app makes it. */
async function borrow(api: string, signer: KeyPairSigner, pool: string): Promise<Outcome> {
  const started = performance.now();
  const quote = await call(`${api}/defi/quote`, {
    collateralMint: JUP,
    collateralAmount: COLLATERAL,
    duration: DURATION,
    amount: PRINCIPAL,
    currency: USDC_MINT,
    borrower: signer.address,
  });
  if (quote.status !== 200) return { failed: { step: "quote", why: `${quote.status} ${short(quote.json)}` } };
  if (quote.json.pool !== pool)
    return { failed: { step: "quote", why: `best pool ${quote.json.pool}, not the bench's ${pool}` } };
  const built = await call(`${api}/defi/take-loan`, {
    borrower: signer.address,
    collateralMint: JUP,
    collateralAmount: COLLATERAL,
    duration: DURATION,
    amount: PRINCIPAL,
    pool,
  });
  if (built.status !== 200) return { failed: { step: "build", why: `${built.status} ${short(built.json)}` } };
  const [wire] = built.json.transactions as string[];
  const loan = (built.json.metadata as { loan: string }).loan;
  const decoded = getTransactionDecoder().decode(Buffer.from(wire!, "base64"));
  const signed = await partiallySignTransaction([signer.keyPair], decoded);
  const sent = await call(`${api}/send-cos-transaction`, {
    transaction: getBase64EncodedWireTransaction(signed),
    blockHeight: built.json.lastValidBlockHeight,
  });
  if (sent.status !== 200 || typeof sent.json.result !== "string")
    return { failed: { step: "send", why: `${sent.status} ${short(sent.json)}` } };
  const confirmed = performance.now();
  const userMs = confirmed - started;
  for (;;) {
    const list = await call(`${api}/loan/user?pubkey=${signer.address}`);
    const loans = (list.json.loans ?? []) as { pubkey: string }[];
    if (list.status === 200 && loans.some((l) => l.pubkey === loan))
      return { userMs, visibleMs: performance.now() - confirmed };
    if (performance.now() - confirmed > VISIBLE_TIMEOUT_MS)
      return {
        userMs,
        failed: { step: "visible", why: `loan ${loan} not listed after ${VISIBLE_TIMEOUT_MS} ms` },
      };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** What the localnet child is asked to do: fund wallets, or close. */
interface ChainAsk {
  id: number;
  fund?: { wallet: string; lamports: string; tokens: { mint: string; amount: string }[] }[];
  close?: boolean;
  /** Answer this process's CPU time so far (microseconds). */
  cpu?: boolean;
}

/** Child: the localnet (the chain, as a cluster runs apart from the API that reads it). */
async function localnetChild(dataDir: string): Promise<void> {
  const net: LocalnetHandle = await startLocalnet({ rpcPort: 0, dataDir, seed: true });
  process.on("message", async (m: ChainAsk) => {
    for (const f of m.fund ?? [])
      await net.fundWallet(f.wallet, {
        lamports: BigInt(f.lamports),
        tokens: f.tokens.map((t) => ({ mint: t.mint, amount: BigInt(t.amount) })),
      });
    if (m.close) await net.close();
    const used = process.cpuUsage();
    process.send!({ id: m.id, cpuMicros: used.user + used.system });
    if (m.close) process.exit(0);
  });
  process.on("disconnect", () => void net.close().finally(() => process.exit(0)));
  process.send!({ id: 0, rpcUrl: net.rpcUrl, wsUrl: net.wsUrl });
}

/** Child: makes the wallets, waits for them to be funded, then runs the open-loop load. */
function borrowerChild(): void {
  let signers: KeyPairSigner[] = [];
  process.on("message", async (m: { make?: number; run?: { api: string; pool: string } }) => {
    if (m.make !== undefined) {
      signers = await Promise.all(Array.from({ length: m.make }, () => generateKeyPairSigner()));
      process.send!({ wallets: signers.map((s) => s.address) });
    }
    if (m.run !== undefined) {
      const { api, pool } = m.run;
      const interval = 1000 / RATE;
      const cpuBefore = process.cpuUsage();
      const start = performance.now();
      const journeys: Promise<Outcome>[] = [];
      for (let i = 0; i < signers.length; i++) {
        const wait = start + i * interval - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        journeys.push(
          borrow(api, signers[i]!, pool).catch((e: unknown) => ({
            failed: { step: "send" as const, why: String(e) },
          })),
        );
      }
      const offeredSeconds = (performance.now() - start) / 1000;
      const outcomes = await Promise.all(journeys);
      const used = process.cpuUsage(cpuBefore);
      process.send!({ outcomes, offeredSeconds, walletsCpuMs: (used.user + used.system) / 1000 });
    }
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "cistern-bench-e2e-"));
  const started = performance.now();
  // The stack as `npm start` has it (scripts/start.ts); the chain in its own process.
  const chain = fork(SELF, ["--localnet", join(root, "localnet")], { stdio: "inherit" });
  let nextAsk = 1;
  const answers = new Map<number, (m: Record<string, unknown>) => void>();
  chain.on("message", (m: { id: number }) => answers.get(m.id)?.(m));
  const askChain = (ask: Omit<ChainAsk, "id">, id = nextAsk++) =>
    new Promise<Record<string, unknown>>((done) => {
      answers.set(id, done);
      if (id !== 0) chain.send({ ...ask, id });
    });
  const localnet = {
    ...((await askChain({}, 0)) as { rpcUrl: string; wsUrl: string }),
    fundWallets: (fund: NonNullable<ChainAsk["fund"]>) => askChain({ fund }),
    close: () => askChain({ close: true }),
    cpuMs: async () => Number((await askChain({ cpu: true })).cpuMicros) / 1000,
  };
  const cluster = await bootstrapCluster({
    rpcUrl: localnet.rpcUrl,
    wsUrl: localnet.wsUrl,
    dataDir: root,
    cluster: "localnet",
    lendingSoPath: join(REPO, "programs/lending/build/lending.so"),
    swapVenueSoPath: join(REPO, "programs/swap-venue/build/swap-venue.so"),
    lendingVenueSoPath: join(REPO, "programs/lending-venue/build/lending-venue.so"),
    nftMarketSoPath: join(REPO, "programs/nft-market/build/nft-market.so"),
    demo: true,
  });
  const api = await startApi(
    loadConfig({
      LOG_LEVEL: "silent",
      API_PORT: "0",
      SOLANA_RPC_URL: localnet.rpcUrl,
      SOLANA_WS_URL: localnet.wsUrl,
      SOLANA_CLUSTER: "localnet",
      DATA_DIR: root,
      LENDING_PROGRAM_ID: cluster.lendingProgramId,
      // Every borrower comes from 127.0.0.1 here: the per-client limit would count them as one client.
      RATE_LIMIT_PER_MINUTE: "0",
    }),
  );
  const base = api.url.replace("0.0.0.0", "127.0.0.1");
  const child = fork(SELF, ["--borrowers"], { stdio: "inherit" });
  const fromChild = <T>(key: string) =>
    new Promise<T>((done) => {
      const on = (m: Record<string, unknown>) => {
        if (key in m) {
          child.off("message", on);
          done(m as T);
        }
      };
      child.on("message", on);
    });
  try {
    // The bench's lender: a USDC bank of 1,000,000 and a defi-pool lending against JUP at 5% (cheapest).
    const lenderKey = await generateKeyPairSigner();
    await localnet.fundWallets([
      {
        wallet: lenderKey.address,
        lamports: "10000000000",
        tokens: [{ mint: USDC_MINT, amount: "1000000000000" }],
      },
    ]);
    const [bank] = await findBankPda(
      cluster.lendingProgramId as Address,
      lenderKey.address,
      USDC_MINT as Address,
    );
    const created = await call(`${base}/defi/create-pool`, {
      bank,
      owner: lenderKey.address,
      amount: "1000000000000",
      mint: USDC_MINT,
      seed: "7",
      param: {
        apr: 500,
        limits: { minDuration: DAY, maxDuration: 30 * DAY, maxAmountUsd: 100_000, minAmountUsd: 1 },
        currencies: [{ currency: JUP, currencyLtv: 5000, exposure: 10_000 }],
      },
    });
    if (created.status !== 200) throw new Error(`create-pool: ${short(created.json)}`);
    const pool = (created.json.metadata as { pool: string }).pool;
    for (const wire of created.json.transactions as string[]) {
      const signed = await partiallySignTransaction(
        [lenderKey.keyPair],
        getTransactionDecoder().decode(Buffer.from(wire, "base64")),
      );
      const sent = await call(`${base}/send-transaction`, {
        transaction: getBase64EncodedWireTransaction(signed),
      });
      if (typeof sent.json.result !== "string") throw new Error(`create-pool send: ${short(sent.json)}`);
    }
    // The borrowers: distinct wallets, each with SOL for fees and rent and 100 JUP.
    const total = RATE * SECONDS;
    child.send({ make: total });
    const { wallets } = await fromChild<{ wallets: string[] }>("wallets");
    await localnet.fundWallets(
      wallets.map((wallet) => ({
        wallet,
        lamports: "100000000",
        tokens: [{ mint: JUP, amount: COLLATERAL }],
      })),
    );
    // The measured journey succeeds in this world before it is measured: a quote answers 200 with the bench's
    // pool (waited for, up to 30 s, as the pool reaches the API's snapshot), else the run fails with nothing measured.
    const quoteReady = Date.now() + 30_000;
    for (;;) {
      const quote = await call(`${base}/defi/quote`, {
        collateralMint: JUP,
        collateralAmount: COLLATERAL,
        duration: DURATION,
        amount: PRINCIPAL,
        currency: USDC_MINT,
        borrower: wallets[0],
      });
      if (quote.status === 200 && quote.json.pool === pool) break;
      if (Date.now() > quoteReady)
        throw new Error(
          `MISSED borrow-e2e: the quote never answered the bench's pool: ${quote.status} ${short(quote.json)}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(
      `borrow-e2e: stack, lender pool and ${total} funded borrowers ready in ${((performance.now() - started) / 1000).toFixed(0)} s; ${RATE} borrowers/s for ${SECONDS} s`,
    );
    // the machine's load with the run's figures: they are only comparable at a like load
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(2))
        .join(", ");
    const loadBefore = load();
    const cpuBefore = process.cpuUsage();
    const chainCpuBefore = await localnet.cpuMs();
    const dbBefore = getPgliteStats();
    child.send({ run: { api: base, pool } });
    const { outcomes, offeredSeconds, walletsCpuMs } = await fromChild<{
      outcomes: Outcome[];
      offeredSeconds: number;
      walletsCpuMs: number;
    }>("outcomes");
    const cpu = process.cpuUsage(cpuBefore);
    const apiCpuMs = (cpu.user + cpu.system) / 1000;
    const chainCpuMs = (await localnet.cpuMs()) - chainCpuBefore;
    const dbAfter = getPgliteStats();
    const visible = outcomes
      .filter((o) => o.visibleMs !== undefined)
      .map((o) => o.visibleMs!)
      .sort((a, b) => a - b);
    const user = outcomes
      .filter((o) => o.userMs !== undefined)
      .map((o) => o.userMs!)
      .sort((a, b) => a - b);
    const failures = new Map<string, { count: number; first: string }>();
    for (const o of outcomes) {
      if (o.failed === undefined) continue;
      const f = failures.get(o.failed.step) ?? { count: 0, first: o.failed.why };
      f.count++;
      failures.set(o.failed.step, f);
    }
    const confirmed = user.length;
    const missing = failures.get("visible")?.count ?? 0;
    const notConfirmed = total - confirmed;
    const p99 = percentile(visible, 99);
    console.log(
      `borrow-e2e: ${total} borrowers offered at ${(total / offeredSeconds).toFixed(0)}/s (quote -> build -> sign -> send, slot 400 ms, PGlite): ${confirmed} confirmed, ${notConfirmed} not confirmed`,
    );
    console.log(
      `quote start -> confirmed (what the user waits): p50 ${percentile(user, 50).toFixed(0)} ms  p99 ${percentile(user, 99).toFixed(0)} ms  max ${(user.at(-1) ?? Number.NaN).toFixed(0)} ms`,
    );
    console.log(
      `confirmed -> visible in /loan/user (polled every ${POLL_MS} ms): p50 ${percentile(visible, 50).toFixed(0)} ms  p99 ${p99.toFixed(0)} ms  max ${(visible.at(-1) ?? Number.NaN).toFixed(0)} ms  loans missing ${missing}  target p99 <= 1 s: ${p99 <= TARGET_P99_MS && missing === 0 && notConfirmed === 0 ? "met" : "MISSED"}`,
    );
    for (const [step, f] of failures) console.log(`  ${f.count} failed at ${step}; first: ${f.first}`);
    const verdict = createVerdict("borrow-e2e");
    verdict.check(notConfirmed === 0, "loans confirmed", `${notConfirmed} of ${total} not confirmed`);
    verdict.check(missing === 0, "loans visible", `${missing} confirmed loans never listed in /loan/user`);
    for (const [step, f] of failures)
      verdict.check(false, `step ${step}`, `${f.count} failed; first: ${f.first}`);
    verdict.check(
      p99 <= TARGET_P99_MS,
      "confirmed -> visible",
      `p99 ${p99.toFixed(0)} ms > ${TARGET_P99_MS} ms`,
    );
    // what each loan cost, a figure the machine's other load moves far less than latency
    const per = (x: number) => (x / Math.max(1, confirmed)).toFixed(2);
    console.log(
      `per confirmed loan: API process CPU ${per(apiCpuMs)} ms, localnet process CPU ${per(chainCpuMs)} ms, wallets process CPU ${per(walletsCpuMs)} ms, PGlite ${per(dbAfter.statements - dbBefore.statements)} statements holding it ${per(dbAfter.ms - dbBefore.ms)} ms`,
    );
    const kinds = [...dbAfter.byKind]
      .map(([kind, k]) => {
        const b = dbBefore.byKind.get(kind) ?? { statements: 0, ms: 0 };
        return { kind, statements: k.statements - b.statements, ms: k.ms - b.ms };
      })
      .filter((k) => k.statements > 0)
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 20);
    for (const k of kinds)
      console.log(
        `  PGlite ${k.kind.padEnd(72)} ${per(k.statements)} per loan, ${per(k.ms)} ms per loan (${k.statements} in all)`,
      );
    console.log(`load average (1, 5, 15 min): ${loadBefore} at the start, ${load()} at the end`);
    verdict.finish();
  } finally {
    child.kill();
    await api.close();
    await localnet.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--borrowers") borrowerChild();
else if (process.argv[2] === "--localnet") void localnetChild(process.argv[3]!);
else
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
