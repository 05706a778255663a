// @vitest-environment node
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebServer, type WebServer } from "../server.ts";
import { getRuntimeConfigFromEnv, parseRuntimeConfig } from "../src/config/runtime-config.ts";

let dir: string;
let server: WebServer;
const referrer = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cistern-web-server-"));
  await writeFile(
    join(dir, "index.html"),
    "<!doctype html><html><head><title>t</title></head><body></body></html>",
  );
  await writeFile(join(dir, "build-id.json"), JSON.stringify({ buildId: "build-42" }));
  await writeFile(join(dir, "app.js"), "console.log(1)");
  server = await startWebServer({
    port: 0,
    distDir: dir,
    config: getRuntimeConfigFromEnv({
      CISTERN_WEB_API_URL: "http://api.test",
      CISTERN_WEB_RPC_URL: "http://rpc.test:8899",
      CISTERN_WEB_CLUSTER: "devnet",
      CISTERN_WEB_SWAP_PLUGIN_SCRIPT_URL: "https://cdn.test/swap.js",
      CISTERN_WEB_REFERRAL_NAMES: `alice=${referrer}`,
    }),
  });
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("web server", () => {
  it("answers GET /api/build-id with the build's id", async () => {
    const response = await fetch(`${server.url}/api/build-id`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ buildId: "build-42" });
  });

  it("serves the runtime config from the environment on /config.json", async () => {
    const config = await (await fetch(`${server.url}/config.json`)).json();
    expect(config).toEqual({
      apiUrl: "http://api.test",
      rpcUrl: "http://rpc.test:8899",
      cluster: "devnet",
      analyticsUrl: null,
      swapPluginScriptUrl: "https://cdn.test/swap.js",
      sessionRecordingScriptUrl: null,
      referralNames: { alice: referrer },
      walletExplanationUrl: null,
      supportUrl: null,
      walletModalTheme: null,
    });
  });

  it("inlines the config and the swap plugin script (before the app) into every page", async () => {
    for (const path of ["/", "/pools/some-pool"]) {
      const html = await (await fetch(`${server.url}${path}`)).text();
      expect(html).toContain(
        '<script id="cistern-config" type="application/json">{"apiUrl":"http://api.test"',
      );
      expect(html).toContain('<script src="https://cdn.test/swap.js" data-swap-plugin></script>\n</head>');
    }
  });

  it("serves static files, 404s missing assets and refuses path traversal", async () => {
    expect(await (await fetch(`${server.url}/app.js`)).text()).toBe("console.log(1)");
    expect((await fetch(`${server.url}/missing.js`)).status).toBe(404);
    const traversal = await fetch(`${server.url}/..%2f..%2fetc%2fpasswd`);
    expect(await traversal.text()).not.toContain("root:");
    expect((await fetch(`${server.url}/`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${server.url}/%E0%A4%A`)).status).toBe(400);
  });

  it("leaves the swap plugin out when it is not configured", async () => {
    const other = await startWebServer({ port: 0, distDir: dir, config: parseRuntimeConfig({}) });
    try {
      const html = await (await fetch(other.url)).text();
      expect(html).not.toContain("data-swap-plugin");
    } finally {
      await other.close();
    }
  });

  it("rejects invalid config", () => {
    expect(() => parseRuntimeConfig({ cluster: "testnet" })).toThrow(
      "config.cluster must be one of localnet, devnet, mainnet",
    );
    expect(() => parseRuntimeConfig({ apiUrl: "nope" })).toThrow("config.apiUrl is not a valid URL: nope");
    expect(() => parseRuntimeConfig({ walletModalTheme: "neon" })).toThrow(
      "config.walletModalTheme must be light, dark or jupiter",
    );
    expect(parseRuntimeConfig({ walletModalTheme: "jupiter" }).walletModalTheme).toBe("jupiter");
  });
});
