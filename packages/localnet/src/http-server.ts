import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { METADATA_PATH } from "./das/offchain-metadata.ts";
import { RPC_ERROR } from "./errors.ts";
import type { RpcContext } from "./rpc/context.ts";
import { handleRpcBody, serialize } from "./rpc/dispatch.ts";

/** Largest accepted request body. */
export const MAX_REQUEST_BODY_BYTES = 5 * 1024 * 1024;

const CORS_HEADERS = [
  "Access-Control-Allow-Origin",
  "*",
  "Access-Control-Allow-Headers",
  "*",
  "Access-Control-Allow-Methods",
  "POST, GET, OPTIONS",
  "Access-Control-Max-Age",
  "86400",
];

/** Writes status, CORS and content headers in one call (raw header array: the cheapest form). */
function reply(
  res: ServerResponse,
  status: number,
  body: string | null,
  contentType = "application/json",
): void {
  if (body === null) {
    res.writeHead(status === 200 ? 204 : status, CORS_HEADERS).end();
    return;
  }
  res.writeHead(status, [
    ...CORS_HEADERS,
    "Content-Type",
    contentType,
    "Content-Length",
    String(Buffer.byteLength(body)),
  ]);
  res.end(body);
}

/** Creates the JSON-RPC HTTP server (CORS enabled, keep-alive, body limit). */
export function createRpcHttpServer(ctx: RpcContext): Server {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "OPTIONS") {
      res.writeHead(204, CORS_HEADERS).end();
      return;
    }
    if (req.method === "GET" && req.url === "/health") {
      reply(res, 200, "ok", "text/plain");
      return;
    }
    if (req.method === "GET" && req.url?.startsWith("/metadata/")) {
      // a demo NFT's off-chain JSON metadata, where its on-chain uri points (see das/offchain-metadata.ts)
      const id = METADATA_PATH.exec(req.url)?.[1];
      const doc = id === undefined ? null : ctx.chain.das.metadataDocument(id);
      if (doc === null) reply(res, 404, JSON.stringify({ error: "No metadata document at this path" }));
      else reply(res, 200, JSON.stringify(doc));
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, [...CORS_HEADERS, "Allow", "POST, GET, OPTIONS"]).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (c: Buffer) => {
      if (tooLarge) return;
      size += c.length;
      if (size > MAX_REQUEST_BODY_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (tooLarge) {
        const body = serialize({
          jsonrpc: "2.0",
          id: null,
          error: {
            code: RPC_ERROR.INVALID_REQUEST,
            message: `Request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes`,
          },
        });
        reply(res, 413, body);
        return;
      }
      const body = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      let out: ReturnType<typeof handleRpcBody>;
      try {
        out = handleRpcBody(body, ctx);
      } catch (e) {
        out = serialize({
          jsonrpc: "2.0",
          id: null,
          error: { code: RPC_ERROR.INTERNAL_ERROR, message: String(e) },
        });
      }
      if (out instanceof Promise)
        out.then(
          (text) => reply(res, 200, text),
          (e) =>
            reply(
              res,
              200,
              serialize({
                jsonrpc: "2.0",
                id: null,
                error: { code: RPC_ERROR.INTERNAL_ERROR, message: String(e) },
              }),
            ),
        );
      else reply(res, 200, out);
    });
    req.on("error", () => res.destroy());
  });
  server.keepAliveTimeout = 65_000;
  return server;
}
