import { type Address, type FixedSizeCodec, getStructCodec, type ReadonlyUint8Array } from "@solana/kit";
import { bool8, i64, pubkey, u8, u16, withReserved } from "../codecs/primitives.ts";
import { ACCOUNT_SIZE, ACCOUNT_TAG } from "../constants.ts";
import { decodeAccountWith, withAccountHeader } from "./account-codec.ts";

/** Global program configuration (PDA ["config"]), 128 bytes. */
export interface ConfigAccount {
  bump: number;
  /** New loans refused when true; repay / liquidate / withdraw still work. */
  paused: boolean;
  protocolFeeBps: number;
  admin: Address;
  /** Must co-sign every take-loan / extend. */
  oracle: Address;
  /** Wallet owning the token accounts that receive protocol fees. */
  treasury: Address;
  /** Unix seconds. */
  createdAt: bigint;
  /** Unix seconds. */
  updatedAt: bigint;
}

/** Codec of the whole Config account (header included). */
let cachedConfigAccountCodec: FixedSizeCodec<ConfigAccount, ConfigAccount> | undefined;

export function getConfigAccountCodec(): FixedSizeCodec<ConfigAccount, ConfigAccount> {
  cachedConfigAccountCodec ??= buildConfigAccountCodec();
  return cachedConfigAccountCodec;
}

function buildConfigAccountCodec(): FixedSizeCodec<ConfigAccount, ConfigAccount> {
  return withAccountHeader(
    "Config",
    getStructCodec([
      ["bump", u8()],
      ["paused", bool8()],
      ["protocolFeeBps", withReserved(u16(), 2)],
      ["admin", pubkey()],
      ["oracle", pubkey()],
      ["treasury", pubkey()],
      ["createdAt", i64()],
      ["updatedAt", withReserved(i64(), 8)],
    ]) as FixedSizeCodec<ConfigAccount, ConfigAccount>,
  );
}

/** Decodes Config account data (checks size, tag and version). */
export function decodeConfigAccount(data: ReadonlyUint8Array): ConfigAccount {
  return decodeAccountWith("Config", getConfigAccountCodec(), data);
}

/** Encodes a Config account to its 128 bytes. */
export function encodeConfigAccount(account: ConfigAccount): ReadonlyUint8Array {
  return getConfigAccountCodec().encode(account);
}
