import {
  type AccountMeta,
  AccountRole,
  type AccountSignerMeta,
  type Address,
  isTransactionSigner,
  type TransactionSigner,
} from "@solana/kit";

/** A signer given either as a kit signer (signs locally) or as an address (signs elsewhere, e.g. a wallet). */
export type SignerInput = TransactionSigner | Address;

/** The address of a {@link SignerInput}. */
export function signerAddress(signer: SignerInput): Address {
  return typeof signer === "string" ? signer : signer.address;
}

/** Signer account meta; carries the kit signer when one is given. */
export function signer(input: SignerInput, isWritable: boolean): AccountMeta | AccountSignerMeta {
  const role = isWritable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
  if (typeof input !== "string" && isTransactionSigner(input)) {
    return { address: input.address, role, signer: input };
  }
  return { address: input as Address, role };
}

/** Writable, non-signer account meta. */
export function writable(address: Address): AccountMeta {
  return { address, role: AccountRole.WRITABLE };
}

/** Read-only, non-signer account meta. */
export function readonly(address: Address): AccountMeta {
  return { address, role: AccountRole.READONLY };
}
