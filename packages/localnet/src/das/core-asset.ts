/**
 * Metaplex Core accounts as DAS reads them: an `AssetV1` (key 1) with its owner, update authority (an address or
 * its collection), name, uri, and its plugin registry (each plugin's type, authority, offset and data, as DAS's
 * `plugins` shows them; the Freeze Delegate / Permanent Freeze Delegate state and the Transfer Delegate's address
 * read from them), and a `CollectionV1` (key 5: name, counters). Layouts: mpl-core `state/asset.rs`,
 * `state/collection.rs`, `plugins/plugin_registry.rs`, `plugins/mod.rs`.
 */
import { BorshReader } from "./borsh-reader.ts";

/** Core `Key` of an uncompressed asset and of a collection. */
const KEY_ASSET_V1 = 1;
const KEY_PLUGIN_HEADER_V1 = 3;
const KEY_PLUGIN_REGISTRY_V1 = 4;
const KEY_COLLECTION_V1 = 5;
/** `PluginType` indices, in mpl-core's order, by the names DAS gives them. */
const PLUGIN_NAMES = [
  "royalties",
  "freeze_delegate",
  "burn_delegate",
  "transfer_delegate",
  "update_delegate",
  "permanent_freeze_delegate",
  "attributes",
  "permanent_transfer_delegate",
  "permanent_burn_delegate",
  "edition",
  "master_edition",
  "add_blocker",
  "immutable_metadata",
  "verified_creators",
  "autograph",
] as const;
const AUTHORITY_TYPES = ["None", "Owner", "UpdateAuthority", "Address"] as const;

/** One plugin as DAS shows it. */
export interface CorePlugin {
  index: number;
  offset: number;
  authority: { type: string; address: string | null };
  data: Record<string, unknown>;
}

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
  /** Plugins by DAS name (freeze_delegate, transfer_delegate, royalties, ...). */
  plugins: Record<string, CorePlugin>;
}

/** A Core collection. */
export interface CoreCollection {
  updateAuthority: string;
  name: string;
  uri: string;
  numMinted: number;
  currentSize: number;
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
      plugins: {},
    };
    if (r.at < data.length && data[r.at] === KEY_PLUGIN_HEADER_V1) readPlugins(data, r.at, asset);
    return asset;
  } catch {
    return null;
  }
}

/** Decodes a Core `CollectionV1` account; null for any other account. */
export function decodeCoreCollection(data: Uint8Array): CoreCollection | null {
  if (data[0] !== KEY_COLLECTION_V1) return null;
  try {
    const r = new BorshReader(data);
    r.at = 1;
    const updateAuthority = r.key();
    const name = r.string();
    const uri = r.string();
    return { updateAuthority, name, uri, numMinted: r.u32(), currentSize: r.u32() };
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
    const authority = authorityKind === 3 ? r.key() : null;
    const offset = Number(r.u64());
    const name = PLUGIN_NAMES[type];
    if (name === undefined) continue;
    // the plugin's bytes: its `Plugin` variant byte, then its data
    const pluginData = data[offset] === type ? pluginJson(type, data, offset + 1) : {};
    asset.plugins[name] = {
      index: i,
      offset,
      authority: { type: AUTHORITY_TYPES[authorityKind] ?? "None", address: authority },
      data: pluginData,
    };
    if ((name === "freeze_delegate" || name === "permanent_freeze_delegate") && pluginData.frozen === true)
      asset.frozen = true;
    else if (name === "transfer_delegate" && authority !== null) asset.delegate = authority;
  }
}

/** A plugin's data as DAS shows it (the plugins the localnet's assets carry; others as an empty object). */
function pluginJson(type: number, data: Uint8Array, at: number): Record<string, unknown> {
  const r = new BorshReader(data);
  r.at = at;
  try {
    switch (PLUGIN_NAMES[type]) {
      case "freeze_delegate":
      case "permanent_freeze_delegate":
        return { frozen: r.u8() === 1 };
      case "royalties": {
        const basis_points = r.u8() | (r.u8() << 8);
        const creators = Array.from({ length: r.u32() }, () => ({ address: r.key(), percentage: r.u8() }));
        const rule = r.u8();
        const list = rule === 0 ? [] : Array.from({ length: r.u32() }, () => r.key());
        const rule_set =
          rule === 0 ? "None" : rule === 1 ? { program_allow_list: [list] } : { program_deny_list: [list] };
        return { basis_points, creators, rule_set };
      }
      case "attributes":
        return {
          attribute_list: Array.from({ length: r.u32() }, () => ({ key: r.string(), value: r.string() })),
        };
      case "edition":
        return { number: r.u32() };
      default:
        return {};
    }
  } catch {
    return {};
  }
}
