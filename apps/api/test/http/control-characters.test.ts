import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { Nullable, Pubkey } from "../../src/http/schemas.ts";
import { registerTxRoutes } from "../../src/tx/index.ts";
import { randomAddress } from "../helpers/fixtures.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

type QueryParam = { name: string; in: string; required?: boolean; schema?: { enum?: string[] } };

/** The read side and the write path (calculator, builder, swap venue GETs) in one app, as `npm start` runs it. */
describe("control characters in query strings", () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let routes: { path: string; params: QueryParam[] }[] = [];
  const known = randomAddress();
  const warnings: string[] = [];

  beforeAll(async () => {
    for (const method of ["warn", "error", "log"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        warnings.push(args.map(String).join(" "));
      });
    }
    t = await createTestDatabase("pglite");
    const env = {
      LOG_LEVEL: "silent",
      DATA_DIR: mkdtempSync(join(tmpdir(), "cistern-control-")),
      SOLANA_RPC_URL: "http://127.0.0.1:9",
      LENDING_PROGRAM_ID: "Cistern1111111111111111111111111111111111111",
      INDEXER: "off",
    };
    app = await createApp(loadConfig(env), { db: t.db, now: () => 1_800_000_000 });
    await registerTxRoutes(app, { env });
    // a response with an address inside anyOf: fast-json-stringify checks such a branch with an Ajv of its own
    app.get(
      "/test/nullable-address",
      { schema: { hide: true, response: { 200: Type.Object({ a: Nullable(Pubkey) }) } } },
      async () => ({ a: known }),
    );
    await app.ready();
    const doc = (await app.inject({ method: "GET", url: "/docs/json" })).json() as {
      paths: Record<string, { get?: { parameters?: QueryParam[] } }>;
    };
    routes = Object.entries(doc.paths)
      .filter(([, item]) => item.get !== undefined)
      .map(([path, item]) => ({
        path,
        params: (item.get?.parameters ?? []).filter((p) => p.in === "query"),
      }));
  }, 60_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    await app?.close();
    await t?.drop();
  });

  /** The other required parameters of a route with acceptable values, so only `name` is wrong. */
  function others(params: QueryParam[], name: string): string {
    return params
      .filter((p) => p.name !== name && p.required)
      .map((p) => `&${p.name}=${p.schema?.enum?.[0] ?? known}`)
      .join("");
  }

  it("answers 400 naming the key, never 5xx, on every GET route for each query key it declares", async () => {
    let checked = 0;
    expect(routes.map((r) => r.path)).toEqual(
      expect.arrayContaining(["/user/search-users-chat", "/defi/liquidity", "/loan/user", "/dirty/pools"]),
    );
    for (const route of routes) {
      for (const param of route.params) {
        for (const bad of ["%00", "ab%00cd", "%01", "%1F", "%7F", "%C2%85", "x%0Ay", "%09"]) {
          const url = `${route.path}?${param.name}=${bad}${others(route.params, param.name)}`;
          const response = await app.inject({ method: "GET", url });
          expect(response.statusCode, `${url} -> ${response.body}`).toBe(400);
          expect(response.json(), url).toMatchObject({
            code: 4400,
            message: `querystring.${param.name} must not contain control characters`,
            params: { field: `querystring.${param.name}` },
          });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("names a key that itself holds a control character, escaped, and refuses a repeated key's bad value", async () => {
    const key = await app.inject({ method: "GET", url: `/user/search-users-chat?query=a&q%00x=1` });
    expect([key.statusCode, key.json().message]).toEqual([
      400,
      "querystring.q\\u0000x must not contain control characters",
    ]);
    const repeated = await app.inject({
      method: "GET",
      url: `/user/multiple-users?pubkeys=${known}&pubkeys=${known}%00`,
    });
    expect([repeated.statusCode, repeated.json().message]).toEqual([
      400,
      "querystring.pubkeys must not contain control characters",
    ]);
  });

  it("still answers the chat search, including a name with spaces and accents", async () => {
    const response = await app.inject({ method: "GET", url: "/user/search-users-chat?query=caf%C3%A9%20au" });
    expect([response.statusCode, response.json()]).toEqual([200, []]);
  });

  it("lets a GraphQL document sent with GET keep its line breaks, but not a NUL", async () => {
    const ok = await app.inject({ method: "GET", url: "/graphql?query=%7B%0A%20%20__typename%0A%7D" });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ data: { __typename: "Query" } });
    const nul = await app.inject({ method: "GET", url: "/graphql?query=%7B__typename%00%7D" });
    expect(nul.statusCode).toBe(400);
  });

  it("serialises an address inside anyOf without Ajv's 'unknown format' warning", async () => {
    const response = await app.inject({ method: "GET", url: "/test/nullable-address" });
    expect(response.json()).toEqual({ a: known });
    expect(warnings.filter((w) => w.includes("unknown format"))).toEqual([]);
  });
});
