import { getBase64EncodedWireTransaction, getSignatureFromTransaction, type Transaction } from "@solana/kit";
import { callJsonRpc } from "../chain/json-rpc.ts";
import type { TxContext } from "../tx-context.ts";
import { failure, refusalOf, type SendResult, waitUntilConfirmed } from "./sender.ts";

/** Most transactions one bundle carries (Jito's limit; the localnet's too). */
export const MAX_BUNDLE_TRANSACTIONS = 5;

/**
 * Sends signed transactions as one bundle with Jito's sendBundle at `url` (a Jito block engine, or the localnet,
 * which serves the same method): they land in order in one slot, or none does. Then waits for every signature
 * to be confirmed. A refused bundle answers the failure of the transaction that failed (its program code when
 * there is one), and nothing of it landed.
 */
export async function submitBundle(
  tx: TxContext,
  url: string,
  transactions: Transaction[],
  lastValidBlockHeight: number,
): Promise<SendResult> {
  const params = [transactions.map(getBase64EncodedWireTransaction), { encoding: "base64" }];
  const send = () => callJsonRpc<string>(url, "sendBundle", params);
  const sent = await send();
  if (!sent.ok) return failure(refusalOf(tx, sent.error));
  const signatures = transactions.map((t) => getSignatureFromTransaction(t) as string);
  return waitUntilConfirmed(tx, signatures, lastValidBlockHeight, send);
}
