import {
  type Address,
  type FixedSizeCodec,
  getI64Codec,
  getU8Codec,
  getU16Codec,
  getU32Codec,
  getU64Codec,
  padRightCodec,
  transformCodec,
} from "@solana/kit";
import { getFastAddressCodec } from "../address-text.ts";

/** u64 as bigint. */
export const u64 = (): FixedSizeCodec<bigint | number, bigint, 8> => getU64Codec();
/** i64 as bigint (unix seconds). */
export const i64 = (): FixedSizeCodec<bigint | number, bigint, 8> => getI64Codec();
/** u32 as number. */
export const u32 = (): FixedSizeCodec<number, number, 4> => getU32Codec();
/** u16 as number. */
export const u16 = (): FixedSizeCodec<number, number, 2> => getU16Codec();
/** u8 as number. */
export const u8 = (): FixedSizeCodec<number, number, 1> => getU8Codec();
/** 32-byte public key. */
export const pubkey = (): FixedSizeCodec<Address, Address, 32> => getFastAddressCodec();

/** A codec followed by `bytes` reserved zero bytes (written as 0, ignored when read). */
export function withReserved<TFrom, TTo extends TFrom>(
  codec: FixedSizeCodec<TFrom, TTo>,
  bytes: number,
): FixedSizeCodec<TFrom, TTo> {
  return padRightCodec(codec, bytes) as FixedSizeCodec<TFrom, TTo>;
}

/** u8 0/1 as boolean (any non-zero reads as true). */
export function bool8(): FixedSizeCodec<boolean, boolean, 1> {
  return transformCodec(
    getU8Codec(),
    (value: boolean) => (value ? 1 : 0),
    (byte: number) => byte !== 0,
  );
}

/** u8 mapped to string literals; an unknown byte is a decode error. */
export function u8Enum<const T extends string>(values: Readonly<Record<number, T>>): FixedSizeCodec<T, T, 1> {
  const toByte = new Map<T, number>();
  for (const [byte, name] of Object.entries(values)) toByte.set(name as T, Number(byte));
  return transformCodec(
    getU8Codec(),
    (name: T) => {
      const byte = toByte.get(name);
      if (byte === undefined) throw new RangeError(`unknown enum value "${name}"`);
      return byte;
    },
    (byte: number) => {
      const name = values[byte];
      if (name === undefined) throw new RangeError(`unknown enum byte ${byte}`);
      return name;
    },
  );
}

const ZERO_ADDRESS = "11111111111111111111111111111111" as Address;

/** 32 bytes where all-zero means "none" (null). */
export function optionalPubkey(): FixedSizeCodec<Address | null, Address | null, 32> {
  return transformCodec(
    getFastAddressCodec(),
    (value: Address | null) => value ?? ZERO_ADDRESS,
    (value: Address) => (value === ZERO_ADDRESS ? null : value),
  );
}
