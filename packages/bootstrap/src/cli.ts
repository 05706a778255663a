/**
 * Brings a cluster to a usable Cistern state (idempotent; safe on every start):
 *
 *   npx tsx packages/bootstrap/src/cli.ts --rpc http://127.0.0.1:8899 --data-dir .cistern \
 *     [--ws ws://127.0.0.1:8900] [--cluster localnet|devnet|mainnet] [--demo] [--so programs/lending/build/lending.so]
 *
 * Without --ws the PubSub URL is the RPC URL with ws(s): (a Cistern localnet serves PubSub on its HTTP port;
 * pass --ws for devnet / mainnet providers). Prints the program id and the keys' public addresses as JSON.
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { bootstrapCluster } from "./bootstrap-cluster.ts";
import { isBootstrapError } from "./bootstrap-error.ts";
import { isCluster } from "./cluster-info.ts";

/** The committed lending program build. */
export const DEFAULT_LENDING_SO_PATH = join(
  import.meta.dirname,
  "../../../programs/lending/build/lending.so",
);

/** PubSub URL served on the same host and port as the RPC URL (ws: / wss:). */
export function getSameHostWebsocketUrl(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

const USAGE =
  "usage: cli.ts --rpc URL --data-dir DIR [--ws URL] [--cluster localnet|devnet|mainnet] [--demo] [--so PATH]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rpc: { type: "string" },
      ws: { type: "string" },
      "data-dir": { type: "string" },
      cluster: { type: "string", default: "localnet" },
      demo: { type: "boolean", default: false },
      so: { type: "string" },
    },
  });
  if (!values.rpc || !values["data-dir"] || !isCluster(values.cluster)) {
    console.error(USAGE);
    process.exit(2);
  }
  const result = await bootstrapCluster({
    rpcUrl: values.rpc,
    wsUrl: values.ws ?? getSameHostWebsocketUrl(values.rpc),
    dataDir: resolve(values["data-dir"]),
    cluster: values.cluster,
    lendingSoPath: resolve(values.so ?? DEFAULT_LENDING_SO_PATH),
    demo: values.demo,
    log: (line) => console.error(line),
  });
  console.log(
    JSON.stringify(
      {
        cluster: result.cluster,
        lendingProgramId: result.lendingProgramId,
        admin: result.adminAddress,
        oracle: result.oracleAddress,
        treasury: result.treasuryAddress,
        program: result.programAction,
        config: result.configAction,
        clusterInfo: result.clusterInfoPath,
        ...(result.demo
          ? {
              demoLenders: result.demo.lenders.map((l) => ({
                name: l.name,
                address: l.address,
                pools: l.pools.map((p) => p.address),
              })),
            }
          : {}),
      },
      null,
      2,
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      if (isBootstrapError(error)) console.error(`bootstrap error ${error.code}: ${error.message}`);
      else console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(1);
    },
  );
}
