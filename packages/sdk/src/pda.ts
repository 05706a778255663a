import { type Address, getU64Encoder, type ProgramDerivedAddress } from "@solana/kit";
import { addressBytes } from "./address-text.ts";
import { findProgramDerivedAddress } from "./find-pda.ts";

const U64 = getU64Encoder();
const u64Bytes = (value: bigint) => U64.encode(value);

/** Config PDA: ["config"]. Returns [address, bump]. */
export function findConfigPda(programAddress: Address): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["config"] });
}

/** Bank PDA: ["bank", owner, currency mint]. Returns [address, bump]. */
export function findBankPda(
  programAddress: Address,
  owner: Address,
  mint: Address,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({
    programAddress,
    seeds: ["bank", addressBytes(owner), addressBytes(mint)],
  });
}

/** Bank vault PDA (token account, authority = bank): ["vault", bank]. Returns [address, bump]. */
export function findVaultPda(programAddress: Address, bank: Address): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["vault", addressBytes(bank)] });
}

/** Pool PDA: ["pool", owner, seed u64 LE]. Returns [address, bump]. */
export function findPoolPda(
  programAddress: Address,
  owner: Address,
  seed: bigint,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["pool", addressBytes(owner), u64Bytes(seed)] });
}

/** Loan PDA: ["loan", pool, borrower, nonce u64 LE]. Returns [address, bump]. */
export function findLoanPda(
  programAddress: Address,
  pool: Address,
  borrower: Address,
  nonce: bigint,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({
    programAddress,
    seeds: ["loan", addressBytes(pool), addressBytes(borrower), u64Bytes(nonce)],
  });
}

/** Loan escrow PDA (token account, authority = loan): ["escrow", loan]. Returns [address, bump]. */
export function findEscrowPda(programAddress: Address, loan: Address): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["escrow", addressBytes(loan)] });
}

/** Loan request PDA: ["request", borrower, nonce u64 LE]; its escrow is {@link findEscrowPda} of the request. */
export function findRequestPda(
  programAddress: Address,
  borrower: Address,
  nonce: bigint,
): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({
    programAddress,
    seeds: ["request", addressBytes(borrower), u64Bytes(nonce)],
  });
}

/** Venues PDA: ["venues"] (the outside programs the admin pins). Returns [address, bump]. */
export function findVenuesPda(programAddress: Address): Promise<ProgramDerivedAddress> {
  return findProgramDerivedAddress({ programAddress, seeds: ["venues"] });
}
