import {
  type Codec,
  type FixedSizeCodec,
  getConstantCodec,
  getHiddenPrefixCodec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { ACCOUNT_SIZE, ACCOUNT_TAG, ACCOUNT_VERSION, V1_ACCOUNT_SIZE } from "../constants.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";

/**
 * Wraps an account body codec with the 2-byte header [tag, version]: written on encode, checked on decode.
 */
export function withAccountHeader<TFrom, TTo extends TFrom>(
  type: keyof typeof ACCOUNT_TAG,
  body: FixedSizeCodec<TFrom, TTo>,
): FixedSizeCodec<TFrom, TTo> {
  return getHiddenPrefixCodec(body, [
    getConstantCodec(new Uint8Array([ACCOUNT_TAG[type], ACCOUNT_VERSION[type]])),
  ]);
}

/**
 * Decodes account bytes with a fixed-size account codec after checking length, tag and version, with a
 * clear {@link SdkError} on mismatch.
 */
export function decodeAccountWith<T>(
  name: keyof typeof ACCOUNT_TAG,
  codec: Codec<T, T> | FixedSizeCodec<T, T>,
  data: ReadonlyUint8Array,
): T {
  const tag = ACCOUNT_TAG[name];
  const size = ACCOUNT_SIZE[name];
  if (data.length !== size) {
    throw new SdkError(
      SDK_ERROR.ACCOUNT_DATA_TOO_SHORT,
      `${name} account must be ${size} bytes, got ${data.length}`,
    );
  }
  if (data[0] !== tag || data[1] !== ACCOUNT_VERSION[name]) {
    throw new SdkError(
      SDK_ERROR.UNKNOWN_ACCOUNT_DISCRIMINATOR,
      `not a ${name} account (tag ${data[0]}, version ${data[1]})`,
    );
  }
  return codec.decode(data);
}

/**
 * Decodes a Pool or Loan account at either layout: a v1 account (written before the program upgrade, until
 * Migrate) reads as the current layout with its v2 fields zero, and `layoutVersion` says which it was.
 */
export function decodeVersionedAccountWith<T>(
  name: keyof typeof V1_ACCOUNT_SIZE,
  codec: Codec<T, T> | FixedSizeCodec<T, T>,
  data: ReadonlyUint8Array,
): T & { layoutVersion: number } {
  if (data.length === V1_ACCOUNT_SIZE[name] && data[0] === ACCOUNT_TAG[name] && data[1] === 1) {
    const current = new Uint8Array(ACCOUNT_SIZE[name]);
    current.set(data);
    current[1] = ACCOUNT_VERSION[name];
    return { ...codec.decode(current), layoutVersion: 1 };
  }
  return { ...decodeAccountWith(name, codec, data), layoutVersion: ACCOUNT_VERSION[name] };
}
