import { address, addressBytes, findProgramDerivedAddress } from "@cistern/sdk";
import { AccountRole, type Address, getAddressEncoder, type Instruction } from "@solana/kit";
import { requireJsonRpc } from "../chain/json-rpc.ts";
import { ADDRESS_LOOKUP_TABLE_PROGRAM } from "../chain/lookup-table-account.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, unprocessable } from "../tx-errors.ts";
import { SYSTEM_PROGRAM } from "./wire-instructions.ts";

/** SlotHashes sysvar: CreateLookupTable accepts only a slot listed there. */
const SLOT_HASHES_SYSVAR = "SysvarS1otHashes111111111111111111111111111";
/** Most addresses one update-pool request may put on a new whitelist. */
export const MAX_WHITELIST_ADDRESSES = 30;
/** Addresses per ExtendLookupTable instruction (10 x 32 bytes keeps each well inside a transaction). */
const ADDRESSES_PER_EXTEND = 10;

function u32le(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}

function u64le(value: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, true);
  return out;
}

/** The lookup table `authority` creates with `recentSlot`: PDA [authority, recentSlot u64 LE] of the ALT program. */
export async function findLookupTableAddress(
  authority: Address,
  recentSlot: bigint,
): Promise<{ table: Address; bump: number }> {
  const [table, bump] = await findProgramDerivedAddress({
    programAddress: ADDRESS_LOOKUP_TABLE_PROGRAM,
    seeds: [addressBytes(authority), u64le(recentSlot)],
  });
  return { table, bump };
}

/**
 * ALT CreateLookupTable (u32 tag 0, u64 recent slot, u8 bump): accounts table (w), authority (signer),
 * payer (w, signer), system program. `payer` funds the table's rent.
 */
export function createLookupTableInstruction(input: {
  table: Address;
  authority: Address;
  payer: Address;
  recentSlot: bigint;
  bump: number;
}): Instruction {
  return {
    programAddress: ADDRESS_LOOKUP_TABLE_PROGRAM,
    accounts: [
      { address: input.table, role: AccountRole.WRITABLE },
      { address: input.authority, role: AccountRole.READONLY_SIGNER },
      { address: input.payer, role: AccountRole.WRITABLE_SIGNER },
      { address: SYSTEM_PROGRAM, role: AccountRole.READONLY },
    ],
    data: new Uint8Array([...u32le(0), ...u64le(input.recentSlot), input.bump]),
  };
}

/**
 * ALT ExtendLookupTable (u32 tag 2, u64 count, count x 32-byte addresses): accounts table (w), authority
 * (signer), payer (w, signer; pays the extra rent), system program.
 */
export function extendLookupTableInstruction(input: {
  table: Address;
  authority: Address;
  payer: Address;
  addresses: readonly Address[];
}): Instruction {
  const enc = getAddressEncoder();
  const data = new Uint8Array(12 + 32 * input.addresses.length);
  data.set(u32le(2), 0);
  data.set(u64le(BigInt(input.addresses.length)), 4);
  input.addresses.forEach((a, i) => {
    data.set(enc.encode(a), 12 + 32 * i);
  });
  return {
    programAddress: ADDRESS_LOOKUP_TABLE_PROGRAM,
    accounts: [
      { address: input.table, role: AccountRole.WRITABLE },
      { address: input.authority, role: AccountRole.READONLY_SIGNER },
      { address: input.payer, role: AccountRole.WRITABLE_SIGNER },
      { address: SYSTEM_PROGRAM, role: AccountRole.READONLY },
    ],
    data,
  };
}

/**
 * The newest slot of the cluster's SlotHashes sysvar (u64 count, then (u64 slot, hash) newest first): the
 * only kind of slot CreateLookupTable accepts. A localnet that never updates the sysvar answers slot 0.
 */
export async function newestSlotHashesSlot(rpcUrl: string): Promise<bigint> {
  const r = await requireJsonRpc<{ value: { data: [string, string] } | null }>(rpcUrl, "getAccountInfo", [
    SLOT_HASHES_SYSVAR,
    { encoding: "base64", commitment: "confirmed", dataSlice: { offset: 0, length: 16 } },
  ]);
  const bytes = r.value ? Buffer.from(r.value.data[0], "base64") : Buffer.alloc(0);
  if (bytes.length < 16 || bytes.readBigUInt64LE(0) === 0n)
    throw unprocessable("The cluster lists no recent slot hashes; a lookup table cannot be created now");
  return bytes.readBigUInt64LE(8);
}

/** Checks a whitelist: 1..MAX_WHITELIST_ADDRESSES distinct valid addresses (400 otherwise). */
export function parseWhitelistAddresses(field: string, addresses: readonly string[]): Address[] {
  if (addresses.length === 0) throw badRequest(`${field} must list at least one address`);
  if (addresses.length > MAX_WHITELIST_ADDRESSES)
    throw badRequest(
      `${field} lists ${addresses.length} addresses; at most ${MAX_WHITELIST_ADDRESSES} per request`,
    );
  if (new Set(addresses).size !== addresses.length) throw badRequest(`${field} must not repeat an address`);
  return addresses.map((a) => {
    try {
      return address(a);
    } catch {
      throw badRequest(`${field} contains ${JSON.stringify(a)}, which is not a valid address`);
    }
  });
}

/**
 * Instructions creating a new whitelist table owned by `owner` (authority and payer): CreateLookupTable with
 * the newest SlotHashes slot, then ExtendLookupTable in chunks of 10 addresses. Refused (422) when that
 * table already exists (the same owner created one at that slot: retry in a later slot).
 */
export async function createWhitelistInstructions(
  tx: TxContext,
  owner: Address,
  addresses: readonly Address[],
): Promise<{ table: Address; recentSlot: bigint; instructions: Instruction[] }> {
  const recentSlot = await newestSlotHashesSlot(tx.app.rpc.url);
  const { table, bump } = await findLookupTableAddress(owner, recentSlot);
  const [existing] = await tx.state.getAccounts([table]);
  if (existing)
    throw unprocessable(
      `The lookup table ${table} of ${owner} for slot ${recentSlot} already exists; retry in a later slot`,
    );
  const instructions: Instruction[] = [
    createLookupTableInstruction({ table, authority: owner, payer: owner, recentSlot, bump }),
  ];
  for (let i = 0; i < addresses.length; i += ADDRESSES_PER_EXTEND) {
    instructions.push(
      extendLookupTableInstruction({
        table,
        authority: owner,
        payer: owner,
        addresses: addresses.slice(i, i + ADDRESSES_PER_EXTEND),
      }),
    );
  }
  return { table, recentSlot, instructions };
}

/**
 * Packs instructions, in order, into as few transactions as fit (each group checked with `fits`); the
 * caller sends them as a bundle when there is more than one.
 */
export function packInOrder(
  fits: (instructions: Instruction[]) => boolean,
  instructions: readonly Instruction[],
): Instruction[][] {
  const groups: Instruction[][] = [];
  let current: Instruction[] = [];
  for (const ix of instructions) {
    if (current.length > 0 && !fits([...current, ix])) {
      groups.push(current);
      current = [];
    }
    if (!fits([...current, ix])) throw unprocessable("An instruction does not fit one transaction");
    current.push(ix);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
