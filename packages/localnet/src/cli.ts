import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startLocalnet } from "./start-localnet.ts";

const HELP = `cistern-localnet: embedded Solana cluster (LiteSVM) for Cistern development

Options:
  --port <n>          JSON-RPC port (default 8899; PubSub on port+1 and on the same port)
  --data-dir <path>   state directory (default ./.data/localnet)
  --reset             start from an empty chain
  --no-seed           do not seed the demo world
  --program <path>    deploy a .so program at start (repeatable)
  --slot-ms <n>       slot duration in ms (default 400)
  --no-admin          disable the localnet_ admin methods
  -h, --help          show this help`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      "data-dir": { type: "string" },
      reset: { type: "boolean", default: false },
      "no-seed": { type: "boolean", default: false },
      program: { type: "string", multiple: true },
      "slot-ms": { type: "string" },
      "no-admin": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const port = values.port === undefined ? 8899 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0..65535, got ${values.port}`);
  const slotMs = values["slot-ms"] === undefined ? undefined : Number(values["slot-ms"]);
  if (slotMs !== undefined && (!Number.isInteger(slotMs) || slotMs < 10))
    throw new Error("--slot-ms must be an integer >= 10");
  const dataDir = resolve(values["data-dir"] ?? "./.data/localnet");
  const net = await startLocalnet({
    rpcPort: port,
    dataDir,
    reset: values.reset,
    seed: !values["no-seed"],
    slotMs,
    admin: !values["no-admin"],
    programs: (values.program ?? []).map((soPath) => ({ soPath: resolve(soPath) })),
  });
  console.log(`RPC URL:        ${net.rpcUrl}`);
  console.log(`WebSocket URL:  ${net.wsUrl} (also ${net.rpcUrl.replace("http", "ws")})`);
  console.log(`Data directory: ${net.dataDir}`);
  console.log(`Faucet:         ${net.faucetAddress}`);
  for (const p of net.programs) console.log(`Program:        ${p.programId}  (${p.soPath})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: saving snapshot and stopping...`);
    net.close().then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((e) => {
  console.error(`cistern-localnet: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
