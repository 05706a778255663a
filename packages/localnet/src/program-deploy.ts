import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import {
  createRpcDeployTransport,
  deployProgram,
  findProgramDataAddress,
  PROGRAMDATA_METADATA_SIZE,
} from "@cistern/sdk";
import {
  address,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
} from "@solana/kit";
import { decodeAddress } from "./base58.ts";
import type { Chain } from "./chain.ts";
import { keypairFromSecretKey, type LocalKeypair, loadOrCreateKeypair } from "./keypair.ts";

/** Outcome of deploying one program at start. */
export interface DeployedProgram {
  programId: string;
  soPath: string;
  action: "deployed" | "upgraded" | "unchanged";
}

function findKeypairFor(dataDir: string, programId: string): LocalKeypair | null {
  for (const f of readdirSync(dataDir)) {
    if (!f.endsWith("-keypair.json")) continue;
    try {
      const kp = keypairFromSecretKey(
        Uint8Array.from(JSON.parse(readFileSync(join(dataDir, f), "utf8")) as number[]),
      );
      if (kp.address === programId) return kp;
    } catch {
      // not a keypair file
    }
  }
  return null;
}

/** Whether the on-chain ProgramData holds exactly `bytes` (then zero padding). */
function isUnchanged(chain: Chain, programDataAddress: string, bytes: Uint8Array): boolean {
  const data = chain.svm.getAccount(decodeAddress(programDataAddress))?.data();
  if (!data || data.length < PROGRAMDATA_METADATA_SIZE + bytes.length) return false;
  const code = Buffer.from(data.subarray(PROGRAMDATA_METADATA_SIZE));
  if (!code.subarray(0, bytes.length).equals(Buffer.from(bytes))) return false;
  return code.subarray(bytes.length).every((b) => b === 0);
}

/**
 * Deploys (or upgrades when the bytes changed) `.so` programs through the BPF Upgradeable Loader
 * instructions sent to the running localnet over JSON-RPC (the real deploy path, via @cistern/sdk).
 * The program keypair lives in the data dir (`program-<name>-keypair.json`); the faucet pays and is
 * the upgrade authority.
 */
export async function deployLocalnetPrograms(input: {
  chain: Chain;
  rpcUrl: string;
  wsUrl: string;
  dataDir: string;
  payer: LocalKeypair;
  programs: { programId?: string; soPath: string }[];
}): Promise<DeployedProgram[]> {
  const out: DeployedProgram[] = [];
  if (input.programs.length === 0) return out;
  const rpc = createSolanaRpc(input.rpcUrl);
  const rpcSubscriptions = createSolanaRpcSubscriptions(input.wsUrl);
  const transport = createRpcDeployTransport({ rpc, rpcSubscriptions, commitment: "confirmed" });
  const payer = await createKeyPairSignerFromBytes(input.payer.secretKey);
  for (const p of input.programs) {
    if (!existsSync(p.soPath)) throw new Error(`program file not found: ${p.soPath}`);
    const bytes = new Uint8Array(readFileSync(p.soPath));
    let kp: LocalKeypair;
    if (p.programId) {
      const found = findKeypairFor(input.dataDir, p.programId);
      if (!found)
        throw new Error(`no keypair for program ${p.programId} in ${input.dataDir} (*-keypair.json)`);
      kp = found;
    } else {
      kp = loadOrCreateKeypair(join(input.dataDir, `program-${basename(p.soPath, ".so")}-keypair.json`));
    }
    const programData = await findProgramDataAddress(address(kp.address));
    if (isUnchanged(input.chain, programData, bytes)) {
      out.push({ programId: kp.address, soPath: p.soPath, action: "unchanged" });
      continue;
    }
    const program = await createKeyPairSignerFromBytes(kp.secretKey);
    const result = await deployProgram({
      transport,
      programBytes: bytes,
      program,
      payer,
      maxDataLenBytes: BigInt(bytes.length * 2),
    });
    out.push({
      programId: kp.address,
      soPath: p.soPath,
      action: result.kind === "deploy" ? "deployed" : "upgraded",
    });
  }
  return out;
}
