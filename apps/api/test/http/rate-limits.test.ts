import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRateLimitedRoute } from "../../src/http/rate-limits.ts";
import { createTestApp, makeCatalog, type TestApp } from "../helpers/test-app.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const COLLECTION = "DMRNzqaFoaoaVmVnzTv4YsCHM8rVUrymgtyv2MYeebsL";

describe("rate limits and body limits", () => {
  let t: TestDatabase;
  let api: TestApp;
  beforeAll(async () => {
    t = await createTestDatabase("pglite");
    api = await createTestApp(t.db, {
      catalog: makeCatalog(COLLECTION),
      env: { RATE_LIMIT_PER_MINUTE: "3", BODY_LIMIT_BYTES: "2048" },
    });
    await api.app.ready();
  });
  afterAll(async () => {
    await api.app.close();
    await t.drop();
  });

  const ask = (ip: string) =>
    api.app.inject({
      method: "POST",
      url: "/calendar/feed-message",
      payload: { wallet: "x" },
      remoteAddress: ip,
    });

  it("answers 429 with Retry-After and a coded body past the limit, per client; reads stay open", async () => {
    for (let i = 0; i < 3; i++) expect((await ask("10.0.0.1")).statusCode).toBe(400);
    const limited = await ask("10.0.0.1");
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.json()).toMatchObject({
      code: 11007,
      name: "RATE_LIMITED",
      message: expect.stringMatching(
        /^Too many requests: at most 3 a minute to this route; try again in \d+ s$/,
      ),
    });
    // another client is not affected, nor are reads
    expect((await ask("10.0.0.2")).statusCode).toBe(400);
    for (let i = 0; i < 5; i++)
      expect(
        (await api.app.inject({ url: "/collection/collections", remoteAddress: "10.0.0.1" })).statusCode,
      ).toBe(200);
  });

  it("refuses a body above the limit with 413, in the API's error shape", async () => {
    const big = await api.app.inject({
      method: "POST",
      url: "/calendar/feed-message",
      payload: { wallet: "x".repeat(4000) },
      remoteAddress: "10.0.0.9",
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ code: 4400, name: "INVALID_INPUT" });
  });

  it("limits every POST and the chat, not the reads", () => {
    expect(isRateLimitedRoute({ method: "POST", url: "/nft/take-loan" })).toBe(true);
    expect(isRateLimitedRoute({ method: ["GET", "POST"], url: "/graphql" })).toBe(true);
    expect(isRateLimitedRoute({ method: "GET", url: "/graphql" })).toBe(true);
    expect(isRateLimitedRoute({ method: "GET", url: "/loan/user" })).toBe(false);
  });
});
