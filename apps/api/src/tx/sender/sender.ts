import { ERROR_CODES as PROTOCOL_CODES } from "@cistern/protocol";
import { getInstructionProgramIds, INSTRUCTION_TAG } from "@cistern/sdk";
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

/** Whether a transaction passes the co-sign checks that need no database: oracle slot, role, other signatures. */
function passesOwnChecks(tx: TxContext, transaction: Transaction, index: number): boolean {
  if (!(tx.oracle.address in transaction.signatures)) return false;
  try {
    requireOracleRoleOnly(
      transaction.messageBytes as unknown as Uint8Array,
      tx.oracle.address,
      tx.programId,
      index,
    );
  } catch {
    return false;
  }
  return missingSigners(transaction).every((a) => a === tx.oracle.address);
}

/**
 * Checks a transaction the client wants co-signed: its message must be one the builder issued (byte for
 * byte: any change gives another hash), still valid, and need the oracle only in its attestation role
 * (never fee payer nor writable: {@link requireOracleRoleOnly}); the oracle's signature is then added. Every
 * other signer must already have signed. Refusals are 400s; nothing unknown is ever signed. A transaction that
 * passes every check is claimed in one statement (issued, needing the oracle, unexpired, not co-signed before);
 * anything else goes through the checks one by one, for the refusal that says why. A message it does not remember
 * is refused as expired when its blockhash no longer is valid (the builder forgets expired messages), else as one
 * this server did not build.
 */
export async function coSign(tx: TxContext, transaction: Transaction, index: number): Promise<Transaction> {
  return (await coSignIssued(tx, transaction, index)).signed;
}

/** coSign, answering also the last valid block height the builder issued the message with. */
export async function coSignIssued(
  tx: TxContext,
  transaction: Transaction,
  index: number,
): Promise<{ signed: Transaction; lastValidBlockHeight: number }> {
  if (passesOwnChecks(tx, transaction, index)) {
    const height = await tx.clock.blockHeight();
    const lastValidBlockHeight = await tx.issued.claimCosignUntil(
      transaction.messageBytes,
      tx.app.now(),
      height,
    );
    if (lastValidBlockHeight !== undefined)
      return {
        signed: await partiallySignTransaction([tx.oracle.keyPair], transaction),
        lastValidBlockHeight,
      };
  }
  const issued = await tx.issued.lookup(transaction.messageBytes);
  if (issued === undefined) throw await unknownMessageRefusal(tx, transaction, index);
  const height = await tx.clock.blockHeight();
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
  return {
    signed: await partiallySignTransaction([tx.oracle.keyPair], transaction),
    lastValidBlockHeight: issued.lastValidBlockHeight,
  };
}

/** The refusal of a transaction that co-signs no message this server remembers (see unknownMessageRefusal). */
export const EXPIRED_UNKNOWN_MESSAGE = `${BLOCK_HEIGHT_MESSAGE} (its blockhash is no longer valid: build a new transaction)`;

/**
 * Why a message the builder does not remember is refused. The builder forgets the messages whose blockhash
 * expired, so a transaction signed and sent after its blockhash expired (e.g. held in a backlog) is no longer
 * known: when the node says its blockhash is no longer valid it is refused as expired, not as a message this
 * server did not build; otherwise (unknown, altered, or the node cannot tell) as one it did not build.
 */
export async function unknownMessageRefusal(
  tx: TxContext,
  transaction: Transaction,
  index: number,
): Promise<ApiError> {
  let blockhash: string | undefined;
  try {
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    blockhash = message.lifetimeToken;
  } catch {
    blockhash = undefined;
  }
  if (blockhash !== undefined) {
    const valid = await callJsonRpc<{ value: boolean }>(tx.app.rpc.url, "isBlockhashValid", [
      blockhash,
      { commitment: "confirmed" },
    ]).catch(() => undefined);
    if (valid?.ok === true && valid.result.value === false)
      return badRequest(`Refused to co-sign transactions[${index}]: ${EXPIRED_UNKNOWN_MESSAGE}`);
  }
  return badRequest(
    `Refused to co-sign transactions[${index}]: this server did not build this message (unknown or altered)`,
  );
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
  if (!first.ok) return failure(refusalOf(tx, first.error, getInstructionProgramIds(transaction)));
  if (!waitForConfirmation) return { result: signature };
  return waitUntilConfirmed(tx, [signature], lastValidBlockHeight, () => send(true));
}

/** What a node's refusal of a transaction or bundle means to the user: the program's code when there is one. */
export function refusalOf(
  tx: TxContext,
  error: JsonRpcError,
  instructionProgramIds?: readonly string[],
): ChainFailure {
  const data = error.data;
  if (data?.err !== undefined || data?.logs)
    return describeChainFailure(data?.err, data?.logs ?? [], tx.programId, instructionProgramIds);
  if (/blockhash not found|block height exceeded/i.test(error.message))
    return protocolFailure("BLOCK_HEIGHT_EXCEEDED", BLOCK_HEIGHT_MESSAGE);
  return protocolFailure("TRANSACTION_SEND_FAILED", error.message);
}

/** How often the pending signatures are checked, milliseconds (one getSignatureStatuses for all of them). */
const CONFIRMATION_POLL_MS = 100;
/** Most signatures one getSignatureStatuses asks about (the node's limit). */
const MAX_STATUSES_PER_CALL = 256;
/** How long a send waits for its confirmation at most, milliseconds. */
const CONFIRMATION_TIMEOUT_MS = 120_000;

interface Waiter {
  signatures: string[];
  lastValidBlockHeight: number;
  rebroadcast: () => Promise<unknown>;
  lastBroadcast: number;
  deadline: number;
  done: (result: SendResult) => void;
}

/**
 * The sends of one API waiting for their confirmations: every CONFIRMATION_POLL_MS, one getSignatureStatuses
 * for all their signatures and one getBlockHeight, however many sends wait (at 100 sends a second, each polling
 * for itself cost the node two calls per send every tick).
 */
function createConfirmationWatcher(tx: TxContext): (waiter: Waiter) => void {
  const rpcUrl = tx.app.rpc.url;
  const waiting = new Set<Waiter>();
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  const statusesOf = async (signatures: string[]): Promise<Map<string, StatusValue | undefined>> => {
    const out = new Map<string, StatusValue | undefined>();
    for (let i = 0; i < signatures.length; i += MAX_STATUSES_PER_CALL) {
      const chunk = signatures.slice(i, i + MAX_STATUSES_PER_CALL);
      const r = await callJsonRpc<{ value: StatusValue[] }>(rpcUrl, "getSignatureStatuses", [
        chunk,
        { searchTransactionHistory: false },
      ]);
      if (!r.ok) continue;
      for (const [j, signature] of chunk.entries()) out.set(signature, r.result.value[j] ?? undefined);
    }
    return out;
  };
  const confirmed = (s: StatusValue | undefined) =>
    s?.confirmationStatus === "confirmed" || s?.confirmationStatus === "finalized";
  const settle = (waiter: Waiter, result: SendResult | Promise<SendResult>) => {
    waiting.delete(waiter);
    void Promise.resolve(result).then(waiter.done, () =>
      waiter.done(failure(protocolFailure("NO_SIGNATURE_CONFIRMATION", "No signature confirmation"))),
    );
  };
  async function tick(): Promise<void> {
    const waiters = [...waiting];
    const [statuses, height] = await Promise.all([
      statusesOf([...new Set(waiters.flatMap((w) => w.signatures))]),
      tx.clock.blockHeight().catch(() => undefined),
    ]);
    const now = Date.now();
    for (const w of waiters) {
      const values = w.signatures.map((signature) => statuses.get(signature));
      const failedAt = values.findIndex((s) => confirmed(s) && s?.err !== null && s?.err !== undefined);
      if (failedAt >= 0) {
        const signature = w.signatures[failedAt]!;
        settle(
          w,
          transactionLogs(rpcUrl, signature).then((logs) =>
            failure(describeChainFailure(values[failedAt]!.err, logs, tx.programId), w.signatures),
          ),
        );
      } else if (values.every(confirmed)) {
        const bundle = w.signatures.length > 1 ? { signatures: w.signatures } : {};
        settle(w, { result: w.signatures[w.signatures.length - 1]!, ...bundle });
      } else if (height !== undefined && height > w.lastValidBlockHeight) {
        settle(w, failure(protocolFailure("BLOCK_HEIGHT_EXCEEDED", BLOCK_HEIGHT_MESSAGE), w.signatures));
      } else if (now >= w.deadline) {
        settle(
          w,
          failure(protocolFailure("NO_SIGNATURE_CONFIRMATION", "No signature confirmation"), w.signatures),
        );
      } else if (now - w.lastBroadcast >= tx.config.rebroadcastIntervalMs) {
        w.lastBroadcast = now;
        w.rebroadcast().catch(() => undefined);
      }
    }
  }
  const schedule = (delayMs: number) => {
    if (timer !== undefined || ticking || waiting.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      ticking = true;
      tick()
        .catch(() => undefined)
        .finally(() => {
          ticking = false;
          schedule(CONFIRMATION_POLL_MS);
        });
    }, delayMs);
  };
  return (waiter) => {
    waiting.add(waiter);
    schedule(0);
  };
}

const watchers = new WeakMap<TxContext, (waiter: Waiter) => void>();

/**
 * Waits until every signature is confirmed (answering the last one), one failed on chain (its decoded error),
 * or the block height passes `lastValidBlockHeight`; `rebroadcast` runs every `rebroadcastIntervalMs`. The
 * statuses of every send waiting in this API are read together (see createConfirmationWatcher).
 */
export function waitUntilConfirmed(
  tx: TxContext,
  signatures: string[],
  lastValidBlockHeight: number,
  rebroadcast: () => Promise<unknown>,
): Promise<SendResult> {
  let watch = watchers.get(tx);
  if (watch === undefined) {
    watch = createConfirmationWatcher(tx);
    watchers.set(tx, watch);
  }
  const add = watch;
  return new Promise((done) =>
    add({
      signatures,
      lastValidBlockHeight,
      rebroadcast,
      lastBroadcast: Date.now(),
      deadline: Date.now() + CONFIRMATION_TIMEOUT_MS,
      done,
    }),
  );
}

async function transactionLogs(rpcUrl: string, signature: string): Promise<string[]> {
  const r = await callJsonRpc<{ meta?: { logMessages?: string[] } } | null>(rpcUrl, "getTransaction", [
    signature,
    { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
  ]);
  return r.ok ? (r.result?.meta?.logMessages ?? []) : [];
}
