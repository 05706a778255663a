/**
 * Metaplex Core instructions for the lending program's tests, Borsh-encoded by hand from mpl-core's
 * programs/mpl-core/src (instruction.rs: accounts and order; processor/*: args; plugins/mod.rs: Plugin, Authority).
 * Optional accounts are passed as the Core program's id (Core reads that as none).
 */
import { MPL_CORE_PROGRAM } from "@cistern/localnet";
import {
  AccountRole,
  type Address,
  address,
  getAddressDecoder,
  getAddressEncoder,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";

export const CORE = address(MPL_CORE_PROGRAM);
const SYSTEM = address("11111111111111111111111111111111");
const enc = getAddressEncoder();
const dec = getAddressDecoder();

/** MplAssetInstruction discriminators. */
const IX = {
  CreateV1: 0,
  CreateCollectionV1: 1,
  AddPluginV1: 2,
  UpdatePluginV1: 6,
  ApprovePluginAuthorityV1: 8,
  RevokePluginAuthorityV1: 10,
  BurnV1: 12,
  TransferV1: 14,
  UpdateV1: 15,
  UpdateCollectionV1: 16,
  AddCollectionExternalPluginAdapterV1: 23,
} as const;

/** PluginType. */
export const PLUGIN = {
  FreezeDelegate: 1,
  BurnDelegate: 2,
  TransferDelegate: 3,
  PermanentFreezeDelegate: 5,
  PermanentTransferDelegate: 7,
  PermanentBurnDelegate: 8,
} as const;

/** Authority: None, Owner, UpdateAuthority, Address. */
export type Authority =
  | { kind: "None" | "Owner" | "UpdateAuthority" }
  | { kind: "Address"; address: Address };
function authority(a: Authority): Uint8Array {
  switch (a.kind) {
    case "None":
      return Uint8Array.of(0);
    case "Owner":
      return Uint8Array.of(1);
    case "UpdateAuthority":
      return Uint8Array.of(2);
    case "Address":
      return Uint8Array.from([3, ...enc.encode(a.address)]);
  }
}

/** A plugin: its type and body (frozen for the freeze delegates; the others have none). */
export interface Plugin {
  type: (typeof PLUGIN)[keyof typeof PLUGIN];
  frozen?: boolean;
  authority?: Authority;
}
function plugin(p: Plugin): Uint8Array {
  const frozen = p.type === PLUGIN.FreezeDelegate || p.type === PLUGIN.PermanentFreezeDelegate;
  return frozen ? Uint8Array.of(p.type, p.frozen ? 1 : 0) : Uint8Array.of(p.type);
}
/** Option<Vec<PluginAuthorityPair>> */
function plugins(list: Plugin[] | undefined): Uint8Array {
  if (!list) return Uint8Array.of(0);
  const parts = list.map((p) =>
    concat(plugin(p), p.authority ? concat(Uint8Array.of(1), authority(p.authority)) : Uint8Array.of(0)),
  );
  return concat(Uint8Array.of(1), u32(list.length), ...parts);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
const u32 = (v: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v, true);
  return b;
};
const str = (s: string) => {
  const b = new TextEncoder().encode(s);
  return concat(u32(b.length), b);
};

const ro = (a: Address) => ({ address: a, role: AccountRole.READONLY });
const w = (a: Address) => ({ address: a, role: AccountRole.WRITABLE });
const s = (who: KeyPairSigner) => ({ address: who.address, role: AccountRole.READONLY_SIGNER, signer: who });
const ws = (who: KeyPairSigner) => ({ address: who.address, role: AccountRole.WRITABLE_SIGNER, signer: who });

/** CreateCollectionV1: update authority `authority` (it pays), optional plugins. */
export function createCollection(
  collection: KeyPairSigner,
  authority: KeyPairSigner,
  list?: Plugin[],
): Instruction {
  return {
    programAddress: CORE,
    accounts: [ws(collection), ro(CORE), ws(authority), ro(SYSTEM)],
    data: concat(
      Uint8Array.of(IX.CreateCollectionV1),
      str("Core Herons"),
      str("https://example.invalid/c.json"),
      plugins(list),
    ),
  };
}

/** CreateV1 of an asset in `collection` (its update authority signs and pays), owned by `owner`. */
export function createAsset(
  asset: KeyPairSigner,
  collection: Address,
  authority: KeyPairSigner,
  owner: Address,
  list?: Plugin[],
): Instruction {
  return {
    programAddress: CORE,
    accounts: [
      ws(asset),
      w(collection),
      s(authority),
      ws(authority),
      ro(owner),
      ro(CORE),
      ro(SYSTEM),
      ro(CORE),
    ],
    // DataState::AccountState, name, uri, plugins
    data: concat(
      Uint8Array.of(IX.CreateV1, 0),
      str("Heron"),
      str("https://example.invalid/a.json"),
      plugins(list),
    ),
  };
}

/** The accounts most asset instructions share: asset (w), collection, payer (w, s), authority (s), system, log. */
function assetAccounts(asset: Address, collection: Address, who: KeyPairSigner, collectionWritable = true) {
  return [
    w(asset),
    collectionWritable ? w(collection) : ro(collection),
    ws(who),
    s(who),
    ro(SYSTEM),
    ro(CORE),
  ];
}

/** AddPluginV1 by `who` (the owner for owner-managed plugins), with an initial authority. */
export function addPlugin(asset: Address, collection: Address, who: KeyPairSigner, p: Plugin): Instruction {
  const init = p.authority ? concat(Uint8Array.of(1), authority(p.authority)) : Uint8Array.of(0);
  return {
    programAddress: CORE,
    accounts: assetAccounts(asset, collection, who),
    data: concat(Uint8Array.of(IX.AddPluginV1), plugin(p), init),
  };
}

/** UpdatePluginV1 by `who` (e.g. a freeze delegate freezing). */
export function updatePlugin(
  asset: Address,
  collection: Address,
  who: KeyPairSigner,
  p: Plugin,
): Instruction {
  return {
    programAddress: CORE,
    accounts: assetAccounts(asset, collection, who),
    data: concat(Uint8Array.of(IX.UpdatePluginV1), plugin(p)),
  };
}

/** ApprovePluginAuthorityV1: `who` (the owner) gives `type`'s authority to `to`. */
export function approvePlugin(
  asset: Address,
  collection: Address,
  who: KeyPairSigner,
  type: number,
  to: Address,
): Instruction {
  return {
    programAddress: CORE,
    accounts: assetAccounts(asset, collection, who),
    data: concat(
      Uint8Array.of(IX.ApprovePluginAuthorityV1, type),
      authority({ kind: "Address", address: to }),
    ),
  };
}

/** RevokePluginAuthorityV1 by `who`. */
export function revokePlugin(
  asset: Address,
  collection: Address,
  who: KeyPairSigner,
  type: number,
): Instruction {
  return {
    programAddress: CORE,
    accounts: assetAccounts(asset, collection, who),
    data: Uint8Array.of(IX.RevokePluginAuthorityV1, type),
  };
}

/** TransferV1 by `who` (owner or delegate) to `newOwner`. */
export function transfer(
  asset: Address,
  collection: Address,
  who: KeyPairSigner,
  newOwner: Address,
): Instruction {
  return {
    programAddress: CORE,
    accounts: [w(asset), ro(collection), ws(who), s(who), ro(newOwner), ro(SYSTEM), ro(CORE)],
    data: Uint8Array.of(IX.TransferV1, 0),
  };
}

/** BurnV1 by `who`. */
export function burn(asset: Address, collection: Address, who: KeyPairSigner): Instruction {
  return {
    programAddress: CORE,
    accounts: assetAccounts(asset, collection, who),
    data: Uint8Array.of(IX.BurnV1, 0),
  };
}

/** UpdateV1 by `who`: a new name. */
export function rename(asset: Address, collection: Address, who: KeyPairSigner, name: string): Instruction {
  return {
    programAddress: CORE,
    accounts: assetAccounts(asset, collection, who, false),
    data: concat(Uint8Array.of(IX.UpdateV1, 1), str(name), Uint8Array.of(0, 0)),
  };
}

/** UpdateCollectionV1: the collection's update authority hands it to `next`. */
export function changeCollectionAuthority(
  collection: Address,
  who: KeyPairSigner,
  next: Address,
): Instruction {
  return {
    programAddress: CORE,
    accounts: [w(collection), ws(who), s(who), ro(next), ro(SYSTEM), ro(CORE)],
    data: Uint8Array.of(IX.UpdateCollectionV1, 0, 0),
  };
}

/** AddCollectionExternalPluginAdapterV1: an Oracle that may reject transfers (base address `oracle`). */
export function addTransferOracle(collection: Address, who: KeyPairSigner, oracle: Address): Instruction {
  return {
    programAddress: CORE,
    accounts: [w(collection), ws(who), s(who), ro(SYSTEM), ro(CORE)],
    // ExternalPluginAdapterInitInfo::Oracle { base_address, init_plugin_authority: None,
    //   lifecycle_checks: [(Transfer, CAN_REJECT)], base_address_config: None, results_offset: None }
    data: concat(
      Uint8Array.of(IX.AddCollectionExternalPluginAdapterV1, 1),
      enc.encode(oracle) as Uint8Array,
      Uint8Array.of(0),
      u32(1),
      Uint8Array.of(1),
      u32(4),
      Uint8Array.of(0, 0),
    ),
  };
}

/** An asset account's owner and update authority (AssetV1: key, owner, update authority tag + key). */
export function readAsset(data: Uint8Array): {
  key: number;
  owner: Address;
  updateAuthority: Address | null;
} {
  return {
    key: data[0] ?? 0,
    owner: dec.decode(data.subarray(1, 33)),
    updateAuthority: data[33] === 0 ? null : dec.decode(data.subarray(34, 66)),
  };
}
