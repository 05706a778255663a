import {
  BPF_LOADER_UPGRADEABLE_ADDRESS,
  BUFFER_METADATA_SIZE,
  deployProgram,
  findProgramDataAddress,
  isSdkError,
  PROGRAM_ACCOUNT_SIZE,
  PROGRAMDATA_METADATA_SIZE,
} from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { BOOTSTRAP_ERROR, BootstrapError } from "./bootstrap-error.ts";
import { type ChainClient, describe } from "./chain-client.ts";

/** What {@link ensureLendingProgram} did. */
export type ProgramDeployAction = "deployed" | "upgraded" | "unchanged";

/** Lamports kept aside for transaction fees of a deploy (about 60 Write transactions and change). */
const DEPLOY_FEE_ALLOWANCE_LAMPORTS = 5_000_000n;

/** Whether ProgramData account data holds exactly `programBytes` followed by zero padding. */
export function isProgramDataEqual(programData: Uint8Array, programBytes: Uint8Array): boolean {
  const code = programData.subarray(PROGRAMDATA_METADATA_SIZE);
  if (code.length < programBytes.length) return false;
  for (let i = 0; i < programBytes.length; i++) if (code[i] !== programBytes[i]) return false;
  for (let i = programBytes.length; i < code.length; i++) if (code[i] !== 0) return false;
  return true;
}

/** Lamports the admin needs to deploy (first time) or upgrade the program. */
async function getDeployCostLamports(
  chain: ChainClient,
  programBytes: Uint8Array,
  firstDeploy: boolean,
): Promise<bigint> {
  const rent = (bytes: number) => chain.transport.getMinimumBalanceForRentExemption(BigInt(bytes));
  let total = (await rent(BUFFER_METADATA_SIZE + programBytes.length)) + DEPLOY_FEE_ALLOWANCE_LAMPORTS;
  if (firstDeploy) {
    total += await rent(PROGRAM_ACCOUNT_SIZE);
    total += await rent(PROGRAMDATA_METADATA_SIZE + programBytes.length * 2);
  }
  return total;
}

/**
 * Deploys the lending program with the upgradeable loader (admin pays and is the upgrade authority),
 * upgrades it in place when the on-chain bytes differ from `programBytes`, and does nothing when they are
 * equal. Waits until the program is callable (the slot after a deploy or upgrade).
 */
export async function ensureLendingProgram(input: {
  chain: ChainClient;
  programBytes: Uint8Array;
  program: KeyPairSigner;
  admin: KeyPairSigner;
}): Promise<{ action: ProgramDeployAction; programDataAddress: Address }> {
  const { chain, programBytes, program, admin } = input;
  const programDataAddress = await findProgramDataAddress(program.address);
  const existing = await chain.fetchAccount(program.address);
  if (existing) {
    if (existing.owner !== BPF_LOADER_UPGRADEABLE_ADDRESS) {
      throw new BootstrapError(
        BOOTSTRAP_ERROR.DEPLOY_FAILED,
        `program account ${program.address} exists and is owned by ${existing.owner}, not the upgradeable loader`,
      );
    }
    const programData = await chain.fetchAccount(programDataAddress);
    if (programData && isProgramDataEqual(programData.data, programBytes)) {
      return { action: "unchanged", programDataAddress };
    }
  }
  const needed = await getDeployCostLamports(chain, programBytes, existing === null);
  const balance = await chain.fetchBalance(admin.address);
  if (balance < needed) {
    throw new BootstrapError(
      BOOTSTRAP_ERROR.INSUFFICIENT_FUNDS,
      `admin ${admin.address} holds ${balance} lamports; the program ${existing ? "upgrade" : "deploy"} needs about ${needed}`,
    );
  }
  try {
    const result = await deployProgram({ transport: chain.transport, programBytes, program, payer: admin });
    // The loader makes a new or upgraded program callable from the next slot.
    await chain.waitForNextSlot();
    return { action: result.kind === "deploy" ? "deployed" : "upgraded", programDataAddress };
  } catch (cause) {
    const what = isSdkError(cause) ? `${cause.message} (sdk ${cause.code})` : describe(cause);
    throw new BootstrapError(
      BOOTSTRAP_ERROR.DEPLOY_FAILED,
      `${existing ? "upgrade" : "deploy"} of the lending program ${program.address} failed: ${what}`,
      { cause },
    );
  }
}
