import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { RPC_ERROR } from "./errors.ts";
import type { RpcContext } from "./rpc/context.ts";
import { handleRpcBody, serialize } from "./rpc/dispatch.ts";

/** Largest accepted request body. */
export const MAX_REQUEST_BODY_BYTES = 5 * 1024 * 1024;

function setCors(res: ServerResponse): void {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Allow-Headers", "*");
  res.setHeader("Access-Control-Allow-Methods", "POST, GET, OPTIONS");
  res.setHeader("Access-Control-Max-Age", "86400");
}

function reply(res: ServerResponse, status: number, body: string | null): void {
  if (body === null) {
    res.writeHead(204).end();
    return;
  }
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

/** Creates the JSON-RPC HTTP server (CORS enabled, keep-alive, body limit). */
export function createRpcHttpServer(ctx: RpcContext): Server {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    setCors(res);
    if (req.method === "OPTIONS") {
      res.writeHead(204).end();
      return;
    }
    if (req.method === "GET") {
      if (req.url === "/health") {
        res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
        return;
      }
      res.writeHead(405, { Allow: "POST, GET, OPTIONS" }).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { Allow: "POST, GET, OPTIONS" }).end();
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
