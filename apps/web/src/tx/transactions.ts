import {
  assertTransactionsProvided,
  CisternError,
  ERROR_CODES,
  getSignatureFromSendResponse,
  isBundleKind,
  parseTransactionKind,
  SENDER_PATH_BY_KIND,
  type SendResponse,
  type TransactionKind,
} from "@cistern/protocol";
import {
  type Connection,
  type PublicKey,
  Transaction,
  type TransactionVersion,
  VersionedTransaction,
} from "@solana/web3.js";
import { requestJson } from "./http-client.ts";

/** The builder's answer (spec section 3, "Transaction build response"). */
export interface BuildResponse {
  transactions: string[];
  kind: TransactionKind;
  lastValidBlockHeight: number;
  metadata?: Record<string, unknown>;
}

export type AnyTransaction = Transaction | VersionedTransaction;

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Validates a builder response (kind, non-empty transaction list, block height). */
export function parseBuildResponse(body: unknown): BuildResponse {
  const raw = (body ?? {}) as Partial<BuildResponse>;
  assertTransactionsProvided(raw.transactions);
  const kind = parseTransactionKind(raw.kind);
  return {
    transactions: raw.transactions.map(String),
    kind,
    lastValidBlockHeight: Number(raw.lastValidBlockHeight ?? 0),
    ...(raw.metadata ? { metadata: raw.metadata } : {}),
  };
}

/** POSTs an action payload to a builder route, adding the referrer and the priority-fee options. */
export async function buildTransactions(
  apiUrl: string,
  path: string,
  payload: Record<string, unknown>,
  extras: { referrer: string | null; options: Record<string, unknown> },
  fetchImpl?: typeof fetch,
): Promise<BuildResponse> {
  const body = { ...payload, referrer: extras.referrer, options: extras.options };
  return parseBuildResponse(
    await requestJson<unknown>(`${apiUrl}${path}`, { method: "POST", body, fetchImpl }),
  );
}

/** Deserializes base64 transactions: versioned (v0) when the message is versioned, else legacy. */
export function deserializeTransactions(base64List: readonly string[]): AnyTransaction[] {
  return base64List.map((text) => {
    const bytes = fromBase64(text);
    const versioned = VersionedTransaction.deserialize(bytes);
    return versioned.version === "legacy" ? Transaction.from(bytes) : versioned;
  });
}

/**
 * Checks the wallet can sign these transactions: versioned ones need the wallet's support for their
 * version. Legacy ones get the fee payer and a recent blockhash when missing.
 */
export async function prepareForWallet(
  transactions: AnyTransaction[],
  wallet: {
    publicKey: PublicKey;
    supportedTransactionVersions: ReadonlySet<TransactionVersion> | null | undefined;
  },
  connection: Pick<Connection, "getLatestBlockhash">,
): Promise<void> {
  let blockhash: string | null = null;
  for (const transaction of transactions) {
    if (transaction instanceof VersionedTransaction) {
      const supported = wallet.supportedTransactionVersions;
      if (!supported) throw new CisternError(ERROR_CODES.WALLET_SIGN_VERSIONED_UNSUPPORTED);
      if (!supported.has(transaction.version)) {
        throw new CisternError(ERROR_CODES.WALLET_SIGN_VERSION_UNSUPPORTED, {
          n: String(transaction.version),
        });
      }
      continue;
    }
    transaction.feePayer ??= wallet.publicKey;
    if (!transaction.recentBlockhash) {
      blockhash ??= (await connection.getLatestBlockhash("confirmed")).blockhash;
      transaction.recentBlockhash = blockhash;
    }
  }
}

/** Serializes signed transactions to base64 (partially signed co-signed ones included). */
export function serializeTransactions(transactions: AnyTransaction[]): string[] {
  return transactions.map((t) =>
    toBase64(
      t instanceof VersionedTransaction ? t.serialize() : t.serialize({ requireAllSignatures: false }),
    ),
  );
}

/**
 * Sends signed transactions to the sender route of their kind: /send-transaction and
 * /send-cos-transaction take one transaction at a time ({transaction, blockHeight}), /send-bundle and
 * /send-cos-bundle the list ({transactions}).
 * Returns the last signature.
 */
export async function sendSignedTransactions(
  apiUrl: string,
  kind: TransactionKind,
  signedBase64: readonly string[],
  lastValidBlockHeight: number,
  onSignature?: (signature: string) => void,
  fetchImpl?: typeof fetch,
): Promise<string> {
  assertTransactionsProvided(signedBase64);
  const path = SENDER_PATH_BY_KIND[kind];
  if (path === undefined) throw new CisternError(ERROR_CODES.UNKNOWN_TRANSACTION_KIND);
  if (isBundleKind(kind)) {
    const response = await requestJson<SendResponse>(`${apiUrl}${path}`, {
      body: { transactions: signedBase64 },
      fetchImpl,
    });
    const signature = getSignatureFromSendResponse(response);
    onSignature?.(signature);
    return signature;
  }
  let signature = "";
  for (const transaction of signedBase64) {
    const response = await requestJson<SendResponse>(`${apiUrl}${path}`, {
      body: { transaction, blockHeight: lastValidBlockHeight },
      fetchImpl,
    });
    signature = getSignatureFromSendResponse(response);
    onSignature?.(signature);
  }
  return signature;
}
