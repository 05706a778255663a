import { fromChatAuthorization, isCodedError } from "@cistern/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GraphQLSchema } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { createYoga } from "graphql-yoga";
import { WebSocketServer } from "ws";
import type { AppContext } from "../app-context.ts";
import { type ChatAuth, createChatAuth } from "./chat-auth.ts";
import { type ChatBus, startChatBus } from "./chat-bus.ts";
import { type ChatContext, createChatSchema } from "./chat-schema.ts";

/** The GraphQL endpoint: queries and mutations over HTTP, subscriptions over a websocket, one path. */
export const CHAT_GRAPHQL_PATH = "/graphql";

/** What the chat adds to a running API. */
export interface ChatServer {
  auth: ChatAuth;
  bus: ChatBus;
  /** Websocket connections open on this process. */
  socketCount(): number;
  /** Drops every socket of this process, as a restart does (clients reconnect with their retry policy). */
  dropConnections(): void;
}

async function contextFor(auth: ChatAuth, credential: unknown, nowSeconds: number): Promise<ChatContext> {
  if (credential === null || credential === undefined) return { wallet: null, refusal: null };
  try {
    return { wallet: await auth.verify(credential, nowSeconds), refusal: null };
  } catch (error) {
    if (isCodedError(error)) return { wallet: null, refusal: error };
    throw error;
  }
}

/**
 * Registers the chat's GraphQL endpoint on the app: GraphQL Yoga answers HTTP (credential in the
 * `Authorization: Chat <base64 JSON>` header), graphql-ws serves the `graphql-transport-ws` protocol on the
 * same path (credential in connection_init's payload; a missing or refused one closes the socket with 4403
 * Forbidden, as graphql-ws does). Messages fan out through the database's LISTEN/NOTIFY.
 */
export async function registerChatServer(app: FastifyInstance, ctx: AppContext): Promise<ChatServer> {
  const auth = createChatAuth(ctx.db);
  const bus = await startChatBus(ctx.db, (payload) =>
    app.log.warn({ payload: payload.slice(0, 200) }, "chat: unreadable notification"),
  );
  const nowSeconds = () => Date.now() / 1000;
  const schema = createChatSchema({
    db: ctx.db,
    auth,
    bus,
    nowSeconds,
    onUnexpected: (error) => app.log.error({ err: error }, "chat: unexpected error"),
  });

  const yoga = createYoga<{ req: FastifyRequest; reply: FastifyReply }>({
    schema: schema as GraphQLSchema,
    graphqlEndpoint: CHAT_GRAPHQL_PATH,
    // @fastify/cors already answers for every route; two sets of CORS headers would break browsers.
    cors: false,
    graphiql: false,
    landingPage: false,
    logging: false,
    context: ({ request }) =>
      contextFor(
        auth,
        fromChatAuthorization(request.headers.get("authorization") ?? undefined),
        nowSeconds(),
      ),
  });
  app.route({
    url: CHAT_GRAPHQL_PATH,
    method: ["GET", "POST"],
    schema: { hide: true },
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      reply.send(response.body);
      return reply;
    },
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const graphqlWs = useServer<Record<string, unknown>, { wallet?: string }>(
    {
      schema,
      onConnect: async (c) => {
        const result = await contextFor(auth, c.connectionParams, nowSeconds());
        if (result.wallet === null) return false;
        c.extra.wallet = result.wallet;
        return true;
      },
      context: (c): ChatContext => ({ wallet: c.extra.wallet ?? null, refusal: null }),
    },
    sockets,
  );
  app.server.on("upgrade", (request, socket, head) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== CHAT_GRAPHQL_PATH) {
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit("connection", ws, request));
  });
  const dropConnections = () => {
    for (const client of sockets.clients) client.terminate();
  };
  app.addHook("onClose", async () => {
    dropConnections();
    await graphqlWs.dispose();
    await new Promise<void>((resolve) => sockets.close(() => resolve()));
    await bus.stop();
  });
  return { auth, bus, socketCount: () => sockets.clients.size, dropConnections };
}
