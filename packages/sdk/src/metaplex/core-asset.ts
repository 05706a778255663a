/**
 * Metaplex Core asset accounts (`BaseAssetV1`, Borsh): the owner and the collection an asset names. The plugins
 * that follow the base fields are not read here.
 */
import type { Address } from "@solana/kit";
import { addressFromBytes } from "../address-text.ts";

/** The Metaplex Core program. */
export const MPL_CORE_PROGRAM_ADDRESS = "CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d" as Address;

/** Key::AssetV1 (byte 0 of an asset account). */
const KEY_ASSET_V1 = 1;
/** UpdateAuthority::Collection (the asset belongs to the collection account that follows). */
const UPDATE_AUTHORITY_COLLECTION = 2;

/** The base fields of a Core asset the lending builders need. */
export interface CoreAsset {
  owner: Address;
  /** The collection the asset names as its update authority; null when it names none. */
  collection: Address | null;
}

/** Decodes a Core asset account's base fields; null when the bytes are not an AssetV1. */
export function decodeCoreAsset(data: Uint8Array): CoreAsset | null {
  if (data.length < 34 || data[0] !== KEY_ASSET_V1) return null;
  const owner = addressFromBytes(data.subarray(1, 33));
  const authority = data[33];
  const collection =
    authority === UPDATE_AUTHORITY_COLLECTION && data.length >= 66
      ? addressFromBytes(data.subarray(34, 66))
      : null;
  return { owner, collection };
}
