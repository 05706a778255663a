/**
 * The web app server: serves the production build (vite build output), GET /api/build-id and
 * GET /config.json (runtime config from the environment), so one build runs anywhere.
 * Run with `tsx apps/web/server.ts` (PORT, CISTERN_WEB_DIST_DIR and CISTERN_WEB_* env vars).
 */
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CONFIG_ELEMENT_ID,
  getRuntimeConfigFromEnv,
  type RuntimeConfig,
} from "./src/config/runtime-config.ts";

export interface WebServerOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** The vite build output (contains index.html and build-id.json). Default: apps/web/dist. */
  distDir?: string;
  /** Runtime config; default: read from process.env. */
  config?: RuntimeConfig;
}

export interface WebServer {
  url: string;
  port: number;
  buildId: string;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

/** Escapes JSON for embedding in a <script> element. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** index.html with the runtime config inlined and the swap plugin script (before interactive) when configured. */
export function renderIndexHtml(template: string, config: RuntimeConfig): string {
  const headParts = [
    `<script id="${CONFIG_ELEMENT_ID}" type="application/json">${jsonForHtml(config)}</script>`,
  ];
  if (config.swapPluginScriptUrl) {
    // A classic blocking script in <head> runs before the app bundle (a deferred module script).
    headParts.push(`<script src="${escapeAttribute(config.swapPluginScriptUrl)}" data-swap-plugin></script>`);
  }
  return template.replace("</head>", `${headParts.join("\n")}\n</head>`);
}

/** Starts the app server; resolves once it listens. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const distDir = resolve(options.distDir ?? join(dirname(fileURLToPath(import.meta.url)), "dist"));
  const config = options.config ?? getRuntimeConfigFromEnv(process.env);
  const template = await readFile(join(distDir, "index.html"), "utf8").catch(() => {
    throw new Error(`No build found in ${distDir}: run "npm run build -w apps/web" first`);
  });
  const { buildId } = JSON.parse(await readFile(join(distDir, "build-id.json"), "utf8")) as {
    buildId: string;
  };
  const indexHtml = renderIndexHtml(template, config);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (url.pathname === "/api/build-id") {
      send(res, 200, "application/json", JSON.stringify({ buildId }), "no-store");
      return;
    }
    if (url.pathname === "/config.json") {
      send(res, 200, "application/json", JSON.stringify(config), "no-store");
      return;
    }
    let decodedPath: string;
    try {
      decodedPath = decodeURIComponent(url.pathname);
    } catch {
      send(res, 400, "text/plain; charset=utf-8", "Bad request path", "no-store");
      return;
    }
    const filePath = normalize(join(distDir, decodedPath));
    if (filePath.startsWith(distDir + sep) && url.pathname !== "/index.html") {
      const info = await stat(filePath).catch(() => null);
      if (info?.isFile()) {
        const type = CONTENT_TYPES[extname(filePath)] ?? "application/octet-stream";
        const immutable = url.pathname.startsWith("/assets/");
        send(
          res,
          200,
          type,
          await readFile(filePath),
          immutable ? "public, max-age=31536000, immutable" : "no-cache",
        );
        return;
      }
      if (extname(url.pathname) !== "") {
        send(res, 404, "text/plain; charset=utf-8", "Not found", "no-store");
        return;
      }
    }
    // Single-page app: every other path renders the shell.
    send(res, 200, CONTENT_TYPES[".html"]!, indexHtml, "no-cache");
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error("web server error", error);
      if (!res.headersSent) send(res, 500, "text/plain; charset=utf-8", "Internal Server Error", "no-store");
    });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? "127.0.0.1";
  return {
    url: `http://${host}:${port}`,
    port,
    buildId,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  cacheControl: string,
): void {
  res.writeHead(status, { "content-type": contentType, "cache-control": cacheControl });
  res.end(res.req.method === "HEAD" ? undefined : body);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const server = await startWebServer({
    port: Number(process.env.PORT ?? 3000),
    host: process.env.HOST ?? "127.0.0.1",
    distDir: process.env.CISTERN_WEB_DIST_DIR,
  });
  console.log(`Cistern web on ${server.url} (build ${server.buildId})`);
}
