// API read benchmark: GET /dirty/pools and GET /loan/user over 10,000 pools and 100,000 loans in PostgreSQL
// (rows written through the indexer's upsert path), beside a trivial Fastify route, measured by a keep-alive
// load generator in a child process on loopback (bench/load-client.ts), each job after one second of the same load,
// not measured.
// Targets, judged on the list without its cache and with its cache dropped by 20 pool writes a second: p99 <= 50 ms
// at 500 req/s, and the uncached p99 within 10x of the trivial route's. Also the uncached list's throughput from two API processes over the same PostgreSQL against one.
// Needs PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth); BENCH_POSTGRES_URL overrides the admin URL.
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { getAddressDecoder } from "@solana/kit";
import Fastify from "fastify";
import pg from "pg";
import { createLoadClient } from "./load-client.ts";
import { assertOneSuccess, createVerdict } from "./verdict.ts";

const POOLS = 10_000;
const LOANS = 100_000;
const LENDERS = 2_000;
const BORROWERS = 10_000;
const RATE_PER_SECOND = 500;
const OPEN_LOOP_SECONDS = 8;
const CLOSED_LOOP_SECONDS = 4;
const CLOSED_LOOP_CONCURRENCY = 16;
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const WRITES_PER_SECOND = 20;
const WRITES_JOB = `GET /dirty/pools, ${WRITES_PER_SECOND} writes/s`;

interface LoadRequest {
  name: string;
  urls: string[];
}
interface LoadResult {
  name: string;
  mode: "open" | "closed";
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Child process: fires the requests and reports latencies (milliseconds). */
async function runLoadGenerator(jobs: LoadRequest[]): Promise<LoadResult[]> {
  const client = createLoadClient(128);
  const hit = (url: string) => client.send(url).then((answer) => answer.status === 200);
  const results: LoadResult[] = [];
  for (const job of jobs) {
    process.send?.({ starting: job.name });
    // Warm-up: one second of the same load, not measured, so the server has its database connections open and
    // its code compiled, as a process that has been serving has (no answer is cached by it: the uncached app has
    // no cache to fill).
    {
      const warm: Promise<boolean>[] = [];
      const start = performance.now();
      for (let i = 0; i < RATE_PER_SECOND; i++) {
        const wait = start + (i * 1000) / RATE_PER_SECOND - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        warm.push(hit(job.urls[i % job.urls.length]!));
      }
      await Promise.all(warm);
    }
    // Open loop at a fixed rate (requests sent on schedule whatever the answers do); latency from send to answer.
    {
      const latencies: number[] = [];
      let errors = 0;
      const total = RATE_PER_SECOND * OPEN_LOOP_SECONDS;
      const start = performance.now();
      const pending: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const scheduled = start + (i * 1000) / RATE_PER_SECOND;
        const wait = scheduled - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const sent = performance.now();
        pending.push(
          hit(job.urls[i % job.urls.length]!).then((ok) => {
            if (!ok) errors++;
            latencies.push(performance.now() - sent);
          }),
        );
      }
      await Promise.all(pending);
      const elapsed = (performance.now() - start) / 1000;
      latencies.sort((a, b) => a - b);
      results.push({
        name: job.name,
        mode: "open",
        requests: total,
        errors,
        rps: total / elapsed,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies[latencies.length - 1]!,
      });
    }
    // Closed loop: the most the server gives with 16 connections.
    {
      const latencies: number[] = [];
      let errors = 0;
      let index = 0;
      const end = performance.now() + CLOSED_LOOP_SECONDS * 1000;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: CLOSED_LOOP_CONCURRENCY }, async () => {
          while (performance.now() < end) {
            const t0 = performance.now();
            if (!(await hit(job.urls[index++ % job.urls.length]!))) errors++;
            latencies.push(performance.now() - t0);
          }
        }),
      );
      const elapsed = (performance.now() - start) / 1000;
      latencies.sort((a, b) => a - b);
      results.push({
        name: job.name,
        mode: "closed",
        requests: latencies.length,
        errors,
        rps: latencies.length / elapsed,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies[latencies.length - 1]!,
      });
    }
  }
  client.close();
  process.send?.({ starting: null });
  return results;
}

const randomAddress = () => getAddressDecoder().decode(randomBytes(32));

/** The bench's app over `databaseUrl`: a one-currency catalogue, no rate limit, `env` on top. */
async function createBenchApp(databaseUrl: string, env: Record<string, string>, db?: unknown) {
  const { createApp } = await import("../apps/api/src/app.ts");
  const { loadConfig } = await import("../apps/api/src/config/config.ts");
  return createApp(
    loadConfig({
      LOG_LEVEL: "silent",
      // one client sends the whole load: the per-client rate limit would measure itself, not the API
      RATE_LIMIT_PER_MINUTE: "0",
      DATA_DIR: "/tmp/cistern-api-bench",
      DATABASE_URL: databaseUrl,
      ...env,
    }),
    {
      ...(db ? { db: db as never } : {}),
      catalogSource: {
        name: "bench",
        fetchCatalog: async () => ({
          tokens: [
            {
              mint: USDC,
              symbol: "USDC",
              name: "USD Coin",
              decimals: 6,
              image: "",
              role: "currency",
            },
          ],
          collections: [],
        }),
      },
    },
  );
}

/** An API process of its own over `databaseUrl` (uncached lists), for the two-process comparison. */
function startApiProcess(databaseUrl: string): Promise<{ url: string; stop(): void }> {
  const child = fork(fileURLToPath(import.meta.url), ["--api-process", databaseUrl], {
    execArgv: ["--import", "tsx"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (url) => resolve({ url: url as string, stop: () => child.kill() }));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`API process exited (${code})`)));
  });
}

async function main(): Promise<void> {
  const { openPostgresDatabase } = await import("../apps/api/src/db/postgres-database.ts");
  const { runMigrations } = await import("../apps/api/src/db/migrate.ts");
  const { upsertBank, upsertLoan, upsertPool } = await import("../apps/api/src/indexer/store.ts");
  const fixtures = await import("../apps/api/test/helpers/fixtures.ts");

  const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `cistern_api_bench_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = adminUrl.replace(/\/[^/]*$/, `/${name}`);
  const db = await openPostgresDatabase(url, 16);
  try {
    await runMigrations(db);
    const t0 = performance.now();
    const lenders = Array.from({ length: LENDERS }, () => ({
      bankKey: randomAddress(),
      bank: fixtures.makeBank(),
    }));
    const borrowers = Array.from({ length: BORROWERS }, () => randomAddress());
    const pools = Array.from({ length: POOLS }, (_, i) => {
      const { bankKey, bank } = lenders[i % LENDERS]!;
      return {
        key: randomAddress(),
        pool: fixtures.makePool(bankKey, bank, { seed: BigInt(i), createdAt: 1_700_000_000n + BigInt(i) }),
      };
    });
    const inBatches = async <T>(
      items: T[],
      size: number,
      parallel: number,
      write: (
        tx: Parameters<Parameters<typeof db.transaction>[0]>[0],
        item: T,
        index: number,
      ) => Promise<void>,
    ) => {
      const batches: number[] = [];
      for (let i = 0; i < items.length; i += size) batches.push(i);
      let next = 0;
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (next < batches.length) {
            const from = batches[next++]!;
            await db.transaction(async (tx) => {
              for (let i = from; i < Math.min(from + size, items.length); i++) await write(tx, items[i]!, i);
            });
          }
        }),
      );
    };
    await inBatches(lenders, 500, 4, (tx, l) => upsertBank(tx, l.bankKey, l.bank, 1));
    await inBatches(pools, 500, 8, (tx, p) => upsertPool(tx, p.key, p.pool, 1));
    const statuses = ["Ongoing", "Repaid", "Repaid", "Liquidated"] as const;
    await inBatches(
      Array.from({ length: LOANS }, (_, i) => i),
      1000,
      12,
      async (tx, i) => {
        const { key, pool } = pools[i % POOLS]!;
        const status = statuses[i % statuses.length]!;
        const loan = fixtures.makeLoan(key, pool, {
          borrower: borrowers[i % BORROWERS]!,
          nonce: BigInt(i),
          createdAt: 1_700_000_000n + BigInt(i * 60),
          status,
          repaidAt: status === "Repaid" ? 1_700_100_000n + BigInt(i * 60) : 0n,
          repaidAmount: status === "Repaid" ? 100_500_000n : 0n,
          liquidatedAt: status === "Liquidated" ? 1_700_900_000n + BigInt(i * 60) : 0n,
        });
        await upsertLoan(tx, randomAddress(), loan, lenders[(i % POOLS) % LENDERS]!.bank.owner, 1);
      },
    );
    await db.exec("VACUUM ANALYZE");
    console.log(
      `seeded ${LENDERS} banks, ${POOLS} pools, ${LOANS} loans (+${LOANS + LOANS * 0.75} events) through the indexer upserts in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const makeApp = (env: Record<string, string>) => createBenchApp(url, env, db);
    // The default app reuses /dirty/pools answers for LIST_CACHE_MS (1 s); the second one never does.
    const app = await makeApp({});
    const uncached = await makeApp({ LIST_CACHE_MS: "0" });
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const uncachedBase = await uncached.listen({ host: "127.0.0.1", port: 0 });
    const trivial = Fastify();
    trivial.get("/ping", async () => ({ ok: true }));
    // the same bytes as a list page, served from memory: what moving an answer of that size costs here
    const samplePage = Buffer.from(
      await (await fetch(`${uncachedBase}/dirty/pools?currency=${USDC}&limit=50&offset=0`)).arrayBuffer(),
    );
    trivial.get("/static-page", (_request, reply) => {
      reply.type("application/json; charset=utf-8").send(samplePage);
    });
    const trivialBase = await trivial.listen({ host: "127.0.0.1", port: 0 });

    const jobs: LoadRequest[] = [
      { name: "trivial GET /ping", urls: [`${trivialBase}/ping`] },
      {
        name: `static ${Math.round(samplePage.length / 1024)} KiB page`,
        urls: [`${trivialBase}/static-page`],
      },
      {
        name: "GET /dirty/pools",
        urls: Array.from(
          { length: 200 },
          (_, i) => `${base}/dirty/pools?currency=${USDC}&limit=50&offset=${(i % 20) * 50}`,
        ),
      },
      {
        name: "GET /dirty/pools (no list cache)",
        urls: Array.from(
          { length: 200 },
          (_, i) => `${uncachedBase}/dirty/pools?currency=${USDC}&limit=50&offset=${(i % 20) * 50}`,
        ),
      },
      {
        name: "GET /loan/user",
        urls: Array.from(
          { length: 1000 },
          (_, i) => `${base}/loan/user?pubkey=${borrowers[(i * 7) % BORROWERS]}&limit=50`,
        ),
      },
    ];
    // the same uncached list from one API process of its own, then from two over the same database
    const processes = [await startApiProcess(url), await startApiProcess(url)];
    const listUrls = (bases: string[]) =>
      Array.from(
        { length: 200 },
        (_, i) => `${bases[i % bases.length]}/dirty/pools?currency=${USDC}&limit=50&offset=${(i % 20) * 50}`,
      );
    jobs.push(
      { name: "one API process (no list cache)", urls: listUrls([processes[0]!.url]) },
      { name: "two API processes (no list cache)", urls: listUrls(processes.map((p) => p.url)) },
      // last: its writes leave dead rows and index entries that would weigh on the jobs after it
      { name: WRITES_JOB, urls: listUrls([base]) },
    );
    // every job's requests succeed in this world before any is measured
    for (const job of jobs) await assertOneSuccess(job.name, job.urls[0]!);
    const child = fork(fileURLToPath(import.meta.url), ["--load-generator"], {
      execArgv: ["--import", "tsx"],
    });
    // While the WRITES_JOB runs, the indexer's store rewrites a pool of the first pages every 1000/WRITES_PER_SECOND
    // ms (as a loan taken would): each write drops every cached list, in every process.
    let writer: NodeJS.Timeout | undefined;
    let writes = 0;
    let slot = 2;
    const writeOnePool = async () => {
      const { key, pool } = pools[POOLS - 1 - (writes % 100)]!;
      writes++;
      await upsertPool(
        db,
        key,
        { ...pool, currentLoans: BigInt(writes), updatedAt: pool.updatedAt + 1n },
        slot++,
      );
    };
    const results = await new Promise<LoadResult[]>((resolve, reject) => {
      child.on("message", (m) => {
        const phase = m as { starting?: string | null };
        if (phase.starting === undefined) return resolve(m as LoadResult[]);
        clearInterval(writer);
        if (phase.starting === WRITES_JOB)
          writer = setInterval(() => void writeOnePool().catch(reject), 1000 / WRITES_PER_SECOND);
      });
      child.once("error", reject);
      child.send(jobs);
    });
    child.kill();
    console.log(`${writes} pool writes during "${WRITES_JOB}", each dropping the cached lists`);
    for (const p of processes) p.stop();
    await app.close();
    await uncached.close();
    await trivial.close();

    const trivialOpen = results.find((r) => r.name.startsWith("trivial") && r.mode === "open")!;
    const trivialClosed = results.find((r) => r.name.startsWith("trivial") && r.mode === "closed")!;
    // Verdicts on the paths a user meets after a write (no list cache; the cache dropped by 20 writes a second)
    // and /loan/user (never cached); the cache-hit figures are printed beside them, never instead.
    // (the static page only shows what the answer's size alone costs on this machine)
    const judged = (r: LoadResult) =>
      r.mode === "open" &&
      !r.name.startsWith("trivial") &&
      !r.name.startsWith("static") &&
      r.name !== "GET /dirty/pools";
    let withinTarget = true;
    let withinTenTrivial = true;
    const verdict = createVerdict("api-read");
    for (const r of results) {
      // any failed request fails the run, on every job (the cache-hit and trivial ones too)
      verdict.check(
        r.errors === 0,
        `${r.name} (${r.mode} loop)`,
        `${r.errors} of ${r.requests} not answered 200`,
      );
      const ratio = r.mode === "open" ? r.p99 / trivialOpen.p99 : trivialClosed.rps / r.rps;
      const label =
        r.mode === "open"
          ? `open loop ${RATE_PER_SECOND} req/s: achieved ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(1)} ms, errors ${r.errors}; p99 ratio to trivial ${ratio.toFixed(1)}x`
          : `closed loop x${CLOSED_LOOP_CONCURRENCY}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors}; throughput ratio trivial/route ${ratio.toFixed(1)}x`;
      console.log(`${r.name.padEnd(34)} ${label}${judged(r) ? "  [judged]" : ""}`);
      if (judged(r)) {
        if (r.p99 > 50 || r.errors > 0 || r.rps < RATE_PER_SECOND * 0.95) withinTarget = false;
        if (r.name.includes("no list cache") && ratio > 10) withinTenTrivial = false;
      }
    }
    const closed = (name: string) => results.find((r) => r.name === name && r.mode === "closed")!;
    const one = closed("one API process (no list cache)");
    const two = closed("two API processes (no list cache)");
    console.log(
      `two API processes over one PostgreSQL vs one (closed loop x${CLOSED_LOOP_CONCURRENCY}, uncached list): ${two.rps.toFixed(0)} vs ${one.rps.toFixed(0)} req/s (${(two.rps / one.rps).toFixed(2)}x on this machine's cores, the load generator included)`,
    );
    console.log(
      withinTarget
        ? "target met: p99 <= 50 ms at 500 req/s without the list cache"
        : "TARGET MISSED: p99 > 50 ms at 500 req/s without the list cache",
    );
    console.log(
      withinTenTrivial
        ? "target met: the uncached list's p99 within 10x of the trivial route's"
        : "TARGET MISSED: the uncached list's p99 is more than 10x the trivial route's",
    );
    verdict.check(withinTarget, "uncached list", "p99 > 50 ms, an error, or < 95% of 500 req/s");
    verdict.check(withinTenTrivial, "uncached list vs trivial", "p99 more than 10x the trivial route's");
    verdict.finish();
  } finally {
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv.includes("--api-process")) {
  const app = await createBenchApp(process.argv[process.argv.indexOf("--api-process") + 1]!, {
    LIST_CACHE_MS: "0",
  });
  process.send?.(await app.listen({ host: "127.0.0.1", port: 0 }));
} else if (process.argv.includes("--load-generator")) {
  process.once("message", (jobs) => {
    void runLoadGenerator(jobs as LoadRequest[]).then((results) => {
      process.send?.(results, () => process.exit(0));
    });
  });
} else {
  await main();
}
