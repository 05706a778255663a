// Instructions of the localnet's builders for the tests of the other standards (pNFT, compressed NFTs), the outcome
// check they share, and a transaction's wire size.
import {
  type AddressesByLookupTableAddress,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  getTransactionEncoder,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import type { Harness, TxOutcome } from "./harness.ts";

export {
  getComputeUnitLimitKitInstruction as computeLimit,
  getComputeUnitPriceKitInstruction as computePrice,
  toKitInstruction as kit,
} from "@cistern/localnet";

/** The outcome, or an error with the last logs when the transaction failed. */
export function expectOk(out: TxOutcome): TxOutcome {
  if (!out.ok) throw new Error(`${out.error}\n${out.logs.slice(-15).join("\n")}`);
  return out;
}

/**
 * The wire size in bytes of the signed v0 transaction of `ixs` paid by `payer` (every signer the instructions name
 * signs), its accounts loaded from `lookupTables` where they hold them (none by default).
 */
export async function wireSize(
  h: Harness,
  ixs: Instruction[],
  payer: KeyPairSigner,
  lookupTables: AddressesByLookupTableAddress = {},
): Promise<number> {
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => h.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
    (m) => appendTransactionMessageInstructions(ixs, m),
    (m) => compressTransactionMessageUsingAddressLookupTables(m, lookupTables),
    (m) => signTransactionMessageWithSigners(m),
  );
  return getTransactionEncoder().encode(tx).length;
}
