// Chat fan-out benchmark: 1,000 websocket subscribers (graphql-ws, signed in) over 2 API processes sharing one
// PostgreSQL; 500 direct-message pairs, one member of each on each process. Messages are sent over HTTP to
// process 1 at 50 per second and timed from send to receipt on process 2's socket (LISTEN/NOTIFY between the
// processes). Target: p99 <= 100 ms. Also reports the API processes' memory per idle connection.
// Needs PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth); BENCH_POSTGRES_URL overrides the admin URL.
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";

const PAIRS = 500;
const RATE_PER_SECOND = 50;
const SECONDS = 10;
const TARGET_P99_MS = 100;

interface ServerReport {
  url: string;
}
interface MemoryReport {
  rssBytes: number;
  sockets: number;
  subscribers: number;
}

/** Child process: one API process (no chain: the chat needs only the database). */
async function runServer(databaseUrl: string): Promise<void> {
  const { startApi } = await import("../apps/api/src/start-api.ts");
  const { loadConfig } = await import("../apps/api/src/config/config.ts");
  const api = await startApi(
    loadConfig({
      LOG_LEVEL: "silent",
      // one client sends the whole load: the per-client rate limit would measure itself, not the API
      RATE_LIMIT_PER_MINUTE: "0",
      DATA_DIR: `/tmp/cistern-chat-bench-${process.pid}`,
      DATABASE_URL: databaseUrl,
      API_PORT: "0",
      API_HOST: "127.0.0.1",
      PRICE_REFRESH_MS: "3600000",
    }),
  );
  process.send!({ url: api.url } satisfies ServerReport);
  process.on("message", (message: string) => {
    if (message === "memory") {
      globalThis.gc?.();
      process.send!({
        rssBytes: process.memoryUsage().rss,
        sockets: api.app.chat.socketCount(),
        subscribers: api.app.chat.bus.subscriberCount(),
      } satisfies MemoryReport);
    } else if (message === "stop") {
      void api.close().then(() => process.exit(0));
    }
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as T));
    child.send(message);
  });
}

async function main(): Promise<void> {
  const { getDirectRoomId } = await import("@cistern/protocol");
  const { runMigrations } = await import("../apps/api/src/db/migrate.ts");
  const { openPostgresDatabase } = await import("../apps/api/src/db/postgres-database.ts");
  const { newWallet, signIn, socketClient, gql } = await import("../apps/api/test/chat/chat-helpers.ts");

  const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `cistern_chat_bench_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = adminUrl.replace(/\/[^/]*$/, `/${name}`);
  const db = await openPostgresDatabase(url);
  await runMigrations(db);
  await db.close();

  const servers = [0, 1].map(() =>
    fork(fileURLToPath(import.meta.url), ["server", url], { execArgv: ["--import", "tsx", "--expose-gc"] }),
  );
  const clients: { dispose(): Promise<void> }[] = [];
  try {
    const urls = await Promise.all(
      servers.map(
        (s) => new Promise<string>((resolve) => s.once("message", (m) => resolve((m as ServerReport).url))),
      ),
    );
    // warm both processes' GraphQL paths before measuring memory
    for (const u of urls)
      await gql(u, 'mutation { loginMessage(wallet: "11111111111111111111111111111111") { nonce } }');
    const idle = await Promise.all(servers.map((s) => ask<MemoryReport>(s, "memory")));

    const t0 = performance.now();
    const pairs = await Promise.all(
      Array.from({ length: PAIRS }, async () => {
        const [a, b] = await Promise.all([newWallet(), newWallet()]);
        const [asA, asB] = await Promise.all([signIn(urls[0]!, a), signIn(urls[1]!, b)]);
        return { a, b, asA, asB, room: getDirectRoomId(a.address, b.address) };
      }),
    );
    const signedInMs = performance.now() - t0;

    // Every wallet subscribes on its own process: A on process 1, B on process 2.
    const sentAt = new Map<string, number>();
    const crossMs: number[] = [];
    const localMs: number[] = [];
    let ready = 0;
    for (const pair of pairs) {
      for (const [who, credential, base] of [
        ["a", pair.asA, urls[0]!],
        ["b", pair.asB, urls[1]!],
      ] as const) {
        const client = socketClient(base, { ...credential });
        clients.push(client);
        client.subscribe<{ messageAdded: { text: string } }>(
          { query: "subscription { messageAdded { text } }" },
          {
            next: ({ data }) => {
              const started = sentAt.get(data!.messageAdded.text);
              if (started !== undefined) (who === "b" ? crossMs : localMs).push(performance.now() - started);
            },
            error: () => undefined,
            complete: () => undefined,
          },
        );
        ready++;
      }
    }
    // wait until both processes hold every subscription
    for (;;) {
      const counts = await Promise.all(servers.map((s) => ask<MemoryReport>(s, "memory")));
      if (counts.every((c) => c.subscribers >= PAIRS)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const busy = await Promise.all(servers.map((s) => ask<MemoryReport>(s, "memory")));

    // Open loop: 50 messages a second over HTTP to process 1, each from a different pair.
    const total = RATE_PER_SECOND * SECONDS;
    const sends: Promise<unknown>[] = [];
    let errors = 0;
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / RATE_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const pair = pairs[i % PAIRS]!;
      const text = `bench message ${i}`;
      sentAt.set(text, performance.now());
      sends.push(
        gql(
          urls[0]!,
          "mutation($r: ID!, $t: String!) { sendMessage(roomId: $r, text: $t) { id } }",
          { r: pair.room, t: text },
          pair.asA,
        ).then((r) => {
          if (r.errors) errors++;
        }),
      );
    }
    await Promise.all(sends);
    const deadline = performance.now() + 5000;
    while (crossMs.length < total - errors && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));

    const cross = [...crossMs].sort((x, y) => x - y);
    const local = [...localMs].sort((x, y) => x - y);
    const perConnectionKb = busy.map((m, i) => (m.rssBytes - idle[i]!.rssBytes) / m.sockets / 1024);
    console.log(
      `signed in ${PAIRS * 2} wallets in ${(signedInMs / 1000).toFixed(1)} s; ${ready} subscribers connected ` +
        `(${busy.map((m) => m.sockets).join(" + ")} sockets over 2 processes)`,
    );
    console.table([
      {
        path: "send (process 1) -> subscriber on process 2 (NOTIFY)",
        messages: `${cross.length}/${total}`,
        "rate /s": RATE_PER_SECOND,
        "p50 ms": percentile(cross, 50).toFixed(1),
        "p99 ms": percentile(cross, 99).toFixed(1),
        "max ms": (cross.at(-1) ?? Number.NaN).toFixed(1),
      },
      {
        path: "send (process 1) -> subscriber on process 1",
        messages: `${local.length}/${total}`,
        "rate /s": RATE_PER_SECOND,
        "p50 ms": percentile(local, 50).toFixed(1),
        "p99 ms": percentile(local, 99).toFixed(1),
        "max ms": (local.at(-1) ?? Number.NaN).toFixed(1),
      },
    ]);
    console.log(
      `memory per idle subscribed connection: ${perConnectionKb.map((kb) => `${kb.toFixed(1)} KiB`).join(", ")} ` +
        `(RSS ${idle.map((m) => (m.rssBytes / 2 ** 20).toFixed(0)).join("/")} MiB -> ${busy.map((m) => (m.rssBytes / 2 ** 20).toFixed(0)).join("/")} MiB); send errors: ${errors}`,
    );
    const p99 = percentile(cross, 99);
    const verdict = cross.length === total && errors === 0 && p99 <= TARGET_P99_MS;
    console.log(
      `${verdict ? "PASS" : "FAIL"}: cross-process fan-out p99 ${p99.toFixed(1)} ms (target <= ${TARGET_P99_MS} ms)`,
    );
    if (!verdict) process.exitCode = 1;
  } finally {
    await Promise.all(clients.map((c) => c.dispose()));
    await Promise.all(
      servers.map(
        (s) =>
          new Promise((resolve) => {
            s.once("exit", resolve);
            s.send("stop");
          }),
      ),
    );
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv[2] === "server") await runServer(process.argv[3]!);
else await main();
