import { createHash } from "node:crypto";
import { FailedTransactionMetadata } from "litesvm/dist/internal";
import { encodeAccount, parseAccountConfig } from "../account-encoding.ts";
import { decodeAddress, decodeBase58, encodeBase58 } from "../base58.ts";
import type { Chain } from "../chain.ts";
import { invalidParams, LocalnetRpcError, RPC_ERROR } from "../errors.ts";
import type { TxRecord } from "../history.ts";
import { parseInstruction } from "../instruction-parse.ts";
import { buildSignedTransaction } from "../tx-builder.ts";
import { fieldlessCode, TX_ERROR_CODE, toTransactionErrorJson } from "../tx-error.ts";
import { parseWireTransaction, type WireTransaction } from "../wire.ts";
import { type RpcContext, type RpcHandler, withContext } from "./context.ts";
import { asParams, config, str, strArray, uint } from "./params.ts";

const MAX_TX_BYTES = 1232;
/** Most transactions of one bundle (Jito's limit). */
const MAX_BUNDLE_TRANSACTIONS = 5;
const MAX_BASE58_CHARS = 1683;
const MAX_BASE64_CHARS = 1644;
const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes a wire transaction as sendTransaction/simulateTransaction receive it. */
export function decodeTransactionParam(encoded: string, encodingRaw: unknown): WireTransaction {
  const encoding = encodingRaw ?? "base58";
  const T = "solana_transaction::versioned::VersionedTransaction";
  let bytes: Uint8Array;
  if (encoding === "base58") {
    if (encoded.length > MAX_BASE58_CHARS)
      throw invalidParams(
        `base58 encoded ${T} too large: ${encoded.length} bytes (max: encoded/raw ${MAX_BASE58_CHARS}/${MAX_TX_BYTES})`,
      );
    try {
      bytes = decodeBase58(encoded);
    } catch {
      throw invalidParams("invalid base58 encoding: InvalidCharacter");
    }
  } else if (encoding === "base64") {
    if (encoded.length > MAX_BASE64_CHARS)
      throw invalidParams(
        `base64 encoded ${T} too large: ${encoded.length} bytes (max: encoded/raw ${MAX_BASE64_CHARS}/${MAX_TX_BYTES})`,
      );
    if (!BASE64_RE.test(encoded) || encoded.length % 4 === 1)
      throw invalidParams("invalid base64 encoding: InvalidByte");
    bytes = Buffer.from(encoded, "base64");
  } else
    throw invalidParams(
      `Invalid params: unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`,
    );
  if (bytes.length > MAX_TX_BYTES)
    throw invalidParams(`decoded ${T} too large: ${bytes.length} bytes (max: ${MAX_TX_BYTES} bytes)`);
  const tx = parseWireTransaction(bytes);
  if (encoding === "base64") tx.base64 = encoded;
  return tx;
}

const MEMO_PROGRAMS = new Set([
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
]);

/** agave's `memo` of getSignaturesForAddress: "[len] text" per Memo instruction, joined by "; ". */
function memoOf(r: TxRecord): string | null {
  const tx = parseWireTransaction(Buffer.from(r.tx, "base64"));
  const memos: string[] = [];
  for (const ix of tx.instructions) {
    if (!MEMO_PROGRAMS.has(r.accountKeys[ix.programIdIndex] ?? "")) continue;
    memos.push(`[${ix.data.length}] ${Buffer.from(ix.data).toString("utf8")}`);
  }
  return memos.length > 0 ? memos.join("; ") : null;
}

function statusOf(r: TxRecord, chain: Chain) {
  const { status, confirmations } = chain.commitmentOf(r.slot);
  return {
    slot: r.slot,
    confirmations,
    err: r.err,
    status: r.err ? { Err: r.err } : { Ok: null },
    confirmationStatus: status,
  };
}

export function transactionJson(r: TxRecord, encoding: string) {
  const bytes = Buffer.from(r.tx, "base64");
  if (encoding === "base64") return [r.tx, "base64"];
  if (encoding === "base58") return [encodeBase58(bytes), "base58"];
  const tx = parseWireTransaction(bytes);
  const staticKeys = tx.staticKeys.map(encodeBase58);
  const message: Record<string, unknown> = {
    header: {
      numReadonlySignedAccounts: tx.numReadonlySigned,
      numReadonlyUnsignedAccounts: tx.numReadonlyUnsigned,
      numRequiredSignatures: tx.numRequiredSignatures,
    },
    recentBlockhash: encodeBase58(tx.recentBlockhash),
  };
  if (encoding === "jsonParsed") {
    message.accountKeys = r.accountKeys.map((pubkey, i) => ({
      pubkey,
      signer: i < tx.numRequiredSignatures,
      writable: r.writable[i],
      source: i < staticKeys.length ? "transaction" : "lookupTable",
    }));
    message.instructions = tx.instructions.map((ix) => {
      const programId = r.accountKeys[ix.programIdIndex]!;
      const accounts = ix.accounts.map((a) => r.accountKeys[a]!);
      return (
        parseInstruction(programId, ix.data, accounts) ?? {
          programId,
          accounts,
          data: encodeBase58(ix.data),
          stackHeight: null,
        }
      );
    });
  } else {
    message.accountKeys = staticKeys;
    message.instructions = tx.instructions.map((ix) => ({
      programIdIndex: ix.programIdIndex,
      accounts: ix.accounts,
      data: encodeBase58(ix.data),
      stackHeight: null,
    }));
  }
  if (tx.version === 0)
    message.addressTableLookups = tx.lookups.map((l) => ({
      accountKey: encodeBase58(l.table),
      writableIndexes: l.writableIndexes,
      readonlyIndexes: l.readonlyIndexes,
    }));
  return { message, signatures: tx.signatures.map(encodeBase58) };
}

export function metaJson(r: TxRecord, encoding: string) {
  const inner =
    encoding === "jsonParsed"
      ? r.innerInstructions.map((g) => ({
          index: g.index,
          instructions: g.instructions.map((ix) => {
            const programId = r.accountKeys[ix.programIdIndex]!;
            const accounts = ix.accounts.map((a) => r.accountKeys[a]!);
            const parsed = parseInstruction(programId, decodeBase58(ix.data), accounts);
            return parsed
              ? { ...parsed, stackHeight: ix.stackHeight }
              : { programId, accounts, data: ix.data, stackHeight: ix.stackHeight };
          }),
        }))
      : r.innerInstructions;
  return {
    computeUnitsConsumed: r.computeUnits,
    err: r.err,
    fee: r.feeLamports,
    innerInstructions: inner,
    loadedAddresses: r.loadedAddresses,
    logMessages: r.logs,
    postBalances: r.postBalances,
    postTokenBalances: r.postTokenBalances,
    preBalances: r.preBalances,
    preTokenBalances: r.preTokenBalances,
    returnData: r.returnData ?? undefined,
    rewards: [],
    status: r.err ? { Err: r.err } : { Ok: null },
  };
}

function simulate(params: unknown[], ctx: RpcContext) {
  const p = asParams(params);
  const c = config(p, 1);
  const tx = decodeTransactionParam(str(p, 0, "transaction"), c.encoding);
  const sigVerify = c.sigVerify === true;
  const replace = c.replaceRecentBlockhash === true;
  if (sigVerify && replace) throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
  const chain = ctx.chain;
  const empty = {
    accounts: null,
    innerInstructions: null,
    logs: [],
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed: 0,
  };
  if (!replace && !chain.isLifetimeValid(tx)) return withContext(ctx, { ...empty, err: "BlockhashNotFound" });
  const res = chain.simulateRaw(tx, sigVerify);
  if (
    res instanceof FailedTransactionMetadata &&
    fieldlessCode(res) === TX_ERROR_CODE.SIGNATURE_FAILURE &&
    sigVerify
  )
    throw new LocalnetRpcError(
      RPC_ERROR.TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
      "Transaction signature verification failure",
    );
  const failed = res instanceof FailedTransactionMetadata;
  const meta = res.meta();
  let accounts: unknown = null;
  const ac = c.accounts as { addresses?: unknown; encoding?: unknown } | undefined;
  if (ac && typeof ac === "object") {
    const addresses = strArray([ac.addresses], 0, "accounts.addresses", 256);
    const cfg = parseAccountConfig({ encoding: ac.encoding ?? "base64" });
    const post = new Map<string, ReturnType<typeof chain.svm.getAccount>>();
    if (!failed) for (const e of res.postAccounts()) post.set(encodeBase58(e.address), e.account());
    accounts = addresses.map((a) => {
      const acct = post.get(a) ?? chain.svm.getAccount(decodeAddress(a));
      return acct && !(acct.lamports() === 0n && acct.data().length === 0)
        ? encodeAccount(chain.svm, acct, cfg)
        : null;
    });
  }
  let innerInstructions: unknown = null;
  if (c.innerInstructions === true)
    innerInstructions = meta.innerInstructions().flatMap((list, index) =>
      list.length === 0
        ? []
        : [
            {
              index,
              instructions: list.map((inner) => ({
                programIdIndex: inner.instruction().programIdIndex(),
                accounts: Array.from(inner.instruction().accounts()),
                data: encodeBase58(inner.instruction().data()),
                stackHeight: inner.stackHeight(),
              })),
            },
          ],
    );
  const rd = meta.returnData();
  return withContext(ctx, {
    accounts,
    err: failed ? toTransactionErrorJson(res) : null,
    innerInstructions,
    logs: meta.logs(),
    replacementBlockhash: replace ? chain.latestBlockhash() : null,
    returnData:
      rd.data().length > 0
        ? {
            programId: encodeBase58(rd.programId()),
            data: [Buffer.from(rd.data()).toString("base64"), "base64"],
          }
        : null,
    unitsConsumed: Number(meta.computeUnitsConsumed()),
  });
}

let airdropCounter = 0;

/** Sends `lamports` from the faucet keypair as a real, signed system transfer. */
export function airdrop(ctx: RpcContext, to: string, lamports: bigint): Promise<string> | string {
  const chain = ctx.chain;
  const toKey = decodeAddress(to);
  const data = new Uint8Array(12);
  const dv = new DataView(data.buffer);
  dv.setUint32(0, 2, true);
  dv.setBigUint64(4, lamports, true);
  const transfer = {
    programId: new Uint8Array(32),
    keys: [
      { pubkey: ctx.faucet.publicKey, isSigner: true, isWritable: true },
      { pubkey: toKey, isSigner: false, isWritable: true },
    ],
    data,
  };
  const blockhash = decodeBase58(chain.latestBlockhash().blockhash);
  let bytes = buildSignedTransaction(ctx.faucet, [transfer], blockhash);
  let tx = parseWireTransaction(bytes);
  if (chain.isKnownSignature(encodeBase58(tx.signatures[0]!))) {
    // Same amount to the same wallet within one slot: add a memo so the signature differs.
    const memo = {
      programId: decodeAddress("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
      keys: [],
      data: Buffer.from(`airdrop ${++airdropCounter} ${Date.now()}`),
    };
    bytes = buildSignedTransaction(ctx.faucet, [transfer, memo], blockhash);
    tx = parseWireTransaction(bytes);
  }
  return chain.submit(tx, false);
}

/** Transaction send, simulate and history methods. */
/** agave's refusal of a v0 transaction to a client that did not say it supports it. */
export function checkTransactionVersion(r: TxRecord, maxVersion: unknown): void {
  if (r.version === 0 && (maxVersion === undefined || maxVersion === null))
    throw new LocalnetRpcError(
      RPC_ERROR.UNSUPPORTED_TRANSACTION_VERSION,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
}

export const transactionMethods: Record<string, RpcHandler> = {
  sendTransaction: (params, ctx) => {
    const p = asParams(params);
    const c = config(p, 1);
    const tx = decodeTransactionParam(str(p, 0, "transaction"), c.encoding);
    return ctx.chain.submit(tx, c.skipPreflight === true);
  },
  simulateTransaction: simulate,
  /**
   * Jito's block-engine method: up to 5 signed transactions executed in order, all or none. Answers the bundle
   * id (SHA-256 of the signatures, hex) once they are durable; a failing bundle is an error and changes nothing.
   */
  sendBundle: async (params, ctx) => {
    const p = asParams(params);
    const list = strArray(p, 0, "transactions", MAX_BUNDLE_TRANSACTIONS);
    if (list.length === 0) throw invalidParams("Invalid params: a bundle holds 1 to 5 transactions");
    const encoding = config(p, 1).encoding ?? "base58";
    const txs = list.map((t) => decodeTransactionParam(t, encoding));
    const signatures = await ctx.chain.submitBundle(txs);
    return createHash("sha256").update(signatures.join("")).digest("hex");
  },
  requestAirdrop: (params, ctx) => {
    const p = asParams(params);
    const to = str(p, 0, "address");
    const lamports = uint(p, 1, "lamports");
    if (lamports === 0) throw invalidParams("Invalid params: lamports must be positive");
    return airdrop(ctx, to, BigInt(lamports));
  },
  getSignatureStatuses: (params, ctx) => {
    const p = asParams(params);
    const sigs = strArray(p, 0, "signatures", 256);
    return withContext(
      ctx,
      sigs.map((s) => {
        const r = ctx.chain.history.get(s);
        return r ? statusOf(r, ctx.chain) : null;
      }),
    );
  },
  getTransaction: (params, ctx) => {
    const p = asParams(params);
    const sig = str(p, 0, "signature");
    const c = typeof p[1] === "string" ? { encoding: p[1] } : config(p, 1);
    if (c.commitment === "processed")
      throw invalidParams("Method does not support commitment below `confirmed`");
    const encoding = (c.encoding ?? "json") as string;
    if (!["json", "jsonParsed", "base64", "base58"].includes(encoding))
      throw invalidParams(`Invalid params: unknown variant \`${encoding}\``);
    let sigBytes: Uint8Array;
    try {
      sigBytes = decodeBase58(sig);
    } catch {
      throw invalidParams("Invalid param: Invalid");
    }
    if (sigBytes.length !== 64) throw invalidParams("Invalid param: WrongSize");
    const r = ctx.chain.history.get(sig);
    if (!r) return null;
    const maxVersion = c.maxSupportedTransactionVersion;
    checkTransactionVersion(r, maxVersion);
    const out: Record<string, unknown> = {
      blockTime: r.blockTime,
      meta: metaJson(r, encoding),
      slot: r.slot,
      transaction: transactionJson(r, encoding),
    };
    if (maxVersion !== undefined && maxVersion !== null) out.version = r.version;
    return out;
  },
  getSignaturesForAddress: (params, ctx) => {
    const p = asParams(params);
    decodeAddress(str(p, 0, "address"));
    const c = config(p, 1);
    const limit = c.limit === undefined || c.limit === null ? 1000 : c.limit;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw invalidParams("Invalid limit; max 1000");
    const before = typeof c.before === "string" ? c.before : undefined;
    const until = typeof c.until === "string" ? c.until : undefined;
    return ctx.chain.history.forAddress(p[0] as string, { before, until, limit }).map((r) => ({
      blockTime: r.blockTime,
      confirmationStatus: ctx.chain.commitmentOf(r.slot).status,
      err: r.err,
      memo: memoOf(r),
      signature: r.signature,
      slot: r.slot,
    }));
  },
};
