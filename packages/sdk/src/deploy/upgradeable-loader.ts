import {
  type AccountMeta,
  AccountRole,
  type AccountSignerMeta,
  type Address,
  type Instruction,
  type TransactionSigner,
} from "@solana/kit";
import { address, addressBytes } from "../address-text.ts";
import { findProgramDerivedAddress } from "../find-pda.ts";

/** The BPF Upgradeable Loader (loader-v3) program address. */
export const BPF_LOADER_UPGRADEABLE_ADDRESS = address("BPFLoaderUpgradeab1e11111111111111111111111");
/** System program address. */
export const SYSTEM_PROGRAM_ADDRESS = address("11111111111111111111111111111111");
/** Rent sysvar address. */
export const SYSVAR_RENT_ADDRESS = address("SysvarRent111111111111111111111111111111111");
/** Clock sysvar address. */
export const SYSVAR_CLOCK_ADDRESS = address("SysvarC1ock11111111111111111111111111111111");

/** Bytes of a Buffer account before the program bytes: u32 tag + Option<Pubkey> (1 + 32). */
export const BUFFER_METADATA_SIZE = 37;
/** Size of a Program account: u32 tag + programdata address. */
export const PROGRAM_ACCOUNT_SIZE = 36;
/** Bytes of a ProgramData account before the program bytes: u32 tag + u64 slot + Option<Pubkey>. */
export const PROGRAMDATA_METADATA_SIZE = 45;

/** bincode enum tags of UpgradeableLoaderInstruction. */
const TAG_INITIALIZE_BUFFER = 0;
const TAG_WRITE = 1;
const TAG_DEPLOY_WITH_MAX_DATA_LEN = 2;
const TAG_UPGRADE = 3;
const TAG_SET_AUTHORITY = 4;
const TAG_CLOSE = 5;
const TAG_EXTEND_PROGRAM = 6;

function readonly(addr: Address): AccountMeta {
  return { address: addr, role: AccountRole.READONLY };
}
function writable(addr: Address): AccountMeta {
  return { address: addr, role: AccountRole.WRITABLE };
}
function signerMeta(signer: TransactionSigner, isWritable: boolean): AccountSignerMeta {
  return {
    address: signer.address,
    role: isWritable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER,
    signer,
  };
}

function tagOnly(tag: number, extraBytes: number): { bytes: Uint8Array; view: DataView } {
  const bytes = new Uint8Array(4 + extraBytes);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, tag, true);
  return { bytes, view };
}

/**
 * Derives the ProgramData account of an upgradeable program: PDA of [programAddress] under the loader.
 * @param programAddress - the program account address
 */
export async function findProgramDataAddress(programAddress: Address): Promise<Address> {
  const [pda] = await findProgramDerivedAddress({
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    seeds: [addressBytes(programAddress)],
  });
  return pda;
}

/**
 * InitializeBuffer: marks a loader-owned account as a Buffer with the given write authority.
 * @param input.buffer - the buffer account (already allocated, owned by the loader)
 * @param input.authority - the address allowed to write and deploy the buffer
 */
export function getInitializeBufferInstruction(input: { buffer: Address; authority: Address }): Instruction {
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [writable(input.buffer), readonly(input.authority)],
    data: tagOnly(TAG_INITIALIZE_BUFFER, 0).bytes,
  };
}

/**
 * Write: copies bytes into a Buffer at an offset counted from the start of the program bytes.
 * Data: u32 tag, u32 offset, u64 length, bytes (bincode).
 * @param input.offsetBytes - offset inside the program bytes (not counting the buffer header)
 */
export function getWriteInstruction(input: {
  buffer: Address;
  authority: TransactionSigner;
  offsetBytes: number;
  bytes: Uint8Array;
}): Instruction {
  if (!Number.isInteger(input.offsetBytes) || input.offsetBytes < 0 || input.offsetBytes > 0xffffffff) {
    throw new RangeError(`write offset out of range: ${input.offsetBytes}`);
  }
  const { bytes, view } = tagOnly(TAG_WRITE, 4 + 8 + input.bytes.length);
  view.setUint32(4, input.offsetBytes, true);
  view.setBigUint64(8, BigInt(input.bytes.length), true);
  bytes.set(input.bytes, 16);
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [writable(input.buffer), signerMeta(input.authority, false)],
    data: bytes,
  };
}

/**
 * DeployWithMaxDataLen: turns a written Buffer into an executable program. The program account must
 * already exist (36 bytes, owned by the loader, rent exempt); ProgramData is created by the loader.
 * @param input.maxDataLenBytes - the largest program the ProgramData account will ever hold
 */
export function getDeployWithMaxDataLenInstruction(input: {
  payer: TransactionSigner;
  programData: Address;
  program: Address;
  buffer: Address;
  authority: TransactionSigner;
  maxDataLenBytes: bigint;
}): Instruction {
  const { bytes, view } = tagOnly(TAG_DEPLOY_WITH_MAX_DATA_LEN, 8);
  view.setBigUint64(4, input.maxDataLenBytes, true);
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [
      signerMeta(input.payer, true),
      writable(input.programData),
      writable(input.program),
      writable(input.buffer),
      readonly(SYSVAR_RENT_ADDRESS),
      readonly(SYSVAR_CLOCK_ADDRESS),
      readonly(SYSTEM_PROGRAM_ADDRESS),
      signerMeta(input.authority, false),
    ],
    data: bytes,
  };
}

/**
 * Upgrade: replaces a deployed program's bytes with a Buffer's; the buffer's lamports go to `spill`.
 */
export function getUpgradeInstruction(input: {
  programData: Address;
  program: Address;
  buffer: Address;
  spill: Address;
  authority: TransactionSigner;
}): Instruction {
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [
      writable(input.programData),
      writable(input.program),
      writable(input.buffer),
      writable(input.spill),
      readonly(SYSVAR_RENT_ADDRESS),
      readonly(SYSVAR_CLOCK_ADDRESS),
      signerMeta(input.authority, false),
    ],
    data: tagOnly(TAG_UPGRADE, 0).bytes,
  };
}

/**
 * ExtendProgram (tag 6): grows a ProgramData account (payer funds the rent) so a larger program can be
 * upgraded into it.
 * @param input.additionalBytes - bytes to add (u32)
 */
export function getExtendProgramInstruction(input: {
  programData: Address;
  program: Address;
  payer: TransactionSigner;
  additionalBytes: number;
}): Instruction {
  const { bytes, view } = tagOnly(TAG_EXTEND_PROGRAM, 4);
  view.setUint32(4, checkedU32(input.additionalBytes), true);
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [
      writable(input.programData),
      writable(input.program),
      readonly(SYSTEM_PROGRAM_ADDRESS),
      signerMeta(input.payer, true),
    ],
    data: bytes,
  };
}

function checkedU32(value: number): number {
  if (!Number.isInteger(value) || value <= 0 || value > 0xffffffff) {
    throw new RangeError(`additionalBytes out of range: ${value}`);
  }
  return value;
}

/**
 * SetAuthority (tag 4) of a ProgramData (or Buffer) account: hands the upgrade authority to `newAuthority`,
 * or, with `newAuthority: null`, removes it for good (the program becomes immutable).
 * @param input.programData - the ProgramData (or Buffer) account
 * @param input.authority - the current authority (signs)
 * @param input.newAuthority - the next authority, or null to make the program immutable
 */
export function getSetUpgradeAuthorityInstruction(input: {
  programData: Address;
  authority: TransactionSigner;
  newAuthority: Address | null;
}): Instruction {
  const accounts: AccountMeta[] = [writable(input.programData), signerMeta(input.authority, false)];
  if (input.newAuthority !== null) accounts.push(readonly(input.newAuthority));
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts,
    data: tagOnly(TAG_SET_AUTHORITY, 0).bytes,
  };
}

/**
 * Close (tag 5) of a Buffer: returns its lamports to `recipient`; the buffer authority signs.
 */
export function getCloseBufferInstruction(input: {
  buffer: Address;
  recipient: Address;
  authority: TransactionSigner;
}): Instruction {
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [writable(input.buffer), writable(input.recipient), signerMeta(input.authority, false)],
    data: tagOnly(TAG_CLOSE, 0).bytes,
  };
}
