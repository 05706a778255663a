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
import type { Address } from "@solana/kit";
import { requireJsonRpc } from "../chain/json-rpc.ts";
import { ADDRESS_LOOKUP_TABLE_PROGRAM, decodeLookupTableAddresses } from "../chain/lookup-table-account.ts";
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
