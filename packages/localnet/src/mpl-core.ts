/** Metaplex Core (loaded at its mainnet id): collections and assets, Borsh-encoded by hand. */
import { decodeAddress } from "./base58.ts";
import type { BuildInstruction } from "./tx-builder.ts";
import { MPL_CORE_PROGRAM } from "./vendored-programs.ts";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
/** MplAssetInstruction indices. */
const IX = { CREATE_V1: 0, CREATE_COLLECTION_V1: 1 } as const;

const str = (s: string) => {
  const b = Buffer.from(s, "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32LE(b.length);
  return Buffer.concat([len, b]);
};
const meta = (a: string, isSigner: boolean, isWritable: boolean) => ({
  pubkey: decodeAddress(a),
  isSigner,
  isWritable,
});

/** CreateCollectionV1: a collection account (a new keypair, which signs) whose update authority is the payer. */
export function createCoreCollectionV1(p: {
  collection: string;
  payer: string;
  name: string;
  uri: string;
}): BuildInstruction {
  return {
    programId: decodeAddress(MPL_CORE_PROGRAM),
    keys: [
      meta(p.collection, true, true),
      meta(MPL_CORE_PROGRAM, false, false), // update authority: none given, the payer
      meta(p.payer, true, true),
      meta(SYSTEM_PROGRAM, false, false),
    ],
    data: Buffer.concat([Uint8Array.of(IX.CREATE_COLLECTION_V1), str(p.name), str(p.uri), Uint8Array.of(0)]),
  };
}

/**
 * CreateV1 of an asset (a new keypair, which signs) in `collection`, owned by `owner`; `authority` is the
 * collection's update authority (it signs and pays).
 */
export function createCoreAssetV1(p: {
  asset: string;
  collection: string;
  authority: string;
  owner: string;
  name: string;
  uri: string;
}): BuildInstruction {
  return {
    programId: decodeAddress(MPL_CORE_PROGRAM),
    keys: [
      meta(p.asset, true, true),
      meta(p.collection, false, true),
      meta(p.authority, true, false),
      meta(p.authority, true, true),
      meta(p.owner, false, false),
      meta(MPL_CORE_PROGRAM, false, false), // update authority: the collection's
      meta(SYSTEM_PROGRAM, false, false),
      meta(MPL_CORE_PROGRAM, false, false), // log wrapper: none
    ],
    // DataState::AccountState, name, uri, plugins: None
    data: Buffer.concat([Uint8Array.of(IX.CREATE_V1, 0), str(p.name), str(p.uri), Uint8Array.of(0)]),
  };
}
