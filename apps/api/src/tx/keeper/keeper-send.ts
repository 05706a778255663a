import { getPriorityFeeOptions } from "@cistern/protocol";
import {
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { submitAndConfirm } from "../sender/sender.ts";
import type { TxContext } from "../tx-context.ts";

/**
 * Builds one transaction of `instructions` paid and signed by a keeper's own key (bytes this server built),
 * sends it and waits for confirmation; resolves with the signature, throws with the chain's message.
 */
export async function sendAsKeeper(
  tx: TxContext,
  signer: KeyPairSigner,
  instructions: Instruction[],
): Promise<string> {
  const built = await tx.factory.build({
    feePayer: signer.address,
    groups: [instructions],
    options: getPriorityFeeOptions(),
    needsOracle: false,
  });
  const unsigned = getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64"));
  const signed = await partiallySignTransaction([signer.keyPair], unsigned);
  const sent = await submitAndConfirm(tx, signed, built.lastValidBlockHeight);
  if (sent.result === null) throw new Error(sent.error?.message ?? "not confirmed");
  return sent.result;
}
