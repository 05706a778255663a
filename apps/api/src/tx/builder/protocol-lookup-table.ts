import { getPriorityFeeOptions } from "@cistern/protocol";
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  address,
  BUBBLEGUM_PROGRAM_ADDRESS,
  findConfigPda,
  findVenuesPda,
  MPL_CORE_PROGRAM_ADDRESS,
  SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS,
  SPL_NOOP_PROGRAM_ADDRESS,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
  TOKEN_METADATA_PROGRAM_ADDRESS,
} from "@cistern/sdk";
import {
  type Address,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { decodeLookupTableAddresses } from "../calculator/collateral.ts";
import { requireJsonRpc } from "../chain/json-rpc.ts";
import { submitAndConfirm } from "../sender/sender.ts";
import type { TxContext } from "../tx-context.ts";
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  createLookupTableInstruction,
  extendLookupTableInstruction,
  findLookupTableAddress,
  newestSlotHashesSlot,
} from "./whitelist-builder.ts";
import { NATIVE_MINT, SYSTEM_PROGRAM, TOKEN_PROGRAM } from "./wire-instructions.ts";

/** An address lookup table and the addresses it holds. */
export interface LookupTable {
  address: Address;
  addresses: Address[];
}

/** Where the authority sits in a lookup table account (u32 type, u64 deactivation slot, u64 last extended slot, u8 start index, Option<Pubkey>). */
const AUTHORITY_OFFSET = 22;
/** Seconds a missing table is looked for again (the keeper creates it at its start). */
const MISSING_RETRY_SECONDS = 30;

/**
 * The accounts the loan transactions of every standard repeat: the programs and sysvars a custody names (Token
 * Metadata, Token Auth Rules, the instructions sysvar, Core), the System and Token programs, the associated token
 * program, wrapped SOL, the lending program's config and venues. Loaded from the protocol's lookup table, each costs
 * a transaction 1 byte instead of 32: what lets a pNFT take-loan with a whitelist, a venue pull and SOL wrapped fit
 * the 1,232-byte packet.
 */
export async function getProtocolTableAddresses(programId: Address): Promise<Address[]> {
  const [[config], [venues]] = await Promise.all([findConfigPda(programId), findVenuesPda(programId)]);
  return [
    TOKEN_METADATA_PROGRAM_ADDRESS,
    TOKEN_AUTH_RULES_PROGRAM_ADDRESS,
    SYSVAR_INSTRUCTIONS_ADDRESS,
    MPL_CORE_PROGRAM_ADDRESS,
    BUBBLEGUM_PROGRAM_ADDRESS,
    SPL_ACCOUNT_COMPRESSION_PROGRAM_ADDRESS,
    SPL_NOOP_PROGRAM_ADDRESS,
    SYSTEM_PROGRAM,
    TOKEN_PROGRAM,
    ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
    NATIVE_MINT,
    config,
    venues,
  ];
}

/** Reads the protocol's lookup table: the one whose authority is the oracle key and that holds every protocol address. */
export interface ProtocolLookupTable {
  /** The table, or null while none is on the chain (transactions then load nothing). */
  get(): Promise<LookupTable | null>;
  /** Every address the table should hold: the protocol's (getProtocolTableAddresses) and the lending venue's. */
  wanted(): Promise<Address[]>;
  /** Looks again at the next get (after the table was created or extended). */
  invalidate(): void;
}

export function createProtocolLookupTable(input: {
  rpcUrl: string;
  programId: Address;
  authority: Address;
  /** The lending venue's accounts its pulls repeat (marginfi's program, group, banks, vaults, oracles). */
  venueAddresses?: () => Promise<Address[]>;
  now?: () => number;
}): ProtocolLookupTable {
  const now = input.now ?? (() => Date.now() / 1000);
  let found: LookupTable | null = null;
  let missingSince = -Infinity;
  let pending: Promise<LookupTable | null> | undefined;
  async function wanted(): Promise<Address[]> {
    const venue = input.venueAddresses ? await input.venueAddresses() : [];
    return [...new Set([...(await getProtocolTableAddresses(input.programId)), ...venue])];
  }
  /** Of the oracle's tables holding every protocol address, the one holding the most of the venue's too. */
  async function read(): Promise<LookupTable | null> {
    const base = await getProtocolTableAddresses(input.programId);
    const all = await wanted();
    const r = await requireJsonRpc<{ pubkey: string; account: { data: [string, string] } }[]>(
      input.rpcUrl,
      "getProgramAccounts",
      [
        ADDRESS_LOOKUP_TABLE_PROGRAM,
        {
          encoding: "base64",
          commitment: "confirmed",
          // the key of Some(authority) (its base58 text is the address itself)
          filters: [{ memcmp: { offset: AUTHORITY_OFFSET, bytes: input.authority } }],
        },
      ],
    );
    let best: { table: LookupTable; held: number } | null = null;
    for (const { pubkey, account } of r) {
      const data = new Uint8Array(Buffer.from(account.data[0], "base64"));
      const addresses = decodeLookupTableAddresses(data) as Address[];
      if (!base.every((a) => addresses.includes(a))) continue;
      const held = all.filter((a) => addresses.includes(a)).length;
      if (best === null || held > best.held) best = { table: { address: address(pubkey), addresses }, held };
    }
    return best?.table ?? null;
  }
  return {
    async get() {
      if (found !== null) return found;
      if (now() - missingSince < MISSING_RETRY_SECONDS) return null;
      pending ??= read()
        .catch(() => null)
        .finally(() => {
          pending = undefined;
        });
      found = await pending;
      if (found === null) missingSince = now();
      return found;
    },
    wanted,
    invalidate() {
      found = null;
      missingSince = -Infinity;
    },
  };
}

/** Addresses one ExtendLookupTable carries in a transaction that also creates the table (both keys signing). */
const ADDRESSES_PER_EXTENSION = 20;

/**
 * Makes the protocol's lookup table hold every address it should (ProtocolLookupTable.wanted): creates it when the
 * chain has none (CreateLookupTable with the oracle key as its authority, so every API process finds the same table
 * by it, `payer` (a keeper) paying, with the first addresses), and extends it with what it lacks (a lending venue
 * configured since, or the rest of a long list), 20 addresses a transaction, payer and oracle signing. Returns the
 * table's address, or null when the table already held everything.
 */
export async function ensureProtocolLookupTable(
  tx: TxContext,
  payer: KeyPairSigner,
): Promise<Address | null> {
  const wanted = await tx.lookupTable.wanted();
  const standing = await tx.lookupTable.get();
  const missing = wanted.filter((a) => !standing?.addresses.includes(a));
  if (missing.length === 0) return null;
  const authority = tx.oracle.address;
  let table = standing?.address;
  let create: Instruction[] = [];
  if (table === undefined) {
    const recentSlot = await newestSlotHashesSlot(tx.app.rpc.url);
    const found = await findLookupTableAddress(authority, recentSlot);
    table = found.table;
    create = [
      createLookupTableInstruction({ table, authority, payer: payer.address, recentSlot, bump: found.bump }),
    ];
  }
  for (let at = 0; at < missing.length; at += ADDRESSES_PER_EXTENSION) {
    const addresses = missing.slice(at, at + ADDRESSES_PER_EXTENSION);
    const built = await tx.factory.build({
      feePayer: payer.address,
      groups: [
        [
          ...(at === 0 ? create : []),
          extendLookupTableInstruction({ table, authority, payer: payer.address, addresses }),
        ],
      ],
      options: getPriorityFeeOptions(),
      needsOracle: false,
    });
    const unsigned = getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64"));
    const signed = await partiallySignTransaction([payer.keyPair, tx.oracle.keyPair], unsigned);
    const sent = await submitAndConfirm(tx, signed, built.lastValidBlockHeight);
    if (sent.result === null)
      throw new Error(sent.error?.message ?? "the lookup table was not created or extended");
  }
  tx.lookupTable.invalidate();
  return table;
}
