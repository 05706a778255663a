import { addressBytes } from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  type Instruction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";

/** A compiled, unsigned v0 transaction: its message bytes and its wire form with empty signature slots. */
export interface CompiledTransaction {
  messageBytes: Uint8Array;
  /** Base64 wire transaction (every signature slot zero). */
  wireBase64: string;
  /** Wire size in bytes. */
  size: number;
}

/** The order kit gives accounts of the same kind (Intl collation of the base58 strings, lower case first). */
const collator = new Intl.Collator("en", {
  caseFirst: "lower",
  ignorePunctuation: false,
  localeMatcher: "best fit",
  numeric: false,
  sensitivity: "variant",
  usage: "sort",
});

const SIGNER = 2;
const WRITABLE = 1;

/** Decoded blockhashes (a few recur: the latest one is used by every build of its slot). */
const blockhashBytes = new Map<string, Uint8Array>();

function hashBytes(blockhash: string): Uint8Array {
  let bytes = blockhashBytes.get(blockhash);
  if (bytes === undefined) {
    bytes = new Uint8Array(getBase58Encoder().encode(blockhash));
    if (bytes.length !== 32) throw new Error(`blockhash ${blockhash} is not 32 bytes`);
    if (blockhashBytes.size >= 64) blockhashBytes.delete(blockhashBytes.keys().next().value!);
    blockhashBytes.set(blockhash, bytes);
  }
  return bytes;
}

/** Solana's compact-u16 length prefix. */
function shortVec(n: number, out: number[]): void {
  let rest = n;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

/**
 * Compiles a v0 transaction without lookup tables, byte for byte as kit's compileTransaction does (fee payer
 * first, then signers before others, writable before read-only, then kit's collation of the addresses), but
 * with memoised address bytes: on the build path kit's compiler spent most of its time decoding base58. A message
 * that uses lookup tables is compiled by kit.
 */
export function compileV0Transaction(
  feePayer: Address,
  blockhash: string,
  lastValidBlockHeight: number,
  instructions: readonly Instruction[],
): CompiledTransaction {
  if (instructions.some((ix) => ix.accounts?.some((a) => "lookupTableAddress" in a)))
    return compiledByKit(feePayer, blockhash, lastValidBlockHeight, instructions);
  const roles = new Map<string, number>([[feePayer, SIGNER | WRITABLE]]);
  const merge = (address: string, role: number) => roles.set(address, (roles.get(address) ?? 0) | role);
  for (const ix of instructions) {
    merge(ix.programAddress, AccountRole.READONLY);
    for (const account of ix.accounts ?? []) merge(account.address, account.role);
  }
  const others = [...roles.keys()].filter((a) => a !== feePayer);
  others.sort((left, right) => {
    const l = roles.get(left)!;
    const r = roles.get(right)!;
    if ((l & SIGNER) !== (r & SIGNER)) return l & SIGNER ? -1 : 1;
    if ((l & WRITABLE) !== (r & WRITABLE)) return l & WRITABLE ? -1 : 1;
    return collator.compare(left, right);
  });
  const keys = [feePayer as string, ...others];
  if (keys.length > 256) throw new Error(`a transaction holds at most 256 accounts, not ${keys.length}`);
  const index = new Map(keys.map((k, i) => [k, i]));
  let signers = 0;
  let readonlySigners = 0;
  let readonlyOthers = 0;
  for (const k of keys) {
    const role = roles.get(k)!;
    if (role & SIGNER) {
      signers++;
      if (!(role & WRITABLE)) readonlySigners++;
    } else if (!(role & WRITABLE)) readonlyOthers++;
  }
  const head: number[] = [0x80, signers, readonlySigners, readonlyOthers];
  shortVec(keys.length, head);
  const body: number[] = [];
  shortVec(instructions.length, body);
  for (const ix of instructions) {
    body.push(index.get(ix.programAddress)!);
    const accounts = ix.accounts ?? [];
    shortVec(accounts.length, body);
    for (const a of accounts) body.push(index.get(a.address)!);
    const data = ix.data ?? new Uint8Array();
    shortVec(data.length, body);
    for (const b of data) body.push(b);
  }
  shortVec(0, body); // no lookup tables
  const message = new Uint8Array(head.length + 32 * keys.length + 32 + body.length);
  message.set(head, 0);
  for (const [i, k] of keys.entries()) message.set(addressBytes(k as Address), head.length + 32 * i);
  message.set(hashBytes(blockhash), head.length + 32 * keys.length);
  message.set(body, head.length + 32 * keys.length + 32);
  const prefix: number[] = [];
  shortVec(signers, prefix);
  const wire = new Uint8Array(prefix.length + 64 * signers + message.length);
  wire.set(prefix, 0);
  wire.set(message, prefix.length + 64 * signers);
  return { messageBytes: message, wireBase64: Buffer.from(wire).toString("base64"), size: wire.length };
}

/**
 * kit's compiler (messages with lookup tables, and the reference the tests compare with); with `table`, the
 * accounts it holds (neither signers nor invoked programs) are loaded from it.
 */
export function compiledByKit(
  feePayer: Address,
  blockhash: string,
  lastValidBlockHeight: number,
  instructions: readonly Instruction[],
  table?: { address: Address; addresses: Address[] },
): CompiledTransaction {
  const tx = compileTransaction(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(feePayer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash as Blockhash, lastValidBlockHeight: BigInt(lastValidBlockHeight) },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) =>
        table === undefined
          ? m
          : compressTransactionMessageUsingAddressLookupTables(m, { [table.address]: table.addresses }),
    ),
  );
  const wireBase64 = getBase64EncodedWireTransaction(tx);
  return {
    messageBytes: new Uint8Array(tx.messageBytes),
    wireBase64,
    size: Buffer.from(wireBase64, "base64").length,
  };
}
