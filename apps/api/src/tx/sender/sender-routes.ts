import { parseTransactionKind } from "@cistern/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { withErrors } from "../../http/schemas.ts";
import type { TxContext } from "../tx-context.ts";
import { badRequest } from "../tx-errors.ts";
import { MAX_BUNDLE_TRANSACTIONS, submitBundle } from "./bundle.ts";
import {
  BLOCK_HEIGHT_MESSAGE,
  coSign,
  coSignIssued,
  decodeWireTransaction,
  requireFullySigned,
  type SendResult,
  submitAndConfirm,
  unknownMessageRefusal,
} from "./sender.ts";

const Kind = Type.Optional(
  Type.String({ description: "transaction kind the builder answered (checked when given)" }),
);
const SingleBody = Type.Object(
  {
    transaction: Type.String({ description: "signed v0 transaction, base64" }),
    blockHeight: Type.Optional(Type.Integer({ description: "lastValidBlockHeight from the builder" })),
    kind: Kind,
  },
  { additionalProperties: false },
);
const BundleBody = Type.Object(
  {
    transactions: Type.Array(Type.String(), { maxItems: 16 }),
    blockHeight: Type.Optional(Type.Integer()),
    kind: Kind,
  },
  { additionalProperties: false },
);
const SendResponse = Type.Object({
  result: Type.Union([Type.String(), Type.Null()]),
  signatures: Type.Optional(Type.Array(Type.String())),
  error: Type.Optional(
    Type.Object({
      code: Type.Integer(),
      name: Type.String(),
      message: Type.String(),
      params: Type.Record(Type.String(), Type.String()),
    }),
  ),
});

interface Single {
  transaction: string;
  blockHeight?: number;
  kind?: string;
}
interface Bundle {
  transactions: string[];
  blockHeight?: number;
  kind?: string;
}

function checkKind(kind: string | undefined): void {
  if (kind === undefined) return;
  try {
    parseTransactionKind(kind);
  } catch {
    throw badRequest("Unknown transaction kind");
  }
}

function requireTransactions(list: unknown): asserts list is string[] {
  if (!Array.isArray(list) || list.length === 0) throw badRequest("No transactions provided");
}

/** Refuses (400) a transaction whose blockHeight already passed. */
async function requireNotExpired(tx: TxContext, blockHeight: number | undefined): Promise<number> {
  const height = await tx.clock.blockHeight();
  if (blockHeight !== undefined && height > blockHeight) throw badRequest(`Refused: ${BLOCK_HEIGHT_MESSAGE}`);
  return blockHeight ?? height + 150;
}

async function sendAll(
  tx: TxContext,
  transactions: Awaited<ReturnType<typeof coSign>>[],
  lastValid: number,
): Promise<SendResult> {
  if (
    tx.config.bundleUrl !== null &&
    transactions.length > 1 &&
    transactions.length <= MAX_BUNDLE_TRANSACTIONS
  )
    return submitBundle(tx, tx.config.bundleUrl, transactions, lastValid);
  const signatures: string[] = [];
  for (const transaction of transactions) {
    const r = await submitAndConfirm(tx, transaction, lastValid);
    if (r.result === null) return { ...r, signatures: [...signatures, ...(r.signatures ?? [])] };
    signatures.push(r.result);
  }
  return { result: signatures[signatures.length - 1] ?? null, signatures };
}

/**
 * Sender routes. Each answers 200 {result: signature} once confirmed, or 200 {result: null, error: {code,
 * message}} when the chain refused or the transaction expired (the shape the web app's
 * getSignatureFromSendResponse reads); refusals before sending are 400s.
 */
export function registerSenderRoutes(app: FastifyInstance, tx: TxContext): void {
  const schema = (description: string, body: typeof SingleBody | typeof BundleBody) => ({
    description,
    tags: ["sender"],
    body,
    response: withErrors({ 200: SendResponse }),
  });

  app.post<{ Body: Single }>(
    "/send-transaction",
    {
      schema: schema(
        "Sends a fully signed transaction and waits for confirmation (rebroadcasting).",
        SingleBody,
      ),
    },
    async (request) => {
      checkKind(request.body.kind);
      const lastValid = await requireNotExpired(tx, request.body.blockHeight);
      const transaction = requireFullySigned(decodeWireTransaction(request.body.transaction), 0);
      return submitAndConfirm(tx, transaction, lastValid);
    },
  );

  app.post<{ Body: Single }>(
    "/send-transaction-tmp",
    {
      schema: schema(
        "Sends a fully signed transaction once and answers its signature without waiting for confirmation.",
        SingleBody,
      ),
    },
    async (request) => {
      checkKind(request.body.kind);
      const lastValid = await requireNotExpired(tx, request.body.blockHeight);
      const transaction = requireFullySigned(decodeWireTransaction(request.body.transaction), 0);
      return submitAndConfirm(tx, transaction, lastValid, false);
    },
  );

  app.post<{ Body: Single }>(
    "/send-cos-transaction",
    {
      schema: schema(
        "Adds the oracle's signature to a transaction this server built (unaltered, not expired), then sends it.",
        SingleBody,
      ),
    },
    async (request) => {
      checkKind(request.body.kind);
      const transaction = decodeWireTransaction(request.body.transaction);
      const { signed, lastValidBlockHeight } = await coSignIssued(tx, transaction, 0);
      return submitAndConfirm(tx, signed, lastValidBlockHeight);
    },
  );

  app.post<{ Body: Bundle }>(
    "/send-bundle",
    {
      schema: schema(
        "Sends fully signed transactions as one bundle: all land in order or none does (BUNDLE_URL: the localnet, or a Jito block engine; at most 5). Without one, or above 5, each is confirmed before the next and the first failure stops the rest.",
        BundleBody,
      ),
    },
    async (request) => {
      checkKind(request.body.kind);
      requireTransactions(request.body.transactions);
      const lastValid = await requireNotExpired(tx, request.body.blockHeight);
      const list = request.body.transactions.map((t, i) =>
        requireFullySigned(decodeWireTransaction(t, i), i),
      );
      return sendAll(tx, list, lastValid);
    },
  );

  app.post<{ Body: Bundle }>(
    "/send-cos-bundle",
    {
      schema: schema(
        "Co-signs (oracle) the transactions of a bundle this server built, then sends them in order.",
        BundleBody,
      ),
    },
    async (request) => {
      checkKind(request.body.kind);
      requireTransactions(request.body.transactions);
      const decoded = request.body.transactions.map((t, i) => decodeWireTransaction(t, i));
      let lastValid = Number.MAX_SAFE_INTEGER;
      const list = [];
      for (const [i, transaction] of decoded.entries()) {
        const issued = await tx.issued.lookup(transaction.messageBytes);
        if (issued === undefined) throw await unknownMessageRefusal(tx, transaction, i);
        lastValid = Math.min(lastValid, issued.lastValidBlockHeight);
        list.push(issued.needsOracle ? await coSign(tx, transaction, i) : requireFullySigned(transaction, i));
      }
      if ((await tx.clock.blockHeight()) > lastValid) throw badRequest(`Refused: ${BLOCK_HEIGHT_MESSAGE}`);
      return sendAll(tx, list, lastValid);
    },
  );
}
