import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import type { RpcClient } from "../solana/rpc-client.ts";
import { hashMessage } from "../tx/sender/issued-messages.ts";

/** What the indexer reads off a landed transaction: who signed and paid for it, and its message's hash. */
export interface TransactionFacts {
  /** The fee payer (first signer): for a liquidation, who liquidated. */
  feePayer: string;
  /** SHA-256 of the message bytes, as the builder recorded them when it issued the transaction. */
  messageHash: string;
  slot: number;
  /** A MarketSell's sale, from the lending program's "sold" program data: collateral sold and proceeds. */
  sale: { collateralSold: bigint; proceeds: bigint } | null;
  /** A MarginSwap's opening, from the "margin" program data: down payment and collateral received. */
  margin: { downPayment: bigint; collateralReceived: bigint } | null;
}

/** The lending program's sale event among the logs. */
export function readSaleEvent(logs: readonly string[]): TransactionFacts["sale"] {
  const event = readU64PairEvent(logs, "sold");
  return event && { collateralSold: event[0], proceeds: event[1] };
}

/** The lending program's margin-swap event among the logs. */
export function readMarginEvent(logs: readonly string[]): TransactionFacts["margin"] {
  const event = readU64PairEvent(logs, "margin");
  return event && { downPayment: event[0], collateralReceived: event[1] };
}

/** `Program data: <name> <u64 LE> <u64 LE>` (base64 fields) among the logs: the two numbers. */
function readU64PairEvent(logs: readonly string[], name: string): [bigint, bigint] | null {
  for (const line of logs) {
    if (!line.startsWith("Program data: ")) continue;
    const fields = line
      .slice("Program data: ".length)
      .split(" ")
      .map((f) => Buffer.from(f, "base64"));
    if (
      fields.length === 3 &&
      fields[0]!.toString() === name &&
      fields[1]!.length === 8 &&
      fields[2]!.length === 8
    )
      return [fields[1]!.readBigUInt64LE(0), fields[2]!.readBigUInt64LE(0)];
  }
  return null;
}

/** Reads a confirmed transaction by signature; null when the node does not have it. */
export async function readTransactionFacts(
  rpc: RpcClient,
  signature: string,
): Promise<TransactionFacts | null> {
  const r = await rpc.call<{
    slot: number;
    transaction: [string, string];
    meta: { logMessages?: string[] | null } | null;
  } | null>("getTransaction", [
    signature,
    { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  if (r === null) return null;
  const transaction = getTransactionDecoder().decode(Buffer.from(r.transaction[0], "base64"));
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  const feePayer = message.staticAccounts[0];
  if (feePayer === undefined) return null;
  return {
    feePayer,
    messageHash: hashMessage(transaction.messageBytes),
    slot: r.slot,
    sale: readSaleEvent(r.meta?.logMessages ?? []),
    margin: readMarginEvent(r.meta?.logMessages ?? []),
  };
}
