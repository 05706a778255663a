/**
 * Bubblegum V1 `MetadataArgs` (Borsh, mpl-bubblegum `state/metaplex_adapter.rs`): the one encoder (the demo seed's
 * mints) and decoder (the DAS index reading mint instructions) of the localnet, with the data and creator hashes
 * Bubblegum commits to in a leaf (`utils.rs` hash_metadata, hash_creators).
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { decodeAddress, encodeBase58 } from "../base58.ts";

/** Anchor discriminators (sha256("global:<name>")[0..8]) of the Bubblegum V1 instructions used here. */
export const BUBBLEGUM_DISCRIMINATOR = {
  createTree: "a553888e59ca2fdc",
  mintV1: "9162c076b8937668",
  mintToCollectionV1: "9912b22fc59e560f",
  transfer: "a334c8e78c0345ba",
  verifyCollection: "387165fd4f377aa9",
  unverifyCollection: "fafb2a6a2989baa8",
} as const;

/** A compressed NFT's metadata, as a Bubblegum instruction states it. */
export interface CompressedMetadata {
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  primarySaleHappened: boolean;
  isMutable: boolean;
  collection: { key: string; verified: boolean } | null;
  creators: { address: string; verified: boolean; share: number }[];
  /** keccak(keccak(borsh(args)) || seller fee LE): what the leaf's data_hash must be. */
  dataHash: Uint8Array;
  /** keccak(address || verified || share ...): what the leaf's creator_hash must be. */
  creatorHash: Uint8Array;
}

/** What the seed mints: the fields a demo compressed NFT sets. */
export interface MetadataArgsInput {
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  collection: string | null;
  creators: { address: string; verified: boolean; share: number }[];
}

const str = (s: string) => {
  const b = Buffer.from(s, "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32LE(b.length);
  return Buffer.concat([len, b]);
};

/** Encodes MetadataArgs: NonFungible, mutable, no edition nonce, no uses, the original token program. */
export function encodeMetadataArgs(m: MetadataArgsInput): Uint8Array {
  const fee = Buffer.alloc(2);
  fee.writeUInt16LE(m.sellerFeeBasisPoints);
  const creators = Buffer.alloc(4);
  creators.writeUInt32LE(m.creators.length);
  return Buffer.concat([
    str(m.name),
    str(m.symbol),
    str(m.uri),
    fee,
    Uint8Array.of(0, 1, 0, 1, 0), // primary sale no, mutable, edition nonce None, token standard Some(NonFungible)
    m.collection === null
      ? Uint8Array.of(0)
      : Buffer.concat([Uint8Array.of(1, 0), decodeAddress(m.collection)]),
    Uint8Array.of(0, 0), // uses None, TokenProgramVersion::Original
    creators,
    ...m.creators.map((c) =>
      Buffer.concat([decodeAddress(c.address), Uint8Array.of(c.verified ? 1 : 0, c.share)]),
    ),
  ]);
}

/**
 * Decodes MetadataArgs at the start of `data`; `collectionVerified`, when given, is what the instruction sets before
 * hashing (MintToCollectionV1 and VerifyCollection: true, UnverifyCollection: false). Null when the bytes are not
 * MetadataArgs.
 */
export function readMetadataArgs(data: Uint8Array, collectionVerified?: boolean): CompressedMetadata | null {
  try {
    const bytes = Uint8Array.from(data);
    const view = new DataView(bytes.buffer);
    let at = 0;
    const need = (n: number) => {
      if (at + n > bytes.length) throw new Error("short");
    };
    const string = () => {
      need(4);
      const n = view.getUint32(at, true);
      at += 4;
      need(n);
      const s = Buffer.from(bytes.subarray(at, at + n)).toString("utf8");
      at += n;
      return s;
    };
    const u8 = () => {
      need(1);
      return bytes[at++]!;
    };
    const name = string();
    const symbol = string();
    const uri = string();
    need(2);
    const sellerFeeBasisPoints = view.getUint16(at, true);
    at += 2;
    const primarySaleHappened = u8() === 1;
    const isMutable = u8() === 1;
    if (u8() === 1) at += 1; // edition nonce
    if (u8() === 1) at += 1; // token standard
    let collection: CompressedMetadata["collection"] = null;
    if (u8() === 1) {
      if (collectionVerified !== undefined) bytes[at] = collectionVerified ? 1 : 0;
      const verified = u8() === 1;
      need(32);
      collection = { verified, key: encodeBase58(bytes.subarray(at, at + 32)) };
      at += 32;
    }
    if (u8() === 1) at += 17; // uses: method u8, remaining u64, total u64
    at += 1; // token program version
    need(4);
    const count = view.getUint32(at, true);
    at += 4;
    if (count > 5) return null;
    const creators: CompressedMetadata["creators"] = [];
    const creatorHash = keccak_256.create();
    for (let i = 0; i < count; i++) {
      need(34);
      creatorHash.update(bytes.subarray(at, at + 34));
      creators.push({
        address: encodeBase58(bytes.subarray(at, at + 32)),
        verified: bytes[at + 32] === 1,
        share: bytes[at + 33]!,
      });
      at += 34;
    }
    const argsHash = keccak_256(bytes.subarray(0, at));
    const fee = Uint8Array.of(sellerFeeBasisPoints & 0xff, sellerFeeBasisPoints >> 8);
    const dataHash = keccak_256.create().update(argsHash).update(fee).digest();
    return {
      name,
      symbol,
      uri,
      sellerFeeBasisPoints,
      primarySaleHappened,
      isMutable,
      collection,
      creators,
      dataHash,
      creatorHash: creatorHash.digest(),
    };
  } catch {
    return null;
  }
}
