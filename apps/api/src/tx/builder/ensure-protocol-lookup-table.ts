import { getPriorityFeeOptions } from "@cistern/protocol";
import {
  type Address,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { requireJsonRpc } from "../chain/json-rpc.ts";
import { submitAndConfirm } from "../sender/sender.ts";
import type { TxContext } from "../tx-context.ts";
import {
  createLookupTableInstruction,
  extendLookupTableInstruction,
  findLookupTableAddress,
  newestSlotHashesSlot,
} from "./whitelist-builder.ts";

/** Addresses one ExtendLookupTable carries in a transaction that also creates the table (both keys signing). */
const ADDRESSES_PER_EXTENSION = 20;

/**
 * Makes the protocol's lookup table hold every address it should (ProtocolLookupTable.wanted): creates it when the
 * chain has none (CreateLookupTable with the oracle key as its authority, so every API process finds the same table
 * by it, `payer` (a keeper) paying, with the first addresses), and extends it with what it lacks (a lending venue
 * configured since, or the rest of a long list), 20 addresses a transaction, payer and oracle signing. Returns the
 * table's address once a transaction can load the new addresses (the slot after the last extension landed), or null
 * when the table already held everything.
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
  await waitForSlotAfter(tx.app.rpc.url, await confirmedSlot(tx.app.rpc.url));
  tx.lookupTable.invalidate();
  return table;
}

function confirmedSlot(rpcUrl: string): Promise<number> {
  return requireJsonRpc<number>(rpcUrl, "getSlot", [{ commitment: "confirmed" }]);
}

/** Most a chain takes to move one slot past `slot` before the wait gives up (ms). */
const NEXT_SLOT_TIMEOUT_MS = 30_000;
const SLOT_POLL_MS = 50;

/** Resolves once the chain's confirmed slot is past `slot` (addresses extended at `slot` load from the next one). */
async function waitForSlotAfter(rpcUrl: string, slot: number): Promise<void> {
  const deadline = Date.now() + NEXT_SLOT_TIMEOUT_MS;
  while ((await confirmedSlot(rpcUrl)) <= slot) {
    if (Date.now() > deadline) throw new Error(`the chain did not pass slot ${slot}`);
    await new Promise((r) => setTimeout(r, SLOT_POLL_MS));
  }
}
