import {
  CHAT_PAGE_MAX_MESSAGES,
  CisternError,
  type CodedError,
  ERROR_CODES,
  getLoanRoomId,
  isCodedError,
  isValidPublicKey,
} from "@cistern/protocol";
import type { GraphQLError } from "graphql";
import { createGraphQLError, createSchema } from "graphql-yoga";
import type { Database } from "../db/database.ts";
import type { ChatAuth } from "./chat-auth.ts";
import type { ChatBus } from "./chat-bus.ts";
import {
  type ChatMessageView,
  type ChatRoomView,
  countUnread,
  getMessagePage,
  getRoomForMember,
  listRooms,
  markRoomRead,
  openDirectRoom,
  sendMessage,
  summariseRoom,
} from "./chat-store.ts";

/** What every resolver gets: the signed-in wallet (null when the request carried no valid credential). */
export interface ChatContext {
  wallet: string | null;
  /** Why the credential was refused, when one was presented and refused. */
  refusal: CodedError | null;
}

/** The services the schema's resolvers use. */
export interface ChatServices {
  db: Database;
  auth: ChatAuth;
  bus: ChatBus;
  nowSeconds(): number;
  /** Reports an error that is not a coded refusal (the client only reads "Unexpected error."). */
  onUnexpected(error: unknown): void;
}

const typeDefs = /* GraphQL */ `
  "A wallet in the chat: its address and the profile it set with POST /user/update."
  type ChatUser {
    userId: ID!
    username: String!
    image: String!
  }
  "A message. sender is null for a system message (a loan event). Text is plain text, never HTML."
  type ChatMessage {
    id: ID!
    roomId: ID!
    sender: ChatUser
    text: String!
    "epoch milliseconds"
    sentAtMs: Float!
  }
  "A loan's room (its borrower and its pool's owner) or two wallets' direct messages."
  type ChatRoom {
    id: ID!
    kind: String!
    loan: String
    "the other member, as the signed-in wallet sees the room"
    peer: ChatUser!
    unread: Int!
    lastMessage: ChatMessage
    createdAt: Int!
  }
  type MessagePage {
    "newest first"
    messages: [ChatMessage!]!
    hasMore: Boolean!
  }
  type LoginMessage {
    message: String!
    nonce: String!
    expiresAt: Int!
  }
  type Query {
    "the signed-in wallet"
    me: ChatUser!
    "the signed-in wallet's rooms, most recently active first"
    rooms: [ChatRoom!]!
    room(id: ID!): ChatRoom!
    "a loan's room (created when the loan is taken)"
    loanRoom(loan: String!): ChatRoom!
    messages(roomId: ID!, before: ID, limit: Int = 30): MessagePage!
    unreadTotal: Int!
  }
  type Mutation {
    "the login message for a wallet to sign (no sign-in needed): 'Access Cistern chat as {wallet}', a nonce and an expiry"
    loginMessage(wallet: String!): LoginMessage!
    sendMessage(roomId: ID!, text: String!): ChatMessage!
    openDirectRoom(wallet: String!): ChatRoom!
    markRead(roomId: ID!): ChatRoom!
  }
  type Subscription {
    "new messages in the signed-in wallet's rooms (or in one room)"
    messageAdded(roomId: ID): ChatMessage!
  }
`;

/** A coded error as GraphQL reports it: extensions.code is the numeric code, extensions.name its name. */
export function toGraphQLError(error: unknown): GraphQLError {
  // createGraphQLError makes the class Yoga's executor knows (graphql ships CJS and ESM copies), so a coded
  // error is reported as it is instead of being masked.
  if (isCodedError(error))
    return createGraphQLError(error.message, { extensions: { code: error.code, name: error.codeName } });
  return createGraphQLError("Unexpected error.", {
    extensions: { code: ERROR_CODES.ACTION_FAILED, name: "ACTION_FAILED" },
  });
}

function signedIn(ctx: ChatContext): string {
  if (ctx.wallet !== null) return ctx.wallet;
  throw ctx.refusal ?? new CisternError(ERROR_CODES.CHAT_NOT_SIGNED_IN);
}

type Resolver<A> = (args: A, ctx: ChatContext) => Promise<unknown>;
/** Every resolver reports coded errors as they are and masks (and logs) anything else. */
let reportUnexpected: (error: unknown) => void = () => undefined;
function guarded<A>(fn: Resolver<A>) {
  return async (_parent: unknown, args: A, ctx: ChatContext) => {
    try {
      return await fn(args, ctx);
    } catch (error) {
      if (!isCodedError(error)) reportUnexpected(error);
      throw toGraphQLError(error);
    }
  };
}

function toUser(userId: string, username = "", image = "") {
  return { userId, username, image };
}

function toMessageResult(m: ChatMessageView) {
  return { ...m, sender: m.sender === null ? null : toUser(m.sender, m.senderName, m.senderImage) };
}

/** Builds the chat's GraphQL schema (served over HTTP by Yoga and over the websocket by graphql-ws). */
export function createChatSchema(services: ChatServices) {
  const { db } = services;
  reportUnexpected = services.onUnexpected;

  async function profiles(wallets: string[]) {
    const rows = await db.query<{ pubkey: string; username: string; image: string }>(
      "SELECT pubkey, username, image FROM user_profiles WHERE pubkey = ANY($1::text[])",
      [wallets],
    );
    return new Map(rows.map((r) => [r.pubkey, toUser(r.pubkey, r.username, r.image)]));
  }

  async function toRoomResults(
    wallet: string,
    items: { room: ChatRoomView; unread: number; last: ChatMessageView | null }[],
  ) {
    const peers = items.map(({ room }) => (room.members[0] === wallet ? room.members[1] : room.members[0]));
    const byWallet = await profiles(peers);
    return items.map(({ room, unread, last }, i) => ({
      id: room.id,
      kind: room.kind,
      loan: room.loan,
      peer: byWallet.get(peers[i]!) ?? toUser(peers[i]!),
      unread,
      lastMessage: last === null ? null : toMessageResult(last),
      createdAt: room.createdAt,
    }));
  }

  async function roomResult(wallet: string, room: ChatRoomView) {
    return (await toRoomResults(wallet, [await summariseRoom(db, room, wallet)]))[0];
  }

  return createSchema<ChatContext>({
    typeDefs,
    resolvers: {
      Query: {
        me: guarded(async (_: unknown, ctx) => {
          const wallet = signedIn(ctx);
          return (await profiles([wallet])).get(wallet) ?? toUser(wallet);
        }),
        rooms: guarded(async (_: unknown, ctx) => {
          const wallet = signedIn(ctx);
          return toRoomResults(wallet, await listRooms(db, wallet));
        }),
        room: guarded(async ({ id }: { id: string }, ctx) => {
          const wallet = signedIn(ctx);
          return roomResult(wallet, await getRoomForMember(db, id, wallet));
        }),
        loanRoom: guarded(async ({ loan }: { loan: string }, ctx) => {
          const wallet = signedIn(ctx);
          return roomResult(wallet, await getRoomForMember(db, getLoanRoomId(loan), wallet));
        }),
        messages: guarded(
          async (
            { roomId, before, limit }: { roomId: string; before?: string | null; limit: number },
            ctx,
          ) => {
            const wallet = signedIn(ctx);
            const room = await getRoomForMember(db, roomId, wallet);
            const page = await getMessagePage(
              db,
              room.id,
              before ?? null,
              Math.min(limit, CHAT_PAGE_MAX_MESSAGES + 1),
            );
            return { messages: page.messages.map(toMessageResult), hasMore: page.hasMore };
          },
        ),
        unreadTotal: guarded(async (_: unknown, ctx) => {
          const wallet = signedIn(ctx);
          return countUnread(db, wallet);
        }),
      },
      Mutation: {
        loginMessage: guarded(async ({ wallet }: { wallet: string }) => {
          if (!isValidPublicKey(wallet))
            throw new CisternError(ERROR_CODES.CHAT_INVALID_INPUT, {
              field: "wallet",
              why: "not a wallet address",
            });
          const issued = await services.auth.issueLoginMessage(wallet, services.nowSeconds());
          return { message: issued.message, nonce: issued.nonce, expiresAt: issued.expiresAt };
        }),
        sendMessage: guarded(async ({ roomId, text }: { roomId: string; text: string }, ctx) => {
          const sender = signedIn(ctx);
          const message = await sendMessage(db, { roomId, sender, text, nowMs: Date.now() });
          return toMessageResult(message);
        }),
        openDirectRoom: guarded(async ({ wallet: other }: { wallet: string }, ctx) => {
          const wallet = signedIn(ctx);
          if (!isValidPublicKey(other))
            throw new CisternError(ERROR_CODES.CHAT_INVALID_INPUT, {
              field: "wallet",
              why: "not a wallet address",
            });
          return roomResult(wallet, await openDirectRoom(db, wallet, other, services.nowSeconds()));
        }),
        markRead: guarded(async ({ roomId }: { roomId: string }, ctx) => {
          const wallet = signedIn(ctx);
          const room = await getRoomForMember(db, roomId, wallet);
          await markRoomRead(db, room, wallet);
          return roomResult(wallet, room);
        }),
      },
      Subscription: {
        messageAdded: {
          subscribe: guarded(async ({ roomId }: { roomId?: string | null }, ctx) => {
            const wallet = signedIn(ctx);
            if (roomId !== undefined && roomId !== null) await getRoomForMember(db, roomId, wallet);
            return services.bus.subscribe(wallet, roomId ?? null);
          }) as never,
          resolve: (m: ChatMessageView) => toMessageResult(m),
        },
      },
    },
  });
}
