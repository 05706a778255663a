import {
  type Address,
  appendTransactionMessageInstruction,
  type Blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionMessageSize,
  type Instruction,
  pipe,
  type Signature,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type TransactionSigner,
} from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import { addressFromBytes } from "../address-text.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import type { DeployTransport } from "./deploy-transport.ts";
import {
  BPF_LOADER_UPGRADEABLE_ADDRESS,
  BUFFER_METADATA_SIZE,
  findProgramDataAddress,
  getCloseBufferInstruction,
  getDeployWithMaxDataLenInstruction,
  getExtendProgramInstruction,
  getInitializeBufferInstruction,
  getUpgradeInstruction,
  getWriteInstruction,
  PROGRAM_ACCOUNT_SIZE,
  PROGRAMDATA_METADATA_SIZE,
} from "./upgradeable-loader.ts";

/** Packet size limit of a legacy / v0 transaction, bytes. */
export const TRANSACTION_SIZE_LIMIT_BYTES = 1232;

/** The loader refuses to extend ProgramData by fewer bytes than this. */
export const MIN_EXTEND_PROGRAM_BYTES = 10_240;

/** Result of {@link deployProgram}. */
export interface DeployProgramResult {
  kind: "deploy" | "upgrade";
  programAddress: Address;
  programDataAddress: Address;
  bufferAddress: Address;
  /** Number of Write transactions sent. */
  writeTransactionCount: number;
  /** Every confirmed transaction, in order of confirmation. */
  signatures: Signature[];
}

/**
 * Largest Write chunk that fits one legacy-size transaction (1232 bytes) for this payer/authority pair,
 * measured by compiling a Write transaction with empty data (+2 bytes for the compact length growing).
 */
export function getMaxWriteChunkBytes(
  payer: TransactionSigner,
  authority: TransactionSigner,
  buffer: Address,
): number {
  const probe = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: "11111111111111111111111111111111" as Blockhash, lastValidBlockHeight: 0n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        getWriteInstruction({ buffer, authority, offsetBytes: 0, bytes: new Uint8Array(0) }),
        m,
      ),
  );
  return TRANSACTION_SIZE_LIMIT_BYTES - getTransactionMessageSize(probe) - 2;
}

/**
 * Runs tasks with at most `concurrency` in flight. On the first failure no new task starts; once the tasks
 * in flight have settled, the first error is thrown.
 */
async function runWithConcurrency<T>(tasks: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  let firstError: { error: unknown } | null = null;
  async function worker(): Promise<void> {
    while (next < tasks.length && firstError === null) {
      const index = next++;
      try {
        results[index] = await tasks[index]!();
      } catch (error) {
        firstError ??= { error };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, tasks.length)) }, worker));
  if (firstError !== null) throw (firstError as { error: unknown }).error;
  return results;
}

/** Reads the upgrade authority stored in a ProgramData account (null when the program is immutable). */
function readProgramDataAuthority(data: Uint8Array): Address | null {
  if (data.length < PROGRAMDATA_METADATA_SIZE || data[0] !== 3) {
    throw new SdkError(SDK_ERROR.DEPLOY_PROGRAM_ACCOUNT_MISMATCH, "account is not a ProgramData account");
  }
  if (data[12] === 0) return null;
  return addressFromBytes(data.subarray(13, 45));
}

/**
 * Deploys (first time) or upgrades (program account already deployed) a program with the BPF Upgradeable
 * Loader: creates a buffer, InitializeBuffer, Write in transaction-sized chunks, then DeployWithMaxDataLen
 * (program account created in the same transaction) or Upgrade (ExtendProgram first when the new program is
 * larger than the ProgramData account).
 *
 * @param input.transport - chain access ({@link createRpcDeployTransport} or a test transport)
 * @param input.programBytes - the ELF (.so) bytes
 * @param input.program - the program keypair signer (its address is the program id)
 * @param input.payer - pays fees and rent
 * @param input.authority - upgrade authority (default: payer)
 * @param input.maxDataLenBytes - ProgramData capacity on first deploy (default: 2x the program size)
 * @param input.writeConcurrency - Write transactions in flight at once (default 8)
 */
export async function deployProgram(input: {
  transport: DeployTransport;
  programBytes: Uint8Array;
  program: TransactionSigner;
  payer: TransactionSigner;
  authority?: TransactionSigner;
  maxDataLenBytes?: bigint;
  writeConcurrency?: number;
  onProgress?: (event: { step: string; done: number; total: number }) => void;
}): Promise<DeployProgramResult> {
  const { transport, programBytes, program, payer } = input;
  const authority = input.authority ?? payer;
  const progress = input.onProgress ?? (() => {});
  if (programBytes.length === 0) {
    throw new SdkError(SDK_ERROR.DEPLOY_EMPTY_PROGRAM, "program bytes are empty");
  }
  const programDataAddress = await findProgramDataAddress(program.address);
  const existing = await transport.getAccount(program.address);
  let upgradeFromCapacity: number | null = null;
  if (existing) {
    if (existing.owner !== BPF_LOADER_UPGRADEABLE_ADDRESS || existing.data[0] !== 2) {
      throw new SdkError(
        SDK_ERROR.DEPLOY_PROGRAM_ACCOUNT_MISMATCH,
        `account ${program.address} exists and is not an upgradeable program (owner ${existing.owner})`,
      );
    }
    const programData = await transport.getAccount(programDataAddress);
    if (!programData) {
      throw new SdkError(
        SDK_ERROR.DEPLOY_PROGRAM_ACCOUNT_MISMATCH,
        `ProgramData ${programDataAddress} missing`,
      );
    }
    const currentAuthority = readProgramDataAuthority(programData.data);
    if (currentAuthority !== authority.address) {
      throw new SdkError(
        SDK_ERROR.DEPLOY_AUTHORITY_MISMATCH,
        `upgrade authority is ${currentAuthority ?? "none (immutable)"}, not ${authority.address}`,
      );
    }
    upgradeFromCapacity = programData.data.length - PROGRAMDATA_METADATA_SIZE;
  }

  const maxDataLenBytes = input.maxDataLenBytes ?? BigInt(programBytes.length * 2);
  if (maxDataLenBytes < BigInt(programBytes.length)) {
    throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, "maxDataLenBytes is smaller than the program");
  }

  const signatures: Signature[] = [];
  const send = async (instructions: Instruction[]): Promise<Signature> => {
    const signature = await transport.sendInstructions(instructions, payer);
    signatures.push(signature);
    return signature;
  };

  // 1. Buffer account + InitializeBuffer.
  const buffer = await generateKeyPairSigner();
  const bufferSpace = BigInt(BUFFER_METADATA_SIZE + programBytes.length);
  progress({ step: "create-buffer", done: 0, total: 1 });
  await send([
    getCreateAccountInstruction({
      payer,
      newAccount: buffer,
      lamports: await transport.getMinimumBalanceForRentExemption(bufferSpace),
      space: bufferSpace,
      programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    }),
    getInitializeBufferInstruction({ buffer: buffer.address, authority: authority.address }),
  ]);

  // 2-3. Write, then deploy or upgrade; on failure the buffer is closed so its lamports return to the payer.
  let writeTransactionCount = 0;
  try {
    writeTransactionCount = await writeAndFinish();
  } catch (error) {
    const closed = await transport
      .sendInstructions(
        [getCloseBufferInstruction({ buffer: buffer.address, recipient: payer.address, authority })],
        payer,
      )
      .then(
        () => true,
        () => false,
      );
    throw new SdkError(
      SDK_ERROR.DEPLOY_FAILED,
      `deploy failed (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); ` +
        (closed
          ? `buffer ${buffer.address} closed`
          : `buffer ${buffer.address} left open: close it to recover its lamports`),
      { cause: error },
    );
  }

  async function writeAndFinish(): Promise<number> {
    // 2. Write the program in chunks (order does not matter: each Write carries its offset).
    const chunkBytes = getMaxWriteChunkBytes(payer, authority, buffer.address);
    const tasks: (() => Promise<Signature>)[] = [];
    let written = 0;
    for (let offset = 0; offset < programBytes.length; offset += chunkBytes) {
      const bytes = programBytes.subarray(offset, Math.min(offset + chunkBytes, programBytes.length));
      tasks.push(async () => {
        const signature = await send([
          getWriteInstruction({ buffer: buffer.address, authority, offsetBytes: offset, bytes }),
        ]);
        written++;
        progress({ step: "write", done: written, total: tasks.length });
        return signature;
      });
    }
    await runWithConcurrency(tasks, input.writeConcurrency ?? 8);

    // 3. Deploy or upgrade.
    if (upgradeFromCapacity === null) {
      progress({ step: "deploy", done: 0, total: 1 });
      await send([
        getCreateAccountInstruction({
          payer,
          newAccount: program,
          lamports: await transport.getMinimumBalanceForRentExemption(BigInt(PROGRAM_ACCOUNT_SIZE)),
          space: PROGRAM_ACCOUNT_SIZE,
          programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
        }),
        getDeployWithMaxDataLenInstruction({
          payer,
          programData: programDataAddress,
          program: program.address,
          buffer: buffer.address,
          authority,
          maxDataLenBytes,
        }),
      ]);
    } else {
      progress({ step: "upgrade", done: 0, total: 1 });
      if (programBytes.length > upgradeFromCapacity) {
        // Extend in its own transaction: the loader refuses an upgrade in the slot of an extend.
        await send([
          getExtendProgramInstruction({
            programData: programDataAddress,
            program: program.address,
            payer,
            additionalBytes: Math.max(programBytes.length - upgradeFromCapacity, MIN_EXTEND_PROGRAM_BYTES),
          }),
        ]);
      }
      // The loader also refuses an upgrade in the slot the program was deployed in.
      await transport.waitForNextSlot();
      await send([
        getUpgradeInstruction({
          programData: programDataAddress,
          program: program.address,
          buffer: buffer.address,
          spill: payer.address,
          authority,
        }),
      ]);
    }
    return tasks.length;
  }

  // 4. Verify: ProgramData now holds exactly the program bytes.
  const programData = await transport.getAccount(programDataAddress);
  const deployedBytes = programData?.data.subarray(
    PROGRAMDATA_METADATA_SIZE,
    PROGRAMDATA_METADATA_SIZE + programBytes.length,
  );
  if (
    !deployedBytes ||
    deployedBytes.length !== programBytes.length ||
    !deployedBytes.every((b, i) => b === programBytes[i])
  ) {
    throw new SdkError(
      SDK_ERROR.DEPLOY_VERIFY_FAILED,
      `ProgramData ${programDataAddress} does not hold the program bytes`,
    );
  }
  return {
    kind: upgradeFromCapacity === null ? "deploy" : "upgrade",
    programAddress: program.address,
    programDataAddress,
    bufferAddress: buffer.address,
    writeTransactionCount,
    signatures,
  };
}
