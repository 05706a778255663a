// Small litesvm harness for the fixture programs.
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";

export interface Harness {
  svm: LiteSVM;
  payer: KeyPairSigner;
}

/** A fresh litesvm with a funded payer. */
export async function createHarness(): Promise<Harness> {
  const svm = new LiteSVM();
  const payer = await generateKeyPairSigner();
  svm.airdrop(payer.address, lamports(100_000_000_000n));
  return { svm, payer };
}

/** Loads program bytes at a fresh address (litesvm's addProgram shortcut). */
export async function addProgram(h: Harness, so: Uint8Array): Promise<Address> {
  const programId = (await generateKeyPairSigner()).address;
  h.svm.addProgram(programId, so);
  return programId;
}

/** Thrown by {@link send} when the transaction fails; carries the error text and logs. */
export class TxFailed extends Error {
  constructor(
    readonly errText: string,
    readonly logs: string[],
  ) {
    super(`transaction failed: ${errText}\n${logs.join("\n")}`);
  }
}

const COMPUTE_BUDGET_PROGRAM = address("ComputeBudget111111111111111111111111111111");

/** ComputeBudget SetComputeUnitLimit (tag 2, u32 units). */
function computeUnitLimitInstruction(units: number): Instruction {
  const data = Buffer.alloc(5);
  data[0] = 2;
  data.writeUInt32LE(units, 1);
  return { programAddress: COMPUTE_BUDGET_PROGRAM, accounts: [], data };
}

/** Signs and sends instructions; throws TxFailed on failure. */
export async function send(
  h: Harness,
  ixs: Instruction[],
  computeUnitLimit = 1_400_000,
): Promise<TransactionMetadata> {
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(h.payer, m),
    (m) => h.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
    (m) => appendTransactionMessageInstructions([computeUnitLimitInstruction(computeUnitLimit), ...ixs], m),
    (m) => signTransactionMessageWithSigners(m),
  );
  const res = h.svm.sendTransaction(tx);
  h.svm.expireBlockhash();
  if (res instanceof FailedTransactionMetadata) {
    throw new TxFailed(String(res.err()), res.meta().logs());
  }
  return res;
}

/** Sends and returns the error text of the expected failure (fails the test if it succeeded). */
export async function sendExpectingFailure(h: Harness, ixs: Instruction[]): Promise<TxFailed> {
  try {
    await send(h, ixs);
  } catch (e) {
    if (e instanceof TxFailed) return e;
    throw e;
  }
  throw new Error("transaction unexpectedly succeeded");
}

/** Little-endian u64 bytes. */
export function u64le(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt.asUintN(64, v));
  return b;
}

/** Reads consecutive little-endian u64 values. */
export function readU64s(data: Uint8Array): bigint[] {
  const b = Buffer.from(data);
  const out: bigint[] = [];
  for (let o = 0; o + 8 <= b.length; o += 8) out.push(b.readBigUInt64LE(o));
  return out;
}
