import fc from "fast-check";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesOf, makeBank, makeLoan, makePool, randomAddress } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

describe("every GET route under random query strings", () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let routes: { path: string; params: string[] }[] = [];
  const known = randomAddress();

  beforeAll(async () => {
    t = await createTestDatabase("pglite");
    const bankKey = randomAddress();
    const bank = makeBank({ owner: known });
    const poolKey = randomAddress();
    const pool = makePool(bankKey, bank);
    const built = await createTestApp(t.db, { catalog: makeCatalog(pool.collections[0]!.id) });
    app = built.app;
    await built.indexer.applyAccount(bankKey, bytesOf.bank(bank), 1);
    await built.indexer.applyAccount(poolKey, bytesOf.pool(pool), 1);
    await built.indexer.applyAccount(
      randomAddress(),
      bytesOf.loan(makeLoan(poolKey, pool, { borrower: known })),
      2,
    );
    const doc = (await app.inject({ method: "GET", url: "/docs/json" })).json() as {
      paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }>;
    };
    routes = Object.entries(doc.paths)
      .filter(([, item]) => item.get !== undefined)
      .map(([path, item]) => ({
        path,
        params: (item.get?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      }));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it("documents the spec's main API routes", () => {
    const paths = routes.map((r) => r.path);
    for (const path of [
      "/loan/user",
      "/loan/pool",
      "/loan/collection",
      "/loan/loans-by-currency",
      "/loan/loan-analytics",
      "/loan/latest-activity",
      "/loan/stats-per-collection",
      "/loan/stats-total",
      "/loan/borrower-stats",
      "/loan/stats-per-user",
      "/loan/volume-stats",
      "/dirty/activity-by-lender",
      "/dirty/activity-by-user",
      "/dirty/historical-apys",
      "/dirty/lender-profit",
      "/dirty/pools-whitelist",
      "/dirty/pools-metadata",
      "/dirty/authorization",
      "/dirty/pools",
      "/dirty/stats-per-lender",
      "/dirty/chain-performance",
      "/dirty/ohlc",
      "/dirty/top-users",
      "/dirty/collateralized-amount-by-user",
      "/tvl",
      "/marginfi/bank",
      "/pool/pool",
      "/pool/get-by-owner",
      "/bank/bank",
      "/bank/user",
      "/liquidity/liabilities",
      "/user/user",
      "/user/top-users-chat",
      "/user/search-users-chat",
      "/user/multiple-users",
      "/user/user-addresses",
      "/user/user-droplets",
      "/asset/assets",
      "/asset/tokens",
      "/asset/asset",
      "/collection/collections",
      "/collection/collection",
      "/currency/currency",
      "/currency/currencies",
      "/prices",
    ]) {
      expect(paths, path).toContain(path);
    }
  });

  it("answers 400 with a clear message to base58 strings that are not 32-byte addresses", async () => {
    const withAddress = routes.filter((r) => r.params.includes("pubkey") || r.params.includes("owner"));
    expect(withAddress.length).toBeGreaterThan(2);
    for (const bad of ["z".repeat(44), "1".repeat(44)]) {
      for (const route of withAddress) {
        const name = route.params.includes("pubkey") ? "pubkey" : "owner";
        const url = `${route.path}?${name}=${bad}`;
        const response = await app.inject({ method: "GET", url });
        expect(response.statusCode, `${url} -> ${response.body}`).toBe(400);
        expect(response.json().message, url).toMatch(/is not a valid address \(base58 of 32 bytes\)/);
      }
    }
  });

  it("answers 400 naming the parameter to non-finite, fractional or huge numbers in every numeric query parameter", async () => {
    const doc = (await app.inject({ method: "GET", url: "/docs/json" })).json() as {
      paths: Record<
        string,
        {
          get?: {
            parameters?: {
              name: string;
              in: string;
              required?: boolean;
              schema?: { type?: string; enum?: string[] };
            }[];
          };
        }
      >;
    };
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      const params = (item.get?.parameters ?? []).filter((p) => p.in === "query");
      const numeric = params.filter((p) => p.schema?.type === "integer" || p.schema?.type === "number");
      for (const param of numeric) {
        const others = params
          .filter((p) => p.name !== param.name && p.required)
          .map((p) => `&${p.name}=${p.schema?.enum?.[0] ?? known}`)
          .join("");
        for (const bad of ["Infinity", "-Infinity", "1e309", "NaN", "1.5", "9007199254740993", "1e9"]) {
          const url = `${path}?${param.name}=${bad}${others}`;
          const response = await app.inject({ method: "GET", url });
          expect(response.statusCode, `${url} -> ${response.body}`).toBe(400);
          expect(response.json().message, url).toContain(param.name);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("never answers 5xx, and every error is {code, message}", async () => {
    const value = fc.oneof(
      fc.constant(known),
      fc.constant(randomAddress()),
      fc.string({ maxLength: 60 }),
      fc.integer().map(String),
      fc.constantFrom(
        "",
        "-1",
        "0",
        "1e9",
        "1e309",
        "Infinity",
        "-Infinity",
        "1.5",
        "9007199254740993",
        "NaN",
        "null",
        "[]",
        "%00",
        "%ZZ",
        "ongoing",
        "nft-pool",
        "all",
        "hour",
        // Base58 of the right length that does not decode to 32 bytes (once a 500 from address()).
        "z".repeat(44),
        "1".repeat(44),
        "1".repeat(32),
      ),
      fc.string({ unit: "grapheme", maxLength: 20 }),
      fc.constant("x".repeat(5000)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 1000 }),
        fc.array(
          fc.tuple(
            fc.oneof(fc.constantFrom("limit", "offset", "days", "x"), fc.string({ maxLength: 8 })),
            value,
          ),
          {
            maxLength: 4,
          },
        ),
        fc.array(value, { maxLength: 4 }),
        async (routeIndex, extra, paramValues) => {
          const route = routes[routeIndex % routes.length]!;
          const pairs: [string, string][] = route.params.map((name, i) => [name, paramValues[i] ?? known]);
          const query = [...pairs, ...extra]
            .map(([k, v]) => `${encodeURIComponent(k)}=${v.startsWith("%") ? v : encodeURIComponent(v)}`)
            .join("&");
          const response = await app.inject({ method: "GET", url: `${route.path}?${query}` });
          expect(response.statusCode, `${route.path}?${query} -> ${response.body}`).toBeLessThan(500);
          if (response.statusCode >= 400) {
            const body = response.json();
            expect(typeof body.code).toBe("number");
            expect(typeof body.message).toBe("string");
          }
        },
      ),
      { numRuns: 400 },
    );
  }, 120_000);
});
