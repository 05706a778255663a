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
  /** Looks again at the next get (after the table was created). */
  invalidate(): void;
}

export function createProtocolLookupTable(input: {
  rpcUrl: string;
  programId: Address;
  authority: Address;
  now?: () => number;
}): ProtocolLookupTable {
  const now = input.now ?? (() => Date.now() / 1000);
  let found: LookupTable | null = null;
  let missingSince = -Infinity;
  let pending: Promise<LookupTable | null> | undefined;
  async function read(): Promise<LookupTable | null> {
    const wanted = await getProtocolTableAddresses(input.programId);
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
    for (const { pubkey, account } of r) {
      const data = new Uint8Array(Buffer.from(account.data[0], "base64"));
      const addresses = decodeLookupTableAddresses(data) as Address[];
      if (wanted.every((a) => addresses.includes(a))) return { address: address(pubkey), addresses };
    }
    return null;
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
    invalidate() {
      found = null;
      missingSince = -Infinity;
    },
  };
}

/**
 * Creates the protocol's lookup table when the chain has none: CreateLookupTable with the oracle key as its
 * authority (so every API process finds the same table by it) and `payer` (a keeper) paying, then one
 * ExtendLookupTable with the protocol addresses, in one transaction both sign. Returns the table's address, or null
 * when one already stands.
 */
export async function ensureProtocolLookupTable(
  tx: TxContext,
  payer: KeyPairSigner,
): Promise<Address | null> {
  if ((await tx.lookupTable.get()) !== null) return null;
  const recentSlot = await newestSlotHashesSlot(tx.app.rpc.url);
  const authority = tx.oracle.address;
  const { table, bump } = await findLookupTableAddress(authority, recentSlot);
  const built = await tx.factory.build({
    feePayer: payer.address,
    groups: [
      [
        createLookupTableInstruction({ table, authority, payer: payer.address, recentSlot, bump }),
        extendLookupTableInstruction({
          table,
          authority,
          payer: payer.address,
          addresses: await getProtocolTableAddresses(tx.programId),
        }),
      ],
    ],
    options: getPriorityFeeOptions(),
    needsOracle: false,
  });
  const unsigned = getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64"));
  const signed = await partiallySignTransaction([payer.keyPair, tx.oracle.keyPair], unsigned);
  const sent = await submitAndConfirm(tx, signed, built.lastValidBlockHeight);
  if (sent.result === null) throw new Error(sent.error?.message ?? "the lookup table was not created");
  tx.lookupTable.invalidate();
  return table;
}
