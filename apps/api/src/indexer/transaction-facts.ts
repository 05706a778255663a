import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import type { RpcClient } from "../solana/rpc-client.ts";
import { hashMessage } from "../tx/sender/issued-messages.ts";

/** What the indexer reads off a landed transaction: who signed and paid for it, and its message's hash. */
export interface TransactionFacts {
  /** The fee payer (first signer): for a liquidation, who liquidated. */
  feePayer: string;
  /** SHA-256 of the message bytes, as the builder recorded them when it issued the transaction. */
  messageHash: string;
}

/** Reads a confirmed transaction by signature; null when the node does not have it. */
export async function readTransactionFacts(
  rpc: RpcClient,
  signature: string,
): Promise<TransactionFacts | null> {
  const r = await rpc.call<{ transaction: [string, string] } | null>("getTransaction", [
    signature,
    { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  if (r === null) return null;
  const transaction = getTransactionDecoder().decode(Buffer.from(r.transaction[0], "base64"));
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  const feePayer = message.staticAccounts[0];
  if (feePayer === undefined) return null;
  return { feePayer, messageHash: hashMessage(transaction.messageBytes) };
}
