/**
 * Deploys or upgrades a program with the BPF Upgradeable Loader over JSON-RPC + PubSub.
 *
 *   npx tsx packages/sdk/src/deploy-cli.ts --rpc http://127.0.0.1:8899 [--ws ws://127.0.0.1:8900] \
 *     --program programs/lending/build/lending.so --keypair program-keypair.json --payer payer.json
 *
 * Without --ws the PubSub URL is the RPC URL with http(s) replaced by ws(s) and port + 1 (the Solana
 * convention; localnet also serves PubSub on the HTTP port itself).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { createSolanaRpc, createSolanaRpcSubscriptions } from "@solana/kit";
import { deployProgram } from "./deploy/deploy-program.ts";
import { readKeypairFile } from "./deploy/keypair-file.ts";
import { createRpcDeployTransport } from "./deploy/rpc-deploy-transport.ts";

/** Default PubSub URL for an RPC URL: ws(s)://host:(port+1). */
export function getDefaultWebsocketUrl(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (url.port !== "") url.port = String(Number(url.port) + 1);
  return url.toString();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rpc: { type: "string" },
      ws: { type: "string" },
      program: { type: "string" },
      keypair: { type: "string" },
      payer: { type: "string" },
      authority: { type: "string" },
    },
  });
  if (!values.rpc || !values.program || !values.keypair || !values.payer) {
    console.error(
      "usage: deploy-cli --rpc URL [--ws URL] --program path.so --keypair program-keypair.json --payer payer.json [--authority authority.json]",
    );
    process.exit(2);
  }
  const rpc = createSolanaRpc(values.rpc);
  const rpcSubscriptions = createSolanaRpcSubscriptions(values.ws ?? getDefaultWebsocketUrl(values.rpc));
  const programBytes = new Uint8Array(await readFile(values.program));
  const program = await readKeypairFile(values.keypair);
  const payer = await readKeypairFile(values.payer);
  const authority = values.authority ? await readKeypairFile(values.authority) : payer;
  const result = await deployProgram({
    transport: createRpcDeployTransport({ rpc, rpcSubscriptions }),
    programBytes,
    program,
    payer,
    authority,
    onProgress: ({ step, done, total }) => {
      if (step !== "write" || done === total || done % 20 === 0) console.error(`${step} ${done}/${total}`);
    },
  });
  console.log(
    JSON.stringify({
      kind: result.kind,
      programId: result.programAddress,
      programData: result.programDataAddress,
      writeTransactions: result.writeTransactionCount,
      lastSignature: result.signatures.at(-1),
    }),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
