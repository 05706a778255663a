// Localnet throughput: sustained pre-signed SOL transfers per second through sendTransaction over
// HTTP (keep-alive, 128 concurrent connections with one request in flight each, client in a worker
// thread), against LiteSVM executing the same transactions in-process. Both figures and the ratio
// are printed, for one call per HTTP request and for JSON-RPC batches of sendTransaction calls (what a
// high-throughput client sends). Every answer waits for the ledger fdatasync of its batch (group commit), so enough
// requests must be in flight to cover the disk's fsync latency (printed too).
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import {
  buildSignedTransaction,
  generateLocalKeypair,
  type LocalKeypair,
  startLocalnet,
} from "@cistern/localnet";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { Account, LiteSvm } from "litesvm/dist/internal";

const TX_COUNT = Number(process.env.LOCALNET_BENCH_TXS ?? 10000);
/** sendTransaction calls per HTTP request in the batched run (JSON-RPC 2.0 batch). */
const BATCH_SIZE = Number(process.env.LOCALNET_BENCH_BATCH ?? 16);
const CONNECTIONS = Number(process.env.LOCALNET_BENCH_CONNECTIONS ?? 128);
const WARMUP = 1000;
const PAYERS = 8;
const SYSTEM = new Uint8Array(32);

function transfer(from: LocalKeypair, to: Uint8Array, lamports: bigint) {
  const data = new Uint8Array(12);
  const dv = new DataView(data.buffer);
  dv.setUint32(0, 2, true);
  dv.setBigUint64(4, lamports, true);
  return {
    programId: SYSTEM,
    keys: [
      { pubkey: from.publicKey, isSigner: true, isWritable: true },
      { pubkey: to, isSigner: false, isWritable: true },
    ],
    data,
  };
}

// Load generator: raw keep-alive HTTP/1.1 sockets (one request in flight per connection), so the
// client spends little CPU and the figure measures the server.
const CLIENT = `
const { parentPort, workerData } = require("node:worker_threads");
const net = require("node:net");
const { host, port, bodies, connections } = workerData;
let next = 0, errors = 0, firstError = null, done = 0;
const requests = bodies.map((b) => Buffer.from(
  "POST / HTTP/1.1\\r\\nHost: " + host + ":" + port + "\\r\\nContent-Type: application/json\\r\\nContent-Length: " +
  Buffer.byteLength(b) + "\\r\\nConnection: keep-alive\\r\\n\\r\\n" + b));
function lane() {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    sock.setNoDelay(true);
    let buf = Buffer.alloc(0);
    const send = () => {
      if (next >= requests.length) { sock.end(); resolve(); return; }
      sock.write(requests[next++]);
    };
    sock.on("connect", send);
    sock.on("data", (chunk) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        const headerEnd = buf.indexOf("\\r\\n\\r\\n");
        if (headerEnd < 0) return;
        const head = buf.subarray(0, headerEnd).toString("latin1");
        const m = /content-length: (\\d+)/i.exec(head);
        const len = m ? Number(m[1]) : 0;
        if (buf.length < headerEnd + 4 + len) return;
        const body = buf.subarray(headerEnd + 4, headerEnd + 4 + len).toString("utf8");
        buf = buf.subarray(headerEnd + 4 + len);
        if (!head.startsWith("HTTP/1.1 200") || body.includes('"error"')) { errors++; firstError ??= head.split("\\r\\n")[0] + " " + body; }
        done++;
        send();
      }
    });
    sock.on("error", (e) => { errors++; firstError ??= String(e); resolve(); });
  });
}
(async () => {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: connections }, lane));
  parentPort.postMessage({ ms: performance.now() - t0, errors, firstError, done });
})();
`;

/** Average fdatasync latency (ms) of a small append in `dir`. */
function measureFsyncMs(dir: string): number {
  const fd = openSync(join(dir, "fsync-probe"), "a");
  const t = performance.now();
  for (let i = 0; i < 20; i++) {
    writeSync(fd, Buffer.alloc(16_384, 1));
    fdatasyncSync(fd);
  }
  closeSync(fd);
  rmSync(join(dir, "fsync-probe"));
  return (performance.now() - t) / 20;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "cistern-localnet-bench-"));
  const fsyncMs = measureFsyncMs(dataDir);
  const net = await startLocalnet({ rpcPort: 0, dataDir, seed: false });
  try {
    const payers = Array.from({ length: PAYERS }, () => generateLocalKeypair());
    for (const p of payers) await net.fundWallet(p.address, { lamports: 1_000_000_000_000n });
    const recipientKp = generateLocalKeypair();
    const recipient = recipientKp.publicKey;
    await net.fundWallet(recipientKp.address, { lamports: 1_000_000_000n });
    const blockhash = await fetch(net.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getLatestBlockhash" }),
    })
      .then((r) => r.json() as Promise<{ result: { value: { blockhash: string } } }>)
      .then((j) => Uint8Array.from(getBase58Encoder().encode(j.result.value.blockhash)));

    const tSign = performance.now();
    const wire: Uint8Array[] = [];
    for (let i = 0; i < TX_COUNT; i++) {
      const payer = payers[i % PAYERS]!;
      wire.push(buildSignedTransaction(payer, [transfer(payer, recipient, BigInt(1_000 + i))], blockhash));
    }
    const signMs = performance.now() - tSign;

    // In-process baseline: the same bytes through LiteSVM directly (fresh instance per repeat;
    // the median of 3 repeats, because the machine is shared).
    const inRuns: { ms: number; failed: number }[] = [];
    for (let r = 0; r < 3; r++) {
      const svm = new LiteSvm();
      svm.setBlockhashCheck(false);
      for (const p of payers)
        svm.setAccount(p.publicKey, new Account(1_000_000_000_000n, new Uint8Array(), SYSTEM, false, 0n));
      svm.setAccount(recipient, new Account(1_000_000_000n, new Uint8Array(), SYSTEM, false, 0n));
      const t = performance.now();
      let failed = 0;
      for (const w of wire) if ("err" in svm.sendLegacyTransaction(w)) failed++;
      inRuns.push({ ms: performance.now() - t, failed });
    }
    inRuns.sort((x, y) => x.ms - y.ms);
    const inMs = inRuns[1]!.ms;
    const inFailed = inRuns[1]!.failed;
    const inTps = TX_COUNT / (inMs / 1000);

    const run = async (skipPreflight: boolean, txs: Uint8Array[], batchSize = 1) => {
      const calls = txs.map((w, i) => ({
        jsonrpc: "2.0",
        id: i,
        method: "sendTransaction",
        params: [Buffer.from(w).toString("base64"), { encoding: "base64", skipPreflight }],
      }));
      const bodies: string[] = [];
      for (let i = 0; i < calls.length; i += batchSize) {
        bodies.push(JSON.stringify(batchSize === 1 ? calls[i] : calls.slice(i, i + batchSize)));
      }
      const u = new URL(net.rpcUrl);
      const worker = new Worker(CLIENT, {
        eval: true,
        workerData: { host: u.hostname, port: Number(u.port), bodies, connections: CONNECTIONS },
      });
      const out = await new Promise<{ ms: number; errors: number; firstError: string | null }>(
        (resolve, reject) => {
          worker.once("message", resolve);
          worker.once("error", reject);
        },
      );
      await worker.terminate();
      return out;
    };
    // Warm-up (JIT, sockets, ledger file) with the first WARMUP transactions, not counted.
    const warm = await run(true, wire.slice(0, WARMUP));
    const third = Math.floor((TX_COUNT - WARMUP) / 3);
    const skip = await run(true, wire.slice(WARMUP, WARMUP + third));
    const pre = await run(false, wire.slice(WARMUP + third, WARMUP + 2 * third));
    const batched = await run(true, wire.slice(WARMUP + 2 * third), BATCH_SIZE);
    const skipTps = third / (skip.ms / 1000);
    const preTps = third / (pre.ms / 1000);
    const batchedCount = TX_COUNT - WARMUP - 2 * third;
    const batchedTps = batchedCount / (batched.ms / 1000);

    let expectedLamports = 1_000_000_000n;
    for (let i = 0; i < TX_COUNT; i++) expectedLamports += BigInt(1_000 + i);
    const landed = await fetch(net.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getBalance",
        params: [getBase58Decoder().decode(recipient)],
      }),
    }).then((r) => r.json() as Promise<{ result: { value: number } }>);

    console.log(`data dir fdatasync latency: ${fsyncMs.toFixed(2)} ms`);
    console.log(
      `transactions: ${TX_COUNT} pre-signed SOL transfers (${PAYERS} payers), signing took ${signMs.toFixed(0)} ms`,
    );
    console.log(
      `in-process LiteSVM (sendLegacyTransaction): ${inTps.toFixed(0)} tx/s (median of 3: ${inMs.toFixed(0)} ms for ${TX_COUNT}, ${inFailed} failed)`,
    );
    console.log(
      `HTTP sendTransaction skipPreflight=true : ${skipTps.toFixed(0)} tx/s (${third} txs, one call per request, ${CONNECTIONS} keep-alive connections, ${skip.errors} errors)`,
    );
    console.log(
      `HTTP sendTransaction skipPreflight=false: ${preTps.toFixed(0)} tx/s (${third} txs, one call per request, preflight simulates each first, ${pre.errors} errors)`,
    );
    console.log(
      `HTTP sendTransaction skipPreflight=true, JSON-RPC batches of ${BATCH_SIZE}: ${batchedTps.toFixed(0)} tx/s (${batchedCount} txs, ${batched.errors} errors)`,
    );
    console.log(`ratio in-process / HTTP (skipPreflight=true): ${(inTps / skipTps).toFixed(2)}x`);
    console.log(`ratio in-process / HTTP (preflight):          ${(inTps / preTps).toFixed(2)}x`);
    console.log(
      `ratio in-process / HTTP (batches of ${BATCH_SIZE}):     ${(inTps / batchedTps).toFixed(2)}x`,
    );
    console.log(
      `every HTTP transaction durable (fdatasync group commit before each answer) and landed: ${
        BigInt(landed.result.value) === expectedLamports
          ? "yes"
          : `NO (recipient has ${landed.result.value}, expected ${expectedLamports})`
      }`,
    );
    const firstError = skip.firstError ?? pre.firstError ?? batched.firstError;
    if (firstError) console.log(`first error: ${firstError}`);
    const noErrors = warm.errors + skip.errors + pre.errors + batched.errors === 0;
    const verdict = (tps: number) => (tps >= 3000 && inTps / tps <= 4 && noErrors ? "met" : "NOT met");
    console.log(
      `target (>= 3000 tx/s and within 4x of in-process), one call per request: ${verdict(skipTps)}`,
    );
    console.log(
      `target (>= 3000 tx/s and within 4x of in-process), batches of ${BATCH_SIZE}:     ${verdict(batchedTps)}`,
    );
    // errors or a transaction not landed fail the run whatever the rate
    if (!noErrors || BigInt(landed.result.value) !== expectedLamports) {
      console.log("localnet-throughput: verdict MISSED (errors or a transaction not landed)");
      process.exitCode = 1;
    }
  } finally {
    await net.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
