import { ERROR_CODES as PROTOCOL_CODES } from "@cistern/protocol";
import { INSTRUCTION_TAG } from "@cistern/sdk";
import {
  type Address,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type Transaction,
} from "@solana/kit";
import { ApiError, ERROR_CODES } from "../../errors/api-error.ts";
import { callJsonRpc, type JsonRpcError } from "../chain/json-rpc.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest, type ChainFailure, describeChainFailure } from "../tx-errors.ts";

/** The sender's answer: a signature, or the error the chain gave (spec "a signature or error"). */
export interface SendResult {
  result: string | null;
  /** Every signature sent (bundles), in order. */
  signatures?: string[];
  error?: ChainFailure;
}

/** Decodes a base64 wire transaction; junk is a 400. */
export function decodeWireTransaction(base64: string, index = 0): Transaction {
  if (typeof base64 !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64))
    throw badRequest(`transactions[${index}] is not base64`);
  try {
    return getTransactionDecoder().decode(Buffer.from(base64, "base64"));
  } catch {
    throw badRequest(`transactions[${index}] is not a valid wire transaction`);
  }
}

/** Message of an expired transaction (the web app matches 'block height exceeded'). */
export const BLOCK_HEIGHT_MESSAGE = "Transaction expired: block height exceeded before it was confirmed";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function failure(error: ChainFailure, signatures: string[] = []): SendResult {
  return { result: null, ...(signatures.length > 0 ? { signatures } : {}), error };
}

/** A sender failure with a protocol code (no program error behind it). */
function protocolFailure(
  name: "TRANSACTION_SEND_FAILED" | "BLOCK_HEIGHT_EXCEEDED" | "NO_SIGNATURE_CONFIRMATION",
  message: string,
): ChainFailure {
  return { code: PROTOCOL_CODES[name], name, message, params: {} };
}

/** The signer addresses of `tx` whose signature is still missing. */
function missingSigners(tx: Transaction): Address[] {
  return Object.entries(tx.signatures)
    .filter(([, sig]) => sig === null)
    .map(([address]) => address as Address);
}

/** Lending program instructions the oracle signs (its attestation role), by tag (first data byte). */
const ORACLE_TAGS: ReadonlySet<number> = new Set([
  INSTRUCTION_TAG.TakeLoan,
  INSTRUCTION_TAG.Extend,
  INSTRUCTION_TAG.MarginSwap,
  INSTRUCTION_TAG.Refinance,
  INSTRUCTION_TAG.TakeMortgage,
]);

/**
 * Refuses (400) a message the oracle must not sign whatever its origin: the oracle is the fee payer or a
 * writable signer (it would pay fees, tips or rent, or move its own lamports), or it appears in any
 * instruction other than a lending program TakeLoan/Extend (its attestation role), or in none.
 */
export function requireOracleRoleOnly(
  messageBytes: Uint8Array,
  oracle: Address,
  programId: Address,
  index: number,
): void {
  const refuse = (why: string) => badRequest(`Refused to co-sign transactions[${index}]: ${why}`);
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;
  try {
    message = getCompiledTransactionMessageDecoder().decode(messageBytes);
  } catch {
    throw refuse("its message cannot be decoded");
  }
  if (!("instructions" in message)) throw refuse("only legacy and v0 messages are co-signed");
  const { numSignerAccounts, numReadonlySignerAccounts } = message.header;
  const position = message.staticAccounts.indexOf(oracle);
  if (position === 0) throw refuse("the oracle must never be the fee payer");
  if (position < 0 || position >= numSignerAccounts) throw refuse("the oracle is not a signer of it");
  if (position < numSignerAccounts - numReadonlySignerAccounts)
    throw refuse("the oracle must only be a read-only signer");
  if (message.staticAccounts.lastIndexOf(oracle) !== position) throw refuse("the oracle appears twice");
  let attestations = 0;
  for (const ix of message.instructions) {
    const program = message.staticAccounts[ix.programAddressIndex];
    if (program === oracle) throw refuse("the oracle is used as a program");
    if (!(ix.accountIndices ?? []).includes(position)) continue;
    const tag = ix.data?.[0];
    if (program !== programId || tag === undefined || !ORACLE_TAGS.has(tag))
      throw refuse(
        "the oracle signs only the lending program's take-loan, extend, margin-swap, refinance and take-mortgage instructions",
      );
    attestations++;
  }
  if (attestations === 0) throw refuse("no lending instruction needs the oracle");
}

/**
 * Checks a transaction the client wants co-signed: its message must be one the builder issued (byte for
 * byte: any change gives another hash), still valid, and need the oracle only in its attestation role
 * (never fee payer nor writable: {@link requireOracleRoleOnly}); the oracle's signature is then added. Every other signer must already have signed. Refusals are 400s; nothing unknown is ever signed.
 */
export async function coSign(tx: TxContext, transaction: Transaction, index: number): Promise<Transaction> {
  const issued = await tx.issued.lookup(transaction.messageBytes);
  if (issued === undefined)
    throw badRequest(
      `Refused to co-sign transactions[${index}]: this server did not build this message (unknown or altered)`,
    );
  const height = await tx.clock.blockHeight();
  await tx.issued.prune(height);
  if (height > issued.lastValidBlockHeight)
    throw badRequest(
      `Refused to co-sign transactions[${index}]: its blockhash expired (block height exceeded ${issued.lastValidBlockHeight})`,
    );
  if (!issued.needsOracle || !(tx.oracle.address in transaction.signatures))
    throw badRequest(
      `Refused to co-sign transactions[${index}]: it does not need the oracle; use /send-transaction`,
    );
  requireOracleRoleOnly(
    transaction.messageBytes as unknown as Uint8Array,
    tx.oracle.address,
    tx.programId,
    index,
  );
  const others = missingSigners(transaction).filter((a) => a !== tx.oracle.address);
  if (others.length > 0)
    throw badRequest(`transactions[${index}] is missing the signature of ${others.join(", ")}`);
  if (!(await tx.issued.claimCosign(transaction.messageBytes, tx.app.now())))
    throw new ApiError(
      ERROR_CODES.SIGNED_MESSAGE_REPLAYED,
      `Refused to co-sign transactions[${index}]: it was co-signed before (build a new transaction)`,
    );
  return partiallySignTransaction([tx.oracle.keyPair], transaction);
}

/** Checks a transaction sent as is: every signature present. */
export function requireFullySigned(transaction: Transaction, index: number): Transaction {
  const missing = missingSigners(transaction);
  if (missing.length > 0)
    throw badRequest(`transactions[${index}] is missing the signature of ${missing.join(", ")}`);
  return transaction;
}

type StatusValue = { err: unknown; confirmationStatus?: string | null } | null;

/**
 * Submits a signed transaction (with preflight) and, unless `waitForConfirmation` is false, rebroadcasts
 * it every `rebroadcastIntervalMs` until it is confirmed or the block height passes `lastValidBlockHeight`.
 */
export async function submitAndConfirm(
  tx: TxContext,
  transaction: Transaction,
  lastValidBlockHeight: number,
  waitForConfirmation = true,
): Promise<SendResult> {
  const rpcUrl = tx.app.rpc.url;
  const wire = getBase64EncodedWireTransaction(transaction);
  const signature = getSignatureFromTransaction(transaction);
  const send = (skipPreflight: boolean) =>
    callJsonRpc<string>(rpcUrl, "sendTransaction", [
      wire,
      { encoding: "base64", skipPreflight, preflightCommitment: "confirmed", maxRetries: 0 },
    ]);
  const first = await send(false);
  if (!first.ok) return failure(refusalOf(tx, first.error));
  if (!waitForConfirmation) return { result: signature };
  return waitUntilConfirmed(tx, [signature], lastValidBlockHeight, () => send(true));
}

/** What a node's refusal of a transaction or bundle means to the user: the program's code when there is one. */
export function refusalOf(tx: TxContext, error: JsonRpcError): ChainFailure {
  const data = error.data;
  if (data?.err !== undefined || data?.logs)
    return describeChainFailure(data?.err, data?.logs ?? [], tx.programId);
  if (/blockhash not found|block height exceeded/i.test(error.message))
    return protocolFailure("BLOCK_HEIGHT_EXCEEDED", BLOCK_HEIGHT_MESSAGE);
  return protocolFailure("TRANSACTION_SEND_FAILED", error.message);
}

/**
 * Waits until every signature is confirmed (answering the last one), one failed on chain (its decoded error),
 * or the block height passes `lastValidBlockHeight`; `rebroadcast` runs every `rebroadcastIntervalMs`.
 */
export async function waitUntilConfirmed(
  tx: TxContext,
  signatures: string[],
  lastValidBlockHeight: number,
  rebroadcast: () => Promise<unknown>,
): Promise<SendResult> {
  const rpcUrl = tx.app.rpc.url;
  const bundle = signatures.length > 1 ? { signatures } : {};
  let lastBroadcast = Date.now();
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const statuses = await callJsonRpc<{ value: StatusValue[] }>(rpcUrl, "getSignatureStatuses", [
      signatures,
      { searchTransactionHistory: false },
    ]);
    const values = statuses.ok ? statuses.result.value : [];
    const confirmed = (s: StatusValue | undefined) =>
      s?.confirmationStatus === "confirmed" || s?.confirmationStatus === "finalized";
    const failedAt = values.findIndex((s) => confirmed(s) && s?.err !== null && s?.err !== undefined);
    if (failedAt >= 0) {
      const logs = await transactionLogs(rpcUrl, signatures[failedAt]!);
      return failure(describeChainFailure(values[failedAt]!.err, logs, tx.programId), signatures);
    }
    if (values.length === signatures.length && values.every(confirmed))
      return { result: signatures[signatures.length - 1]!, ...bundle };
    if ((await tx.clock.blockHeight()) > lastValidBlockHeight)
      return failure(protocolFailure("BLOCK_HEIGHT_EXCEEDED", BLOCK_HEIGHT_MESSAGE), signatures);
    if (Date.now() - lastBroadcast >= tx.config.rebroadcastIntervalMs) {
      lastBroadcast = Date.now();
      await rebroadcast();
    }
    await sleep(150);
  }
  return failure(protocolFailure("NO_SIGNATURE_CONFIRMATION", "No signature confirmation"), signatures);
}

async function transactionLogs(rpcUrl: string, signature: string): Promise<string[]> {
  const r = await callJsonRpc<{ meta?: { logMessages?: string[] } } | null>(rpcUrl, "getTransaction", [
    signature,
    { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  return r.ok ? (r.result?.meta?.logMessages ?? []) : [];
}
