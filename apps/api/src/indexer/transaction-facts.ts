import { addressFromBytes, INSTRUCTION_TAG } from "@cistern/sdk";
import type { RpcClient } from "../solana/rpc-client.ts";
import { hashMessage } from "../tx/sender/issued-messages.ts";

/** A sale the lending program logged ("sold" by MarketSell, "autosold" by LiquidateSell), base units. */
export interface SaleEvent {
  collateralSold: bigint;
  proceeds: bigint;
}

/** A margin position's opening the program logged ("margin" by MarginSwap), base units. */
export interface MarginEvent {
  downPayment: bigint;
  collateralReceived: bigint;
}

/** What one top-level lending instruction of a landed transaction did to one loan. */
export interface LoanFact {
  loan: string;
  /** `opened`: the loan was created by it (its "taken" event); `closed`: it ended the loan (its closing event). */
  role: "opened" | "closed";
  /** MarketSell's or LiquidateSell's sale, from the instruction's own program data. */
  sale: SaleEvent | null;
  /** MarginSwap's opening, from the instruction's own program data. */
  margin: MarginEvent | null;
}

/** What the indexer reads off a landed transaction of the lending program. */
export interface TransactionFacts {
  signature: string;
  /** The fee payer (first signer): for a liquidation, who liquidated. */
  feePayer: string;
  /** SHA-256 of the message bytes, as the builder recorded them when it issued the transaction. */
  messageHash: string;
  slot: number;
  /** Every account the transaction may write (static keys and lookup-table loaded ones). */
  writableAccounts: string[];
  /** The loans its top-level lending instructions opened or closed, in instruction order. */
  loans: LoanFact[];
}

type EventName = "sold" | "autosold" | "margin";

/**
 * Where each loan-touching instruction keeps its loan accounts (LAYOUT.md), and which program data event it logs.
 * An instruction the table does not list opens or closes no loan.
 */
const LOAN_INSTRUCTIONS: Record<number, { opened?: number; closed?: number; event?: EventName }> = {
  [INSTRUCTION_TAG.TakeLoan]: { opened: 6 },
  [INSTRUCTION_TAG.Repay]: { closed: 5 },
  [INSTRUCTION_TAG.Extend]: { closed: 6, opened: 8 },
  [INSTRUCTION_TAG.Liquidate]: { closed: 3 },
  [INSTRUCTION_TAG.MarketSell]: { closed: 6, event: "sold" },
  [INSTRUCTION_TAG.LiquidateSell]: { closed: 6, event: "autosold" },
  [INSTRUCTION_TAG.MarginSwap]: { opened: 6, event: "margin" },
  [INSTRUCTION_TAG.Refinance]: { closed: 6, opened: 8 },
  [INSTRUCTION_TAG.FillRequest]: { opened: 7 },
  [INSTRUCTION_TAG.TakeMortgage]: { opened: 6 },
};

/** `<name> <u64 LE> <u64 LE>` program data (the fields of one `Program data:` line, base64): the two numbers. */
function readU64Pair(fields: readonly Buffer[]): { name: string; a: bigint; b: bigint } | null {
  if (fields.length !== 3 || fields[1]!.length !== 8 || fields[2]!.length !== 8) return null;
  return { name: fields[0]!.toString(), a: fields[1]!.readBigUInt64LE(0), b: fields[2]!.readBigUInt64LE(0) };
}

/**
 * The program data events `programId` logged in each of its own top-level invocations, in order: entry k holds
 * what its k-th `invoke [1]` logged while it was the running program (not what a program it called logged).
 * Null when the logs were truncated (what follows can no longer be attributed).
 */
export function readTopLevelEvents(
  logs: readonly string[],
  programId: string,
): { name: string; a: bigint; b: bigint }[][] | null {
  const out: { name: string; a: bigint; b: bigint }[][] = [];
  const stack: string[] = [];
  for (const line of logs) {
    if (line === "Log truncated") return null;
    const invoke = /^Program (\w+) invoke \[(\d+)\]$/.exec(line);
    if (invoke !== null) {
      stack.push(invoke[1]!);
      if (invoke[2] === "1" && invoke[1] === programId) out.push([]);
      continue;
    }
    if (/^Program \w+ (success|failed)/.test(line)) {
      stack.pop();
      continue;
    }
    if (line.startsWith("Program data: ") && stack.length === 1 && stack[0] === programId) {
      const fields = line
        .slice("Program data: ".length)
        .split(" ")
        .map((f) => Buffer.from(f, "base64"));
      const event = readU64Pair(fields);
      if (event !== null) out.at(-1)?.push(event);
    }
  }
  return out;
}

/** The parts of a wire transaction (legacy or v0) the indexer reads. */
interface WireFacts {
  messageBytes: Uint8Array;
  /** Static account keys, base58. */
  staticAccounts: string[];
  numSignerAccounts: number;
  numReadonlySignerAccounts: number;
  numReadonlyNonSignerAccounts: number;
  instructions: { programAddressIndex: number; accountIndices: Uint8Array; data: Uint8Array }[];
}

/**
 * Reads a wire transaction's message: its header, static keys and instructions (address lookups follow them and
 * come resolved in the node's meta). Addresses through the SDK's BigInt-free base58 (kit's decoder took most of the
 * indexer's CPU per transaction). Throws on bytes that end early.
 */
function readWireTransaction(bytes: Uint8Array): WireFacts {
  let at = 0;
  const take = (n: number) => {
    if (at + n > bytes.length) throw new Error("transaction bytes end early");
    at += n;
    return bytes.subarray(at - n, at);
  };
  const u8 = () => take(1)[0]!;
  const compactU16 = () => {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const byte = u8();
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error("bad compact-u16 in a transaction");
  };
  take(64 * compactU16());
  const start = at;
  const first = u8();
  const numSignerAccounts = first & 0x80 ? u8() : first;
  const numReadonlySignerAccounts = u8();
  const numReadonlyNonSignerAccounts = u8();
  const staticAccounts = Array.from({ length: compactU16() }, () => addressFromBytes(take(32)) as string);
  take(32); // recent blockhash
  const instructions = Array.from({ length: compactU16() }, () => {
    const programAddressIndex = u8();
    const accountIndices = take(compactU16());
    return { programAddressIndex, accountIndices, data: take(compactU16()) };
  });
  if (first & 0x80)
    for (let n = compactU16(); n > 0; n--) {
      take(32);
      take(compactU16());
      take(compactU16());
    }
  return {
    messageBytes: bytes.subarray(start, at),
    staticAccounts,
    numSignerAccounts,
    numReadonlySignerAccounts,
    numReadonlyNonSignerAccounts,
    instructions,
  };
}

/**
 * Reads a confirmed transaction by signature: its fee payer, message hash, writable accounts, and for each
 * top-level instruction of `programId` that opens or closes a loan, that loan with the sale or margin opening the
 * instruction itself logged. Null when the node does not have the transaction (yet).
 */
export async function readTransactionFacts(
  rpc: RpcClient,
  signature: string,
  programId: string,
): Promise<TransactionFacts | null> {
  const r = await rpc.call<{
    slot: number;
    transaction: [string, string];
    meta: {
      logMessages?: string[] | null;
      loadedAddresses?: { writable: string[]; readonly: string[] } | null;
    } | null;
  } | null>("getTransaction", [
    signature,
    { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  if (r === null) return null;
  const message = readWireTransaction(new Uint8Array(Buffer.from(r.transaction[0], "base64")));
  const feePayer = message.staticAccounts[0];
  if (feePayer === undefined) return null;
  const loaded = r.meta?.loadedAddresses ?? { writable: [], readonly: [] };
  // account index space: static keys, then the lookup tables' writable, then their read-only addresses
  const keys: string[] = [...message.staticAccounts, ...loaded.writable, ...loaded.readonly];
  const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message;
  const staticCount = message.staticAccounts.length;
  const writableAccounts: string[] = message.staticAccounts
    .filter(
      (_, i) =>
        i < numSignerAccounts - numReadonlySignerAccounts ||
        (i >= numSignerAccounts && i < staticCount - numReadonlyNonSignerAccounts),
    )
    .map(String)
    .concat(loaded.writable);

  const events = readTopLevelEvents(r.meta?.logMessages ?? [], programId);
  const loans: LoanFact[] = [];
  let invocation = -1;
  for (const ix of message.instructions) {
    if (keys[ix.programAddressIndex] !== programId) continue;
    invocation++;
    const tag = ix.data?.[0];
    const shape = tag === undefined ? undefined : LOAN_INSTRUCTIONS[tag];
    if (shape === undefined) continue;
    const accountAt = (i: number | undefined) => {
      const index = i === undefined ? undefined : ix.accountIndices?.[i];
      return index === undefined ? undefined : keys[index];
    };
    const event =
      shape.event === undefined ? undefined : events?.[invocation]?.find((e) => e.name === shape.event);
    const closed = accountAt(shape.closed);
    const opened = accountAt(shape.opened);
    if (closed !== undefined)
      loans.push({
        loan: closed,
        role: "closed",
        sale:
          event === undefined || shape.event === "margin"
            ? null
            : { collateralSold: event.a, proceeds: event.b },
        margin: null,
      });
    if (opened !== undefined)
      loans.push({
        loan: opened,
        role: "opened",
        sale: null,
        margin:
          event === undefined || shape.event !== "margin"
            ? null
            : { downPayment: event.a, collateralReceived: event.b },
      });
  }
  return {
    signature,
    feePayer,
    messageHash: hashMessage(message.messageBytes),
    slot: r.slot,
    writableAccounts,
    loans,
  };
}
