import { FailedTransactionMetadata, type LiteSvm, type TransactionMetadata } from "litesvm/dist/internal";
import { decodeBase58, encodeBase58 } from "./base58.ts";
import type { InnerInstructionJson, TokenBalance, TxRecord } from "./history.ts";
import {
  decodeMint,
  decodeTokenAccount,
  isTokenAccountData,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  uiTokenAmount,
} from "./token-layout.ts";
import { toTransactionErrorJson } from "./tx-error.ts";
import { isStaticWritable, type WireTransaction } from "./wire.ts";

/** Fee per signature in lamports. */
export const LAMPORTS_PER_SIGNATURE = 5000;
const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const MAX_COMPUTE_UNITS = 1_400_000;

/** Key list and pre-execution state of a transaction. */
export interface ExecutionInput {
  tx: WireTransaction;
  keys: Uint8Array[];
  keyStrings: string[];
  writable: boolean[];
  loaded: { writable: string[]; readonly: string[] };
  preBalances: number[];
  preTokenBalances: TokenBalance[];
  feeLamports: number;
  priorityFeeMicroLamports: number;
  /** False when only programs that cannot touch token accounts run (System, ComputeBudget, Memo). */
  mayChangeTokens: boolean;
}

/** Programs that never modify token accounts, not even through CPI. */
const NON_TOKEN_PROGRAMS = new Set([
  "11111111111111111111111111111111",
  "ComputeBudget111111111111111111111111111111",
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
]);

/** Resolves v0 lookup-table addresses; missing tables yield no keys (LiteSVM then fails the tx). */
export function resolveLoadedAddresses(
  svm: LiteSvm,
  tx: Pick<WireTransaction, "lookups">,
): { writable: Uint8Array[]; readonly: Uint8Array[] } {
  const writable: Uint8Array[] = [];
  const readonly: Uint8Array[] = [];
  for (const l of tx.lookups) {
    const data = svm.getAccount(l.table)?.data();
    if (!data) continue;
    const at = (i: number) => data.subarray(56 + i * 32, 56 + i * 32 + 32);
    for (const i of l.writableIndexes) if (56 + i * 32 + 32 <= data.length) writable.push(at(i));
    for (const i of l.readonlyIndexes) if (56 + i * 32 + 32 <= data.length) readonly.push(at(i));
  }
  return { writable, readonly };
}

/** Compute-unit price (micro-lamports) and the fee a message pays. */
export function computeFee(
  tx: Pick<WireTransaction, "staticKeys" | "instructions" | "numRequiredSignatures">,
): { feeLamports: number; priorityFeeMicroLamports: number } {
  let price = 0n;
  let limit: bigint | null = null;
  let otherIxs = 0;
  for (const ix of tx.instructions) {
    const program = encodeBase58(tx.staticKeys[ix.programIdIndex]!);
    if (program !== COMPUTE_BUDGET_PROGRAM) {
      otherIxs++;
      continue;
    }
    const dv = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 3 && ix.data.length >= 9) price = dv.getBigUint64(1, true);
    if (ix.data[0] === 2 && ix.data.length >= 5) limit = BigInt(dv.getUint32(1, true));
  }
  const units = limit ?? BigInt(Math.min(MAX_COMPUTE_UNITS, otherIxs * DEFAULT_UNITS_PER_INSTRUCTION));
  // Priority fee rounds up (agave: ceil(price * units / 1e6)).
  const priority = (price * units + 999_999n) / 1_000_000n;
  return {
    feeLamports: tx.numRequiredSignatures * LAMPORTS_PER_SIGNATURE + Number(priority),
    priorityFeeMicroLamports: Number(price),
  };
}

function tokenBalanceOf(svm: LiteSvm, index: number, key: Uint8Array): TokenBalance | null {
  const acct = svm.getAccount(key);
  if (!acct) return null;
  const ownerBytes = Buffer.from(acct.owner());
  if (!ownerBytes.equals(TOKEN_PROGRAM_BYTES) && !ownerBytes.equals(TOKEN_2022_PROGRAM_BYTES)) return null;
  const owner = encodeBase58(ownerBytes);
  const data = acct.data();
  if (!isTokenAccountData(data, owner)) return null;
  const t = decodeTokenAccount(data);
  const mintData = svm.getAccount(decodeMintKey(data))?.data();
  if (!mintData || mintData.length < 82) return null;
  const decimals = decodeMint(mintData).decimals;
  return {
    accountIndex: index,
    mint: t.mint,
    owner: t.owner,
    programId: owner,
    uiTokenAmount: uiTokenAmount(t.amount, decimals),
  };
}

const TOKEN_PROGRAM_BYTES = Buffer.from(decodeBase58(TOKEN_PROGRAM));
const TOKEN_2022_PROGRAM_BYTES = Buffer.from(decodeBase58(TOKEN_2022_PROGRAM));
const decodeMintKey = (tokenAccountData: Uint8Array) => tokenAccountData.subarray(0, 32);

function tokenBalances(
  svm: LiteSvm,
  input: Pick<ExecutionInput, "keys" | "writable" | "mayChangeTokens">,
): TokenBalance[] {
  const out: TokenBalance[] = [];
  // Token accounts only appear in pre/post token balances when a program that can move tokens runs.
  if (!input.mayChangeTokens) return out;
  input.keys.forEach((k, i) => {
    if (!input.writable[i]) return;
    const b = tokenBalanceOf(svm, i, k);
    if (b) out.push(b);
  });
  return out;
}

/** Reads everything needed before execution (keys, writability, balances, fee). */
export function computeTxEffects(svm: LiteSvm, tx: WireTransaction): ExecutionInput {
  const loadedBytes = resolveLoadedAddresses(svm, tx);
  const keys = [...tx.staticKeys, ...loadedBytes.writable, ...loadedBytes.readonly];
  const writable = keys.map((_, i) =>
    i < tx.staticKeys.length
      ? isStaticWritable(tx, i)
      : i < tx.staticKeys.length + loadedBytes.writable.length,
  );
  const keyStrings = keys.map(encodeBase58);
  const preBalances = keys.map((k) => Number(svm.getBalance(k) ?? 0n));
  const input = {
    tx,
    keys,
    keyStrings,
    writable,
    loaded: {
      writable: loadedBytes.writable.map(encodeBase58),
      readonly: loadedBytes.readonly.map(encodeBase58),
    },
    preBalances,
    preTokenBalances: [] as TokenBalance[],
    ...computeFee(tx),
    mayChangeTokens: tx.instructions.some(
      (ix) => !NON_TOKEN_PROGRAMS.has(encodeBase58(tx.staticKeys[ix.programIdIndex]!)),
    ),
  };
  input.preTokenBalances = tokenBalances(svm, input);
  return input;
}

function innerInstructionsJson(meta: TransactionMetadata): TxRecord["innerInstructions"] {
  const out: TxRecord["innerInstructions"] = [];
  meta.innerInstructions().forEach((list, index) => {
    if (list.length === 0) return;
    const instructions: InnerInstructionJson[] = list.map((inner) => {
      const ix = inner.instruction();
      return {
        programIdIndex: ix.programIdIndex(),
        accounts: Array.from(ix.accounts()),
        data: encodeBase58(ix.data()),
        stackHeight: inner.stackHeight(),
      };
    });
    out.push({ index, instructions });
  });
  return out;
}

/**
 * Builds the history record after execution, or null when the transaction did not land
 * (it failed before the fee payer was charged: bad signature, unpaid fee, duplicate...).
 */
export function recordExecution(
  svm: LiteSvm,
  input: ExecutionInput,
  result: TransactionMetadata | FailedTransactionMetadata,
  at: { signature: string; seq: number; slot: number; blockTime: number },
): TxRecord | null {
  const failed = result instanceof FailedTransactionMetadata;
  const postBalances = input.keys.map((k, i) =>
    input.writable[i] ? Number(svm.getBalance(k) ?? 0n) : input.preBalances[i]!,
  );
  if (failed && postBalances[0]! >= input.preBalances[0]!) return null;
  const meta = failed ? result.meta() : result;
  const rd = meta.returnData();
  const rdData = rd.data();
  return {
    signature: at.signature,
    seq: at.seq,
    slot: at.slot,
    blockTime: at.blockTime,
    tx:
      input.tx.base64 ??
      Buffer.from(input.tx.bytes.buffer, input.tx.bytes.byteOffset, input.tx.bytes.byteLength).toString(
        "base64",
      ),
    version: input.tx.version,
    err: failed ? toTransactionErrorJson(result) : null,
    logs: meta.logs(),
    computeUnits: Number(meta.computeUnitsConsumed()),
    feeLamports: input.feeLamports,
    accountKeys: input.keyStrings,
    writable: input.writable,
    loadedAddresses: input.loaded,
    preBalances: input.preBalances,
    postBalances,
    preTokenBalances: input.preTokenBalances,
    postTokenBalances: tokenBalances(svm, input),
    innerInstructions: innerInstructionsJson(meta),
    returnData:
      rdData.length > 0
        ? {
            programId: encodeBase58(rd.programId()),
            data: [Buffer.from(rdData).toString("base64"), "base64"],
          }
        : null,
    priorityFeeMicroLamports: input.priorityFeeMicroLamports,
  };
}
