import { type Address, type FixedSizeCodec, getStructCodec, type ReadonlyUint8Array } from "@solana/kit";
import { pubkey, u64 } from "../codecs/primitives.ts";

/**
 * The oracle's attestation carried in TakeLoan / Extend data (80 bytes). The oracle co-signs the
 * transaction, which covers the whole instruction data.
 */
export interface Attestation {
  /** Value of the pledged collateral amount, in loan-currency base units. */
  collateralValueBaseUnits: bigint;
  /** nft: the NFT's verified collection id; defi: the collateral mint. */
  collection: Address;
  /** Micro-USD per whole loan-currency token (10^decimals base units). */
  currencyPriceMicroUsd: bigint;
  walletAgeSeconds: bigint;
  pastLoans: bigint;
  volumeMicroUsd: bigint;
  /** Slot at which the oracle made the attestation (must be within 150 slots of the current slot). */
  slot: bigint;
}

/** Attestation size in bytes. */
export const ATTESTATION_SIZE = 80;

let attestationCodec: FixedSizeCodec<Attestation, Attestation> | undefined;

/** Codec of the 80-byte attestation (one, built on first use: codecs are immutable). */
export function getAttestationCodec(): FixedSizeCodec<Attestation, Attestation> {
  attestationCodec ??= getStructCodec([
    ["collateralValueBaseUnits", u64()],
    ["collection", pubkey()],
    ["currencyPriceMicroUsd", u64()],
    ["walletAgeSeconds", u64()],
    ["pastLoans", u64()],
    ["volumeMicroUsd", u64()],
    ["slot", u64()],
  ]) as FixedSizeCodec<Attestation, Attestation>;
  return attestationCodec;
}

/** Encodes an attestation to its 80 bytes. */
export function encodeAttestation(attestation: Attestation): ReadonlyUint8Array {
  return getAttestationCodec().encode(attestation);
}

/** Decodes an 80-byte attestation. */
export function decodeAttestation(bytes: ReadonlyUint8Array): Attestation {
  return getAttestationCodec().decode(bytes);
}
