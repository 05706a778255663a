// Instructions of the localnet's builders for the tests of the other standards (pNFT, compressed NFTs), and the
// outcome check they share.
import type { TxOutcome } from "./harness.ts";

export {
  getComputeUnitLimitKitInstruction as computeLimit,
  toKitInstruction as kit,
} from "@cistern/localnet";

/** The outcome, or an error with the last logs when the transaction failed. */
export function expectOk(out: TxOutcome): TxOutcome {
  if (!out.ok) throw new Error(`${out.error}\n${out.logs.slice(-15).join("\n")}`);
  return out;
}
