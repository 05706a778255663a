import { type Address, type FixedSizeCodec, getStructCodec, type Instruction } from "@solana/kit";
import { bool8, optionalPubkey, pubkey, u8, u16, withReserved } from "../codecs/primitives.ts";
import { INSTRUCTION_TAG, MAX_PROTOCOL_FEE_BPS } from "../constants.ts";
import { findProgramDataAddress, SYSTEM_PROGRAM_ADDRESS } from "../deploy/upgradeable-loader.ts";
import { findConfigPda } from "../pda.ts";
import { SDK_ERROR, SdkError } from "../sdk-error.ts";
import { readonly, type SignerInput, signer, writable } from "./account-metas.ts";

/** Decoded InitializeConfig data. */
export interface InitializeConfigData {
  tag: number;
  configBump: number;
  protocolFeeBps: number;
  oracle: Address;
  treasury: Address;
}

/** Codec of InitializeConfig data (68 bytes). */
export function getInitializeConfigDataCodec(): FixedSizeCodec<InitializeConfigData, InitializeConfigData> {
  return getStructCodec([
    ["tag", u8()],
    ["configBump", u8()],
    ["protocolFeeBps", u16()],
    ["oracle", pubkey()],
    ["treasury", pubkey()],
  ]) as FixedSizeCodec<InitializeConfigData, InitializeConfigData>;
}

/**
 * InitializeConfig (tag 0): creates the Config PDA; the admin pays rent and becomes config.admin. The program
 * accepts only its upgrade authority as admin, so the instruction also carries the program account and its
 * ProgramData account (derived here from `programAddress`: PDA of [programAddress] under the BPF Upgradeable
 * Loader).
 * @param input.admin - the program's upgrade authority (signs, pays rent)
 * @param input.protocolFeeBps - protocol fee on interest, basis points (<= 5000; Cistern uses 2000)
 */
export async function getInitializeConfigInstruction(input: {
  programAddress: Address;
  admin: SignerInput;
  oracle: Address;
  treasury: Address;
  protocolFeeBps: number;
}): Promise<Instruction> {
  if (
    !Number.isInteger(input.protocolFeeBps) ||
    input.protocolFeeBps < 0 ||
    input.protocolFeeBps > MAX_PROTOCOL_FEE_BPS
  ) {
    throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, `protocolFeeBps must be 0..${MAX_PROTOCOL_FEE_BPS}`);
  }
  const [[config, configBump], programData] = await Promise.all([
    findConfigPda(input.programAddress),
    findProgramDataAddress(input.programAddress),
  ]);
  return {
    programAddress: input.programAddress,
    accounts: [
      signer(input.admin, true),
      writable(config),
      readonly(SYSTEM_PROGRAM_ADDRESS),
      readonly(input.programAddress),
      readonly(programData),
    ],
    data: getInitializeConfigDataCodec().encode({
      tag: INSTRUCTION_TAG.InitializeConfig,
      configBump,
      protocolFeeBps: input.protocolFeeBps,
      oracle: input.oracle,
      treasury: input.treasury,
    }),
  };
}

/** Decoded UpdateConfig data (null = field not set by the mask). */
export interface UpdateConfigData {
  tag: number;
  mask: number;
  paused: boolean;
  oracle: Address | null;
  treasury: Address | null;
  admin: Address | null;
}

/** Codec of UpdateConfig data (100 bytes). */
export function getUpdateConfigDataCodec(): FixedSizeCodec<UpdateConfigData, UpdateConfigData> {
  return getStructCodec([
    ["tag", u8()],
    ["mask", u8()],
    ["paused", bool8()],
    ["oracle", optionalPubkey()],
    ["treasury", optionalPubkey()],
    ["admin", withReserved(optionalPubkey(), 1)],
  ]) as FixedSizeCodec<UpdateConfigData, UpdateConfigData>;
}

/**
 * UpdateConfig (tag 1, admin only): sets only the fields given (mask bit0 oracle, bit1 treasury,
 * bit2 paused, bit3 admin).
 */
export async function getUpdateConfigInstruction(input: {
  programAddress: Address;
  admin: SignerInput;
  oracle?: Address;
  treasury?: Address;
  paused?: boolean;
  newAdmin?: Address;
}): Promise<Instruction> {
  const mask =
    (input.oracle !== undefined ? 1 : 0) |
    (input.treasury !== undefined ? 2 : 0) |
    (input.paused !== undefined ? 4 : 0) |
    (input.newAdmin !== undefined ? 8 : 0);
  if (mask === 0)
    throw new SdkError(SDK_ERROR.INVALID_ARGUMENT, "UpdateConfig needs at least one field to set");
  const [config] = await findConfigPda(input.programAddress);
  return {
    programAddress: input.programAddress,
    accounts: [signer(input.admin, false), writable(config)],
    data: getUpdateConfigDataCodec().encode({
      tag: INSTRUCTION_TAG.UpdateConfig,
      mask,
      paused: input.paused ?? false,
      oracle: input.oracle ?? null,
      treasury: input.treasury ?? null,
      admin: input.newAdmin ?? null,
    }),
  };
}
