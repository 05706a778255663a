/**
 * Metaplex Token Metadata accounts (the `Metadata` V1 Borsh layout): the one encoder/decoder of the repo.
 * The lending program reads an NFT's verified collection from this account (programs/lending/src/metadata.c);
 * the localnet's demo world and the tests write it with {@link encodeMetadata}.
 */
import { type Address, getAddressEncoder, type ProgramDerivedAddress } from "@solana/kit";
import { findProgramDerivedAddress } from "../find-pda.ts";

/** The Token Metadata program. */
export const TOKEN_METADATA_PROGRAM_ADDRESS = "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s" as Address;

/** Metadata PDA of a mint: ["metadata", Token Metadata program, mint] under Token Metadata. */
export function findMetadataPda(mint: Address): Promise<ProgramDerivedAddress> {
  const encoder = getAddressEncoder();
  return findProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM_ADDRESS,
    seeds: ["metadata", encoder.encode(TOKEN_METADATA_PROGRAM_ADDRESS), encoder.encode(mint)],
  });
}

/** Master edition PDA of a mint: ["metadata", Token Metadata program, mint, "edition"]. */
export function findMasterEditionPda(mint: Address): Promise<ProgramDerivedAddress> {
  const encoder = getAddressEncoder();
  return findProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM_ADDRESS,
    seeds: ["metadata", encoder.encode(TOKEN_METADATA_PROGRAM_ADDRESS), encoder.encode(mint), "edition"],
  });
}

/** A programmable NFT's token record PDA: ["metadata", Token Metadata program, mint, "token_record", token account]. */
export function findTokenRecordPda(mint: Address, tokenAccount: Address): Promise<ProgramDerivedAddress> {
  const encoder = getAddressEncoder();
  return findProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM_ADDRESS,
    seeds: [
      "metadata",
      encoder.encode(TOKEN_METADATA_PROGRAM_ADDRESS),
      encoder.encode(mint),
      "token_record",
      encoder.encode(tokenAccount),
    ],
  });
}

/** Token Metadata's TokenStandard byte of a programmable NFT (ProgrammableNonFungible). */
export const TOKEN_STANDARD_PROGRAMMABLE_NON_FUNGIBLE = 4;

/** Metaplex Token Metadata account size (MAX_METADATA_LEN). */
export const METADATA_ACCOUNT_SIZE = 679;
const MAX_NAME = 32;
const MAX_SYMBOL = 10;
const MAX_URI = 200;

/** Fields of a Metaplex `Metadata` (V1) account that the demo world uses. */
export interface MetadataFields {
  updateAuthority: Uint8Array;
  mint: Uint8Array;
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  creators: { address: Uint8Array; verified: boolean; share: number }[] | null;
  /** Verified collection key of an NFT (the collection mint). */
  collection: { verified: boolean; key: Uint8Array } | null;
  /** Set on a collection NFT: `CollectionDetails::V1 { size }`. */
  collectionSize: bigint | null;
}

class BorshWriter {
  private parts: number[] = [];
  u8(v: number) {
    this.parts.push(v & 0xff);
  }
  u16(v: number) {
    this.u8(v);
    this.u8(v >> 8);
  }
  u32(v: number) {
    for (let i = 0; i < 4; i++) this.u8(v >>> (8 * i));
  }
  u64(v: bigint) {
    for (let i = 0n; i < 8n; i++) this.u8(Number((v >> (8n * i)) & 0xffn));
  }
  bytes(b: Uint8Array) {
    for (const x of b) this.parts.push(x);
  }
  /** Borsh string padded with NULs to `max` bytes, as the program's puff_out_data_fields does. */
  paddedString(s: string, max: number) {
    const raw = Buffer.from(s, "utf8");
    if (raw.length > max) throw new Error(`metadata string "${s}" exceeds ${max} bytes`);
    const padded = Buffer.alloc(max);
    raw.copy(padded);
    this.u32(max);
    this.bytes(padded);
  }
  finish(size: number): Uint8Array {
    const out = new Uint8Array(size);
    out.set(this.parts.slice(0, size));
    return out;
  }
}

/** Encodes a Metadata account in the real Borsh layout, zero-padded to 679 bytes. */
export function encodeMetadata(m: MetadataFields): Uint8Array {
  const w = new BorshWriter();
  w.u8(4); // Key::MetadataV1
  w.bytes(m.updateAuthority);
  w.bytes(m.mint);
  w.paddedString(m.name, MAX_NAME);
  w.paddedString(m.symbol, MAX_SYMBOL);
  w.paddedString(m.uri, MAX_URI);
  w.u16(m.sellerFeeBasisPoints);
  if (m.creators) {
    w.u8(1);
    w.u32(m.creators.length);
    for (const c of m.creators) {
      w.bytes(c.address);
      w.u8(c.verified ? 1 : 0);
      w.u8(c.share);
    }
  } else w.u8(0);
  w.u8(0); // primary_sale_happened
  w.u8(1); // is_mutable
  w.u8(0); // edition_nonce: None
  w.u8(1); // token_standard: Some(
  w.u8(0); //   NonFungible)
  if (m.collection) {
    w.u8(1);
    w.u8(m.collection.verified ? 1 : 0);
    w.bytes(m.collection.key);
  } else w.u8(0);
  w.u8(0); // uses: None
  if (m.collectionSize !== null) {
    w.u8(1);
    w.u8(0); // CollectionDetails::V1
    w.u64(m.collectionSize);
  } else w.u8(0);
  w.u8(0); // programmable_config: None
  return w.finish(METADATA_ACCOUNT_SIZE);
}

/** Decoded essentials of a Metadata account (name, symbol, uri without padding; collection). */
export function decodeMetadata(data: Uint8Array): {
  updateAuthority: Uint8Array;
  mint: Uint8Array;
  name: string;
  symbol: string;
  uri: string;
  collection: { verified: boolean; key: Uint8Array } | null;
  /** TokenStandard byte (0 NonFungible, 4 ProgrammableNonFungible ...); null when absent. */
  tokenStandard: number | null;
  /** The rule set a programmable NFT's ProgrammableConfig names; null when it names none (or has no config). */
  ruleSet: Uint8Array | null;
  sellerFeeBasisPoints: number;
  creators: { address: Uint8Array; verified: boolean; share: number }[];
  primarySaleHappened: boolean;
  isMutable: boolean;
} {
  let at = 1;
  const take = (n: number) => {
    const out = data.subarray(at, at + n);
    at += n;
    return out;
  };
  const u32 = () => {
    const v = new DataView(data.buffer, data.byteOffset + at, 4).getUint32(0, true);
    at += 4;
    return v;
  };
  const string = () => Buffer.from(take(u32())).toString("utf8").replace(/\0+$/, "");
  const updateAuthority = take(32);
  const mint = take(32);
  const name = string();
  const symbol = string();
  const uri = string();
  const sellerFeeBasisPoints = data[at]! | (data[at + 1]! << 8);
  at += 2;
  const creators: { address: Uint8Array; verified: boolean; share: number }[] = [];
  if (data[at++] === 1) {
    const n = u32();
    for (let i = 0; i < n; i++) {
      const address = take(32);
      creators.push({ address, verified: data[at++] === 1, share: data[at++]! });
    }
  }
  const primarySaleHappened = data[at++] === 1;
  const isMutable = data[at++] === 1;
  if (data[at++] === 1) at += 1; // edition_nonce
  const tokenStandard = data[at++] === 1 ? data[at++]! : null;
  let collection: { verified: boolean; key: Uint8Array } | null = null;
  if (data[at++] === 1) {
    const verified = data[at++] === 1;
    collection = { verified, key: take(32) };
  }
  if (data[at++] === 1) at += 17; // uses: use method u8, remaining u64, total u64
  if (data[at++] === 1) at += 9; // collection details: V1 { size u64 } or V2 { padding [u8; 8] }
  let ruleSet: Uint8Array | null = null;
  // programmable config: Option<ProgrammableConfig::V1 { rule_set: Option<Pubkey> }>
  if (at + 3 <= data.length && data[at++] === 1 && data[at++] === 0 && data[at++] === 1) ruleSet = take(32);
  return {
    updateAuthority,
    mint,
    name,
    symbol,
    uri,
    collection,
    tokenStandard,
    ruleSet,
    sellerFeeBasisPoints,
    creators,
    primarySaleHappened,
    isMutable,
  };
}
