// Instructions of the localnet's builders for the tests of the other standards (pNFT, compressed NFTs), and the
// outcome check they share.
import type { BuildInstruction } from "@cistern/localnet";
import { AccountRole, address, getAddressDecoder, type Instruction, type KeyPairSigner } from "@solana/kit";
import type { TxOutcome } from "./harness.ts";

const COMPUTE_BUDGET = address("ComputeBudget111111111111111111111111111111");
const dec = getAddressDecoder();

/** A BuildInstruction (the localnet's) as a kit instruction, the given signers signing. */
export function kit(ix: BuildInstruction, signers: KeyPairSigner[]): Instruction {
  return {
    programAddress: dec.decode(ix.programId),
    data: ix.data,
    accounts: ix.keys.map((k) => {
      const a = dec.decode(k.pubkey);
      const role = k.isSigner
        ? k.isWritable
          ? AccountRole.WRITABLE_SIGNER
          : AccountRole.READONLY_SIGNER
        : k.isWritable
          ? AccountRole.WRITABLE
          : AccountRole.READONLY;
      const signer = k.isSigner ? signers.find((s) => s.address === a) : undefined;
      return signer ? { address: a, role, signer } : { address: a, role };
    }),
  };
}

/** ComputeBudget SetComputeUnitLimit. */
export function computeLimit(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = 2;
  new DataView(data.buffer).setUint32(1, units, true);
  return { programAddress: COMPUTE_BUDGET, accounts: [], data };
}

/** The outcome, or an error with the last logs when the transaction failed. */
export function expectOk(out: TxOutcome): TxOutcome {
  if (!out.ok) throw new Error(`${out.error}\n${out.logs.slice(-15).join("\n")}`);
  return out;
}
