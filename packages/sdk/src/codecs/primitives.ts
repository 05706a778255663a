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

// The codecs are immutable: one of each serves every caller (an account or instruction codec built per call
// would otherwise build its fields again each time).
const U64 = getU64Codec();
const I64 = getI64Codec();
const U32 = getU32Codec();
const U16 = getU16Codec();
const U8 = getU8Codec();
const PUBKEY = getFastAddressCodec();

/** u64 as bigint. */
export const u64 = (): FixedSizeCodec<bigint | number, bigint, 8> => U64;
/** i64 as bigint (unix seconds). */
export const i64 = (): FixedSizeCodec<bigint | number, bigint, 8> => I64;
/** u32 as number. */
export const u32 = (): FixedSizeCodec<number, number, 4> => U32;
/** u16 as number. */
export const u16 = (): FixedSizeCodec<number, number, 2> => U16;
/** u8 as number. */
export const u8 = (): FixedSizeCodec<number, number, 1> => U8;
/** 32-byte public key. */
export const pubkey = (): FixedSizeCodec<Address, Address, 32> => PUBKEY;

/** Padded codecs made so far, by codec and padding (the shared primitives above recur in every layout). */
const padded = new WeakMap<object, Map<number, object>>();

/** A codec followed by `bytes` reserved zero bytes (written as 0, ignored when read). */
export function withReserved<TFrom, TTo extends TFrom>(
  codec: FixedSizeCodec<TFrom, TTo>,
  bytes: number,
): FixedSizeCodec<TFrom, TTo> {
  let byPadding = padded.get(codec);
  if (byPadding === undefined) {
    byPadding = new Map();
    padded.set(codec, byPadding);
  }
  let made = byPadding.get(bytes) as FixedSizeCodec<TFrom, TTo> | undefined;
  if (made === undefined) {
    made = padRightCodec(codec, bytes) as FixedSizeCodec<TFrom, TTo>;
    byPadding.set(bytes, made);
  }
  return made;
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
