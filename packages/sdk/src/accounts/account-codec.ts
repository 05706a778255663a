import {
  type Codec,
  type FixedSizeCodec,
  getConstantCodec,
  getHiddenPrefixCodec,
  type ReadonlyUint8Array,
} from "@solana/kit";
import { ACCOUNT_VERSION } from "../constants.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";

/**
 * Wraps an account body codec with the 2-byte header [tag, version]: written on encode, checked on decode.
 */
export function withAccountHeader<TFrom, TTo extends TFrom>(
  tag: number,
  body: FixedSizeCodec<TFrom, TTo>,
): FixedSizeCodec<TFrom, TTo> {
  return getHiddenPrefixCodec(body, [getConstantCodec(new Uint8Array([tag, ACCOUNT_VERSION]))]);
}

/**
 * Decodes account bytes with a fixed-size account codec after checking length, tag and version, with a
 * clear {@link SdkError} on mismatch.
 */
export function decodeAccountWith<T>(
  name: string,
  tag: number,
  size: number,
  codec: Codec<T, T> | FixedSizeCodec<T, T>,
  data: ReadonlyUint8Array,
): T {
  if (data.length !== size) {
    throw new SdkError(
      SDK_ERROR.ACCOUNT_DATA_TOO_SHORT,
      `${name} account must be ${size} bytes, got ${data.length}`,
    );
  }
  if (data[0] !== tag || data[1] !== ACCOUNT_VERSION) {
    throw new SdkError(
      SDK_ERROR.UNKNOWN_ACCOUNT_DISCRIMINATOR,
      `not a ${name} account (tag ${data[0]}, version ${data[1]})`,
    );
  }
  return codec.decode(data);
}
