/**
 * Metaplex Core accounts as DAS reads them: an `AssetV1` (key 1) with its owner, update authority (an address or
 * its collection), name, uri, and from its plugin registry the Freeze Delegate / Permanent Freeze Delegate state
 * and the Transfer Delegate's address. Layouts: mpl-core `state/asset.rs`, `plugins/plugin_registry.rs`.
 */
import { BorshReader } from "./borsh-reader.ts";

/** Core `Key` of an uncompressed asset and of a collection. */
const KEY_ASSET_V1 = 1;
const KEY_PLUGIN_HEADER_V1 = 3;
const KEY_PLUGIN_REGISTRY_V1 = 4;
/** `PluginType` (and `Plugin` variant) indices. */
const PLUGIN_FREEZE_DELEGATE = 1;
const PLUGIN_TRANSFER_DELEGATE = 3;
const PLUGIN_PERMANENT_FREEZE_DELEGATE = 5;
/** `Authority` variant holding an address. */
const AUTHORITY_ADDRESS = 3;

/** What the index keeps of a Core asset. */
export interface CoreAsset {
  owner: string;
  /** The collection it belongs to (update authority `Collection`), or null. */
  collection: string | null;
  /** The update authority's address (the collection's address when grouped). */
  updateAuthority: string | null;
  name: string;
  uri: string;
  frozen: boolean;
  /** The Transfer Delegate's address, when one is set. */
  delegate: string | null;
}

/** Decodes a Core `AssetV1` account; null for any other Core account (collections, compressed hashes). */
export function decodeCoreAsset(data: Uint8Array): CoreAsset | null {
  if (data[0] !== KEY_ASSET_V1) return null;
  try {
    const r = new BorshReader(data);
    r.at = 1;
    const owner = r.key();
    const authorityKind = r.u8();
    const authority = authorityKind === 0 ? null : r.key();
    const name = r.string();
    const uri = r.string();
    if (r.u8() === 1) r.at += 8; // seq
    const asset: CoreAsset = {
      owner,
      collection: authorityKind === 2 ? authority : null,
      updateAuthority: authority,
      name,
      uri,
      frozen: false,
      delegate: null,
    };
    if (r.at < data.length && data[r.at] === KEY_PLUGIN_HEADER_V1) readPlugins(data, r.at, asset);
    return asset;
  } catch {
    return null;
  }
}

function readPlugins(data: Uint8Array, headerAt: number, asset: CoreAsset): void {
  const r = new BorshReader(data);
  r.at = headerAt + 1;
  r.at = Number(r.u64());
  if (r.u8() !== KEY_PLUGIN_REGISTRY_V1) return;
  const count = r.u32();
  for (let i = 0; i < count; i++) {
    const type = r.u8();
    const authorityKind = r.u8();
    const authority = authorityKind === AUTHORITY_ADDRESS ? r.key() : null;
    const offset = Number(r.u64());
    if (type === PLUGIN_FREEZE_DELEGATE || type === PLUGIN_PERMANENT_FREEZE_DELEGATE) {
      // Plugin::FreezeDelegate { frozen } / PermanentFreezeDelegate { frozen }: variant byte, then the flag
      if (data[offset] === type && data[offset + 1] === 1) asset.frozen = true;
    } else if (type === PLUGIN_TRANSFER_DELEGATE && authority !== null) asset.delegate = authority;
  }
}
