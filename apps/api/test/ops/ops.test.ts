import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveCursor } from "../../src/indexer/store.ts";
import { formatLogLine } from "../../src/ops/pretty-log-stream.ts";
import { createFakeRpc } from "../helpers/fake-rpc.ts";
import { randomAddress } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

describe("operations: /health, /ready, /metrics", () => {
  let t: TestDatabase;
  const programId = randomAddress();
  const fake = createFakeRpc(programId);

  beforeAll(async () => {
    t = await createTestDatabase("pglite");
  });
  afterAll(async () => {
    await t?.drop();
  });

  async function appWith(env: Record<string, string>) {
    const { app } = await createTestApp(t.db, { catalog: makeCatalog(randomAddress()), rpc: fake.rpc, env });
    return app;
  }

  it("is healthy and ready without an indexer; metrics count requests by route", async () => {
    const app = await appWith({});
    expect((await app.inject({ method: "GET", url: "/health" })).json()).toEqual({ ok: true });
    const ready = await app.inject({ method: "GET", url: "/ready" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ready: true, database: "ok", indexer: "not running" });
    await app.inject({ method: "GET", url: "/currency/currencies" });
    const metrics = await app.inject({ method: "GET", url: "/metrics" });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(
      /cistern_http_request_duration_seconds_count\{[^}]*route="\/currency\/currencies"/,
    );
    expect(metrics.body).toContain("cistern_indexer_lag_slots -1");
    await app.close();
  });

  it("reports the indexer's lag and is not ready past the bound", async () => {
    const app = await appWith({ LENDING_PROGRAM_ID: programId, READY_MAX_LAG_SLOTS: "100" });
    await saveCursor(t.db, programId, 1000, null, null);
    fake.setSlot(1050);
    const near = await app.inject({ method: "GET", url: "/ready" });
    expect(near.statusCode).toBe(200);
    expect(near.json()).toMatchObject({ ready: true, indexer: "ok", indexerLagSlots: 50 });
    fake.setSlot(1500);
    const far = await app.inject({ method: "GET", url: "/ready" });
    expect(far.statusCode).toBe(503);
    expect(far.json()).toMatchObject({ ready: false, indexer: "behind by 500 slots (more than 100)" });
    expect((await app.inject({ method: "GET", url: "/metrics" })).body).toContain(
      "cistern_indexer_lag_slots 500",
    );
    await app.close();
  });

  it("refuses a bad READY_MAX_LAG_SLOTS or LOG_FORMAT at start", async () => {
    await expect(appWith({ READY_MAX_LAG_SLOTS: "-1" })).rejects.toThrow(/READY_MAX_LAG_SLOTS/);
    await expect(appWith({ LOG_FORMAT: "xml" })).rejects.toThrow(/LOG_FORMAT/);
  });
});

describe("pretty log lines (LOG_FORMAT=pretty, npm start)", () => {
  it("prints time, level, message, error and extra fields on one line", () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 0, 1, 12, 0, 1),
      pid: 1,
      hostname: "h",
      msg: "price source slow",
      err: { message: "timeout" },
      source: "http",
    });
    expect(formatLogLine(line)).toBe("12:00:01 warn  price source slow — timeout (source=http)");
    expect(formatLogLine("not json")).toBe("not json");
  });
});
