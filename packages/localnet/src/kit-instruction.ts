import { AccountRole, address, getAddressDecoder, type Instruction, type KeyPairSigner } from "@solana/kit";
import type { BuildInstruction } from "./tx-builder.ts";

const COMPUTE_BUDGET = address("ComputeBudget111111111111111111111111111111");
const addressDecoder = getAddressDecoder();

/** One of this package's instructions (BuildInstruction) as a kit instruction, `signers` signing for their keys. */
export function toKitInstruction(ix: BuildInstruction, signers: readonly KeyPairSigner[]): Instruction {
  return {
    programAddress: addressDecoder.decode(ix.programId),
    data: ix.data,
    accounts: ix.keys.map((k) => {
      const a = addressDecoder.decode(k.pubkey);
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

/** ComputeBudget SetComputeUnitLimit(`units`) as a kit instruction. */
export function getComputeUnitLimitKitInstruction(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = 2;
  new DataView(data.buffer).setUint32(1, units, true);
  return { programAddress: COMPUTE_BUDGET, accounts: [], data };
}

/** ComputeBudget SetComputeUnitPrice(`microLamports` per compute unit) as a kit instruction. */
export function getComputeUnitPriceKitInstruction(microLamports: bigint): Instruction {
  const data = new Uint8Array(9);
  data[0] = 3;
  new DataView(data.buffer).setBigUint64(1, microLamports, true);
  return { programAddress: COMPUTE_BUDGET, accounts: [], data };
}
