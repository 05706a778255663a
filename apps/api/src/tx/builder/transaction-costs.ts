import {
  type AccountRentLine,
  computeTransactionCosts,
  computeTransactionFee,
  type TransactionCosts,
} from "@cistern/protocol";
import {
  AccountRole,
  type Address,
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  type Instruction,
} from "@solana/kit";
import { requireJsonRpc } from "../chain/json-rpc.ts";
import type { LookupTable } from "./protocol-lookup-table.ts";
import { TOKEN_PROGRAM } from "./wire-instructions.ts";

/** SPL Token's CloseAccount: accounts 0 the account, 1 where its lamports go. */
const CLOSE_ACCOUNT = 9;

const isWritable = (role: AccountRole) =>
  role === AccountRole.WRITABLE || role === AccountRole.WRITABLE_SIGNER;
const isSigner = (role: AccountRole) =>
  role === AccountRole.READONLY_SIGNER || role === AccountRole.WRITABLE_SIGNER;

interface AccountJson {
  lamports: number;
  owner: string;
  data: [string, string];
}

/** The message's account keys in order: static, then those loaded from tables (writable ones first). */
function messageAccountKeys(messageBytes: Uint8Array, table: LookupTable | null): string[] {
  const message = getCompiledTransactionMessageDecoder().decode(messageBytes) as {
    staticAccounts: string[];
    addressTableLookups?: {
      lookupTableAddress: string;
      writableIndexes: number[];
      readonlyIndexes: number[];
    }[];
  };
  const keys = [...message.staticAccounts];
  const lookups = message.addressTableLookups ?? [];
  const from = (l: { lookupTableAddress: string }, i: number) =>
    table !== null && l.lookupTableAddress === table.address ? (table.addresses[i] ?? "") : "";
  for (const l of lookups) keys.push(...l.writableIndexes.map((i) => from(l, i)));
  for (const l of lookups) keys.push(...l.readonlyIndexes.map((i) => from(l, i)));
  return keys;
}

/** What an account the transaction opens is, from its owner program and size, when the builder did not name it. */
function describeAccount(owner: string, bytes: number, programId: string): string {
  if (owner === TOKEN_PROGRAM) return bytes === 82 ? "a token mint" : "a token account";
  if (owner === programId) return "a lending account";
  if (owner === "metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s") return "a token record";
  return "an account";
}

/**
 * What one built transaction costs the wallet paying for it, read from that transaction: its signatures and
 * compute budget give the fee; a simulation of it (the accounts its instructions write, before and after) gives
 * the accounts it opens (rent the wallet pays: every user transaction's only funded signer is its fee payer) and
 * those it closes to the wallet (SPL Token CloseAccount, top-level or inner, naming the wallet; an account its own
 * program closes, as Token Metadata a token record, to the wallet unless another account that stays open gained
 * exactly its lamports beyond what CloseAccounts sent it: a market's bid closing to its bidder). `names` are the
 * builder's words for accounts it knows ("the loan"). Null when the simulation fails (the transaction would too).
 */
export async function measureTransactionCosts(input: {
  rpcUrl: string;
  programId: string;
  feePayer: Address;
  /** Every instruction of the transaction, budget and tip included. */
  instructions: readonly Instruction[];
  messageBytes: Uint8Array;
  wireBase64: string;
  table: LookupTable | null;
  computeUnitLimit: number;
  microLamportsPerComputeUnit: bigint;
  tipLamports: bigint;
  names?: Record<string, string>;
}): Promise<TransactionCosts | null> {
  const signers = new Set<string>([input.feePayer]);
  const writable = new Set<string>();
  for (const ix of input.instructions)
    for (const a of ix.accounts ?? []) {
      if (isSigner(a.role)) signers.add(a.address);
      if (isWritable(a.role) && a.address !== input.feePayer) writable.add(a.address);
    }
  const addresses = [...writable];
  const [pre, sim] = await Promise.all([
    requireJsonRpc<{ value: (AccountJson | null)[] }>(input.rpcUrl, "getMultipleAccounts", [
      addresses,
      { encoding: "base64", commitment: "confirmed", dataSlice: { offset: 0, length: 0 } },
    ]),
    requireJsonRpc<{
      value: {
        err: unknown;
        accounts: (AccountJson | null)[] | null;
        innerInstructions:
          | { instructions: { programIdIndex: number; accounts: number[]; data: string }[] }[]
          | null;
      };
    }>(input.rpcUrl, "simulateTransaction", [
      input.wireBase64,
      {
        encoding: "base64",
        sigVerify: false,
        replaceRecentBlockhash: true,
        commitment: "confirmed",
        innerInstructions: true,
        accounts: { addresses, encoding: "base64" },
      },
    ]),
  ]);
  if (sim.value.err !== null && sim.value.err !== undefined) return null;
  const post = sim.value.accounts ?? [];
  // where SPL Token's CloseAccount sends each account's lamports, top-level and inner
  const closedTo = new Map<string, string>();
  for (const ix of input.instructions)
    if (ix.programAddress === TOKEN_PROGRAM && ix.data?.[0] === CLOSE_ACCOUNT && ix.accounts?.length)
      closedTo.set(ix.accounts[0]!.address, ix.accounts[1]!.address);
  const keys = messageAccountKeys(input.messageBytes, input.table);
  const base58 = getBase58Encoder();
  for (const group of sim.value.innerInstructions ?? [])
    for (const inner of group.instructions) {
      if (keys[inner.programIdIndex] !== TOKEN_PROGRAM) continue;
      const data = base58.encode(inner.data);
      if (data[0] === CLOSE_ACCOUNT && inner.accounts.length >= 2)
        closedTo.set(keys[inner.accounts[0]!]!, keys[inner.accounts[1]!]!);
    }
  const closed = (i: number) => pre.value[i] != null && (post[i] == null || post[i]!.lamports === 0);
  // What each account that stays open (the wallet aside) gained beyond the CloseAccounts naming it: the rent of
  // accounts a program closed itself (no CloseAccount says where), as a market its bid or listing to their owner.
  const residual = new Map<string, bigint>();
  addresses.forEach((account, i) => {
    const before = pre.value[i] ?? null;
    const after = post[i] ?? null;
    if (before === null || after === null || closed(i)) return;
    let gain = BigInt(after.lamports - before.lamports);
    addresses.forEach((other, j) => {
      if (closed(j) && closedTo.get(other) === account) gain -= BigInt(pre.value[j]!.lamports);
    });
    if (gain > 0n) residual.set(account, gain);
  });
  /** Whether a program's own closure of `lamports` went to another account: one that gained exactly that, or with one more. */
  const takenByOther = (lamports: bigint, others: bigint[]) => {
    for (const [account, gain] of residual)
      if (gain === lamports || others.some((o) => o + lamports === gain)) {
        residual.set(account, gain - lamports);
        return true;
      }
    return false;
  };
  const directlyClosed = addresses.flatMap((a, i) =>
    closed(i) && !closedTo.has(a) ? [BigInt(pre.value[i]!.lamports)] : [],
  );
  const rent: AccountRentLine[] = [];
  const rentBack: AccountRentLine[] = [];
  addresses.forEach((account, i) => {
    const before = pre.value[i] ?? null;
    const after = post[i] ?? null;
    const label = (bytes: number, owner: string) =>
      input.names?.[account] ?? describeAccount(owner, bytes, input.programId);
    if (before === null && after !== null && after.lamports > 0) {
      const bytes = Buffer.from(after.data[0], "base64").length;
      rent.push({ account, label: label(bytes, after.owner), bytes, lamports: BigInt(after.lamports) });
    } else if (closed(i)) {
      const lamports = BigInt(before!.lamports);
      const to = closedTo.get(account);
      // the other accounts programs closed themselves (this one left out once)
      const others = [...directlyClosed];
      others.splice(others.indexOf(lamports), 1);
      // closed by CloseAccount: to whom it names; closed by its program: to the wallet unless another account took it
      const toWallet = to !== undefined ? to === input.feePayer : !takenByOther(lamports, others);
      if (toWallet) rentBack.push({ account, label: label(0, before!.owner), bytes: 0, lamports });
    }
  });
  const fee = computeTransactionFee({
    signatures: signers.size,
    computeUnitLimit: input.computeUnitLimit,
    microLamportsPerComputeUnit: input.microLamportsPerComputeUnit,
  });
  return computeTransactionCosts({ ...fee, tipLamports: input.tipLamports, rent, rentBack });
}
