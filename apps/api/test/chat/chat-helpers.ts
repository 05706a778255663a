import { type ChatCredential, toChatAuthorization } from "@cistern/protocol";
import { generateKeyPairSigner, getBase58Decoder, type KeyPairSigner, signBytes } from "@solana/kit";
import { type Client, createClient } from "graphql-ws";
import WebSocket from "ws";
import type { Queryable } from "../../src/db/database.ts";

/** A wallet that can sign in to the chat. */
export interface ChatWallet {
  address: string;
  signer: KeyPairSigner;
}

export async function newWallet(): Promise<ChatWallet> {
  const signer = await generateKeyPairSigner();
  return { address: signer.address, signer };
}

/** POSTs a GraphQL operation to `url`/graphql, with the wallet's credential when given. */
export async function gql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  credential?: ChatCredential,
): Promise<{ data?: T; errors?: { message: string; extensions?: { code?: number; name?: string } }[] }> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(credential === undefined ? {} : { authorization: toChatAuthorization(credential) }),
    },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as never;
}

/** Signs in as the spec's credential: asks the login message, signs it with the wallet's key. */
export async function signIn(url: string, wallet: ChatWallet): Promise<ChatCredential> {
  const r = await gql<{ loginMessage: { message: string } }>(
    url,
    "mutation($w: String!) { loginMessage(wallet: $w) { message } }",
    { w: wallet.address },
  );
  const message = r.data!.loginMessage.message;
  const signature = await signBytes(wallet.signer.keyPair.privateKey, new TextEncoder().encode(message));
  return { message, signature: getBase58Decoder().decode(signature), userId: wallet.address };
}

/** A graphql-ws client (the web's library) over a real websocket to `url`/graphql. */
export function socketClient(
  url: string,
  connectionParams: Record<string, unknown> | undefined,
  onClosed?: (code: number, reason: string) => void,
): Client {
  return createClient({
    url: `${url.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: {
      closed: (event) => {
        const e = event as { code: number; reason: string };
        onClosed?.(e.code, String(e.reason));
      },
    },
  });
}

/** Subscribes to messageAdded and collects what arrives. */
export function collectMessages(
  client: Client,
  roomId?: string,
): { received: { id: string; text: string; roomId: string }[]; errors: unknown[]; ready: Promise<void> } {
  const received: { id: string; text: string; roomId: string }[] = [];
  const errors: unknown[] = [];
  client.subscribe<{ messageAdded: { id: string; text: string; roomId: string } }>(
    {
      query: "subscription($r: ID) { messageAdded(roomId: $r) { id text roomId sender { userId } } }",
      variables: { r: roomId ?? null },
    },
    {
      next: (v) => {
        if (v.data) received.push(v.data.messageAdded);
        if (v.errors) errors.push(...v.errors);
      },
      error: (e) => errors.push(e),
      complete: () => undefined,
    },
  );
  // graphql-ws starts the subscription once connected; give the server a moment to register it.
  return { received, errors, ready: new Promise((r) => setTimeout(r, 300)) };
}

/** Waits until `check` is true (polling), failing after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Puts an indexed loan (and its taken event) in the read side, as the indexer would. */
export async function insertLoan(
  db: Queryable,
  loan: {
    pubkey: string;
    borrower: string;
    lender: string;
    currency: string;
    principal: bigint;
    aprBps: number;
    createdAt: number;
    duration: number;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO loans (pubkey, pool, bank, borrower, lender, currency, collateral_mint, collateral_amount, collection,
       is_defi, principal, interest, apr_bps, duration, created_at, expired_at, repaid_at, liquidated_at, sold_at,
       status, kind, loan_type, slot)
     VALUES ($1, 'pool', 'bank', $2, $3, $4, 'mint', 1, 'collection', false, $5, 0, $6, $7, $8, $9, 0, 0, 0,
       'Ongoing', 'Normal', 'Nft', 1)`,
    [
      loan.pubkey,
      loan.borrower,
      loan.lender,
      loan.currency,
      loan.principal,
      loan.aprBps,
      loan.duration,
      loan.createdAt,
      loan.createdAt + loan.duration,
    ],
  );
  await db.query(
    `INSERT INTO loan_activity (loan, kind, at, slot, pool, borrower, lender, currency, collection, amount)
     VALUES ($1, 'taken', $2, 1, 'pool', $3, $4, $5, 'collection', $6)`,
    [loan.pubkey, loan.createdAt, loan.borrower, loan.lender, loan.currency, loan.principal],
  );
}
