/**
 * Instructions of the real Metaplex Token Metadata program (loaded at its mainnet id, `vendored-programs.ts`)
 * and the SPL instructions a mint needs, encoded by hand in the program's Borsh layout.
 */
import { decodeAddress } from "./base58.ts";
import { TOKEN_METADATA_PROGRAM_ADDRESS } from "./demo-world.ts";
import { findProgramAddressSync } from "./pda.ts";
import { ASSOCIATED_TOKEN_PROGRAM, getAssociatedTokenAddress, TOKEN_PROGRAM } from "./token-layout.ts";
import type { BuildInstruction } from "./tx-builder.ts";
import { TOKEN_AUTH_RULES_PROGRAM } from "./vendored-programs.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const SYSVAR_INSTRUCTIONS = "Sysvar1nstructions1111111111111111111111111";

/** Token Metadata instruction discriminators (MetadataInstruction enum index). */
const IX = {
  CREATE_MASTER_EDITION_V3: 17,
  CREATE_METADATA_ACCOUNT_V3: 33,
  CREATE: 42,
  MINT: 43,
  TRANSFER: 49,
  VERIFY: 52,
} as const;
/** TokenStandard::ProgrammableNonFungible. */
const PROGRAMMABLE_NON_FUNGIBLE = 4;
/** VerificationArgs::CollectionV1. */
const VERIFY_COLLECTION_V1 = 1;

type Meta = BuildInstruction["keys"][number];
const w = (a: string | Uint8Array, signer = false): Meta => ({
  pubkey: typeof a === "string" ? decodeAddress(a) : a,
  isSigner: signer,
  isWritable: true,
});
const r = (a: string | Uint8Array, signer = false): Meta => ({
  pubkey: typeof a === "string" ? decodeAddress(a) : a,
  isSigner: signer,
  isWritable: false,
});

/** Growable Borsh writer. */
class Borsh {
  private parts: number[] = [];
  u8(v: number): this {
    this.parts.push(v & 0xff);
    return this;
  }
  u16(v: number): this {
    return this.u8(v).u8(v >> 8);
  }
  u32(v: number): this {
    return this.u16(v & 0xffff).u16(v >>> 16);
  }
  u64(v: bigint): this {
    for (let i = 0n; i < 8n; i++) this.u8(Number((v >> (8n * i)) & 0xffn));
    return this;
  }
  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }
  bytes(b: Uint8Array): this {
    for (const x of b) this.parts.push(x);
    return this;
  }
  string(s: string): this {
    const b = Buffer.from(s, "utf8");
    return this.u32(b.length).bytes(b);
  }
  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

/** The metadata PDA ["metadata", program, mint]. */
export function getMetadataAddress(mint: string): string {
  return findProgramAddressSync(
    [Buffer.from("metadata"), decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS), decodeAddress(mint)],
    TOKEN_METADATA_PROGRAM_ADDRESS,
  )[0];
}

/** The (master) edition PDA ["metadata", program, mint, "edition"]. */
export function getMasterEditionAddress(mint: string): string {
  return findProgramAddressSync(
    [
      Buffer.from("metadata"),
      decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS),
      decodeAddress(mint),
      Buffer.from("edition"),
    ],
    TOKEN_METADATA_PROGRAM_ADDRESS,
  )[0];
}

/** On-chain fields of a new NFT's metadata (Token Metadata `DataV2` plus the V3 extras). */
export interface NftMetadataArgs {
  name: string;
  symbol: string;
  uri: string;
  sellerFeeBasisPoints: number;
  /** Creators; one equal to the update authority (which signs) may be verified at creation. */
  creators: { address: string; verified: boolean; share: number }[] | null;
  /** The collection it belongs to, unverified until `verifyCollection` (the program refuses verified here). */
  collection: string | null;
  isMutable: boolean;
  /** Makes it a sized collection NFT (CollectionDetails::V1 { size }). */
  collectionSize: bigint | null;
}

/** CreateMetadataAccountV3: the mint authority and the update authority sign. */
export function createMetadataAccountV3(p: {
  mint: string;
  mintAuthority: string;
  payer: string;
  updateAuthority: string;
  data: NftMetadataArgs;
}): BuildInstruction {
  const d = p.data;
  const b = new Borsh().u8(IX.CREATE_METADATA_ACCOUNT_V3).string(d.name).string(d.symbol).string(d.uri);
  b.u16(d.sellerFeeBasisPoints);
  if (d.creators) {
    b.u8(1).u32(d.creators.length);
    for (const c of d.creators) b.bytes(decodeAddress(c.address)).bool(c.verified).u8(c.share);
  } else b.u8(0);
  if (d.collection) b.u8(1).bool(false).bytes(decodeAddress(d.collection));
  else b.u8(0);
  b.u8(0); // uses: None
  b.bool(d.isMutable);
  if (d.collectionSize !== null) b.u8(1).u8(0).u64(d.collectionSize);
  else b.u8(0);
  return {
    programId: decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS),
    keys: [
      w(getMetadataAddress(p.mint)),
      r(p.mint),
      r(p.mintAuthority, true),
      w(p.payer, true),
      r(p.updateAuthority, true),
      r(SYSTEM_PROGRAM),
    ],
    data: b.done(),
  };
}

/**
 * CreateMasterEditionV3 (`maxSupply` 0: a one of one). The mint must hold exactly one token; its mint (and
 * freeze) authority passes to the edition PDA, so no one can mint a second.
 */
export function createMasterEditionV3(p: {
  mint: string;
  updateAuthority: string;
  mintAuthority: string;
  payer: string;
  maxSupply: bigint | null;
}): BuildInstruction {
  const b = new Borsh().u8(IX.CREATE_MASTER_EDITION_V3);
  if (p.maxSupply === null) b.u8(0);
  else b.u8(1).u64(p.maxSupply);
  return {
    programId: decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS),
    keys: [
      w(getMasterEditionAddress(p.mint)),
      w(p.mint),
      r(p.updateAuthority, true),
      r(p.mintAuthority, true),
      w(p.payer, true),
      w(getMetadataAddress(p.mint)),
      r(TOKEN_PROGRAM),
      r(SYSTEM_PROGRAM),
    ],
    data: b.done(),
  };
}

/**
 * Verify (VerificationArgs::CollectionV1): the collection's update authority marks `mint`'s collection as
 * verified; for a sized collection the program also counts it in the collection's size.
 */
export function verifyCollectionV1(p: {
  mint: string;
  collectionMint: string;
  authority: string;
}): BuildInstruction {
  const program = TOKEN_METADATA_PROGRAM_ADDRESS;
  return {
    programId: decodeAddress(program),
    keys: [
      r(p.authority, true),
      r(program), // delegate record: none
      w(getMetadataAddress(p.mint)),
      r(p.collectionMint),
      w(getMetadataAddress(p.collectionMint)),
      r(getMasterEditionAddress(p.collectionMint)),
      r(SYSTEM_PROGRAM),
      r(SYSVAR_INSTRUCTIONS),
    ],
    data: Uint8Array.of(IX.VERIFY, VERIFY_COLLECTION_V1),
  };
}

/** The associated token account program's CreateIdempotent. */
export function createAssociatedTokenAccountIdempotent(p: {
  payer: string;
  ata: string;
  owner: string;
  mint: string;
}): BuildInstruction {
  return {
    programId: decodeAddress(ASSOCIATED_TOKEN_PROGRAM),
    keys: [w(p.payer, true), w(p.ata), r(p.owner), r(p.mint), r(SYSTEM_PROGRAM), r(TOKEN_PROGRAM)],
    data: Uint8Array.of(1),
  };
}

/** SPL Token MintTo. */
export function mintTo(p: { mint: string; destination: string; authority: string; amount: bigint }) {
  const data = new Borsh().u8(7).u64(p.amount).done();
  return {
    programId: decodeAddress(TOKEN_PROGRAM),
    keys: [w(p.mint), w(p.destination), r(p.authority, true)],
    data,
  } satisfies BuildInstruction;
}

/** A pNFT's token record PDA ["metadata", program, mint, "token_record", token account]. */
export function getTokenRecordAddress(mint: string, tokenAccount: string): string {
  return findProgramAddressSync(
    [
      Buffer.from("metadata"),
      decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS),
      decodeAddress(mint),
      Buffer.from("token_record"),
      decodeAddress(tokenAccount),
    ],
    TOKEN_METADATA_PROGRAM_ADDRESS,
  )[0];
}

/**
 * Create (v1) of a programmable NFT governed by `ruleSet`: the mint (a new keypair, which signs), its metadata and
 * master edition (print supply zero). `collectionSize` makes it a sized collection NFT.
 */
export function createProgrammableNftV1(p: {
  mint: string;
  authority: string;
  data: Omit<NftMetadataArgs, "isMutable">;
  ruleSet: string;
}): BuildInstruction {
  const d = p.data;
  const b = new Borsh().u8(IX.CREATE).u8(0); // CreateArgs::V1
  b.string(d.name).string(d.symbol).string(d.uri).u16(d.sellerFeeBasisPoints);
  if (d.creators) {
    b.u8(1).u32(d.creators.length);
    for (const c of d.creators) b.bytes(decodeAddress(c.address)).bool(c.verified).u8(c.share);
  } else b.u8(0);
  b.bool(false).bool(true); // primary sale happened, is mutable
  b.u8(PROGRAMMABLE_NON_FUNGIBLE);
  if (d.collection) b.u8(1).bool(false).bytes(decodeAddress(d.collection));
  else b.u8(0);
  b.u8(0); // uses
  if (d.collectionSize !== null) b.u8(1).u8(0).u64(d.collectionSize);
  else b.u8(0);
  b.u8(1).bytes(decodeAddress(p.ruleSet));
  b.u8(1).u8(0); // decimals: Some(0)
  b.u8(1).u8(0); // print supply: Some(Zero)
  return {
    programId: decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS),
    keys: [
      w(getMetadataAddress(p.mint)),
      w(getMasterEditionAddress(p.mint)),
      w(p.mint, true),
      r(p.authority, true),
      w(p.authority, true),
      r(p.authority, true),
      r(SYSTEM_PROGRAM),
      r(SYSVAR_INSTRUCTIONS),
      r(TOKEN_PROGRAM),
    ],
    data: b.done(),
  };
}

/** Mint (v1) of a pNFT's single token to `owner` (creates the associated token account and the token record). */
export function mintProgrammableNftV1(p: {
  mint: string;
  authority: string;
  owner: string;
  ruleSet: string;
}): BuildInstruction {
  const token = getAssociatedTokenAddress(p.owner, p.mint);
  return {
    programId: decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS),
    keys: [
      w(token),
      r(p.owner),
      r(getMetadataAddress(p.mint)),
      w(getMasterEditionAddress(p.mint)),
      w(getTokenRecordAddress(p.mint, token)),
      w(p.mint),
      r(p.authority, true),
      r(TOKEN_METADATA_PROGRAM_ADDRESS), // delegate record: none
      w(p.authority, true),
      r(SYSTEM_PROGRAM),
      r(SYSVAR_INSTRUCTIONS),
      r(TOKEN_PROGRAM),
      r(ASSOCIATED_TOKEN_PROGRAM),
      r(TOKEN_AUTH_RULES_PROGRAM),
      r(p.ruleSet),
    ],
    data: new Borsh().u8(IX.MINT).u8(0).u64(1n).u8(0).done(), // MintArgs::V1 { amount: 1, authorization_data: None }
  };
}

/**
 * Transfer (v1) of a pNFT's token from `owner` (who signs and pays) to `destinationOwner`'s associated token
 * account (created), with the rule set's validation (Token Auth Rules) as Token Metadata runs it.
 */
export function transferProgrammableNftV1(p: {
  mint: string;
  owner: string;
  destinationOwner: string;
  ruleSet: string;
}): BuildInstruction {
  const token = getAssociatedTokenAddress(p.owner, p.mint);
  const destination = getAssociatedTokenAddress(p.destinationOwner, p.mint);
  return {
    programId: decodeAddress(TOKEN_METADATA_PROGRAM_ADDRESS),
    keys: [
      w(token),
      r(p.owner),
      w(destination),
      r(p.destinationOwner),
      r(p.mint),
      w(getMetadataAddress(p.mint)),
      r(getMasterEditionAddress(p.mint)),
      w(getTokenRecordAddress(p.mint, token)),
      w(getTokenRecordAddress(p.mint, destination)),
      r(p.owner, true),
      w(p.owner, true),
      r(SYSTEM_PROGRAM),
      r(SYSVAR_INSTRUCTIONS),
      r(TOKEN_PROGRAM),
      r(ASSOCIATED_TOKEN_PROGRAM),
      r(TOKEN_AUTH_RULES_PROGRAM),
      r(p.ruleSet),
    ],
    data: new Borsh().u8(IX.TRANSFER).u8(0).u64(1n).u8(0).done(), // TransferArgs::V1 { amount: 1, auth data: None }
  };
}
