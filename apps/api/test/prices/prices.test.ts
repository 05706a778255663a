import { afterEach, describe, expect, it } from "vitest";
import { createHttpPriceSource } from "../../src/prices/http-price-source.ts";
import {
  createLocalPriceSource,
  getLocalDriftBps,
  LOCAL_PRICE_DRIFT_PERIOD_SECONDS,
} from "../../src/prices/local-price-source.ts";
import { createPriceService } from "../../src/prices/price-service.ts";
import { formatUsdNanos, parseUsdNanos } from "../../src/prices/price-source.ts";
import { startHttpServer } from "../helpers/http-server.ts";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SOL = "So11111111111111111111111111111111111111112";
const silent = { warn: () => undefined };

describe("USD price text", () => {
  it("round-trips decimal strings through nano-USD", () => {
    expect(parseUsdNanos("150")).toBe(150_000_000_000n);
    expect(parseUsdNanos("0.00002")).toBe(20_000n);
    expect(formatUsdNanos(151_500_000_000n)).toBe("151.5");
    expect(() => parseUsdNanos("-1")).toThrow();
    expect(() => parseUsdNanos("1e5")).toThrow();
  });
});

describe("local price source", () => {
  const seeds = async () => [
    { mint: USDC, priceUsd: "1" },
    { mint: SOL, priceUsd: "150" },
  ];

  it("drifts at most 1% around the seeded price, deterministically in time", async () => {
    for (let t = 0; t < LOCAL_PRICE_DRIFT_PERIOD_SECONDS; t += 97) {
      const drift = getLocalDriftBps(SOL, t);
      expect(drift).toBeGreaterThanOrEqual(-100n);
      expect(drift).toBeLessThanOrEqual(100n);
    }
    const at = (t: number) => createLocalPriceSource(seeds, () => t).fetchPrices([]);
    const a = await at(1_700_000_000);
    const b = await at(1_700_000_000);
    expect([...a]).toEqual([...b]);
    const sol = Number(a.get(SOL));
    expect(sol).toBeGreaterThanOrEqual(148.5);
    expect(sol).toBeLessThanOrEqual(151.5);
    // A quarter period later the drift has moved.
    const later = await at(1_700_000_000 + LOCAL_PRICE_DRIFT_PERIOD_SECONDS / 4);
    expect(later.get(SOL)).not.toBe(a.get(SOL));
  });

  it("answers only the mints asked for", async () => {
    const prices = await createLocalPriceSource(seeds, () => 0).fetchPrices([USDC]);
    expect([...prices.keys()]).toEqual([USDC]);
  });
});

describe("HTTP price source against a local price API", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it("asks for the mints and reads {data: {mint: {price}}} with number or string prices", async () => {
    const server = await startHttpServer((req, res) => {
      const ids = new URL(req.url!, "http://x").searchParams.get("ids")?.split(",") ?? [];
      const data: Record<string, { price: number | string } | null> = {};
      if (ids.includes(SOL)) data[SOL] = { price: 151.25 };
      if (ids.includes(USDC)) data[USDC] = { price: "0.9999" };
      data.bogus = { price: "NaN" };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ data }));
    });
    close = server.close;
    const prices = await createHttpPriceSource(`${server.url}/price`).fetchPrices([SOL, USDC]);
    expect(Object.fromEntries(prices)).toEqual({ [SOL]: "151.25", [USDC]: "0.9999" });
    expect(server.requests[0]).toBe(`GET /price?ids=${encodeURIComponent(`${SOL},${USDC}`)}`);
  });

  it("fails with an upstream error on a bad status, and the service keeps the last good prices", async () => {
    let healthy = true;
    const server = await startHttpServer((_req, res) => {
      if (!healthy) {
        res.statusCode = 503;
        res.end("down");
        return;
      }
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ prices: { [SOL]: { price: 140 } } }));
    });
    close = server.close;
    const source = createHttpPriceSource(server.url);
    const service = createPriceService(source, async () => [SOL], silent);
    await service.refresh();
    expect(service.getPrices().get(SOL)).toBe("140");
    healthy = false;
    await expect(source.fetchPrices([SOL])).rejects.toMatchObject({ code: 11000 });
    await service.refresh();
    expect(service.getPrices().get(SOL)).toBe("140");
  });

  it("retries a rate limit (honouring Retry-After) and a server error before answering", async () => {
    const failures = [429, 502];
    const server = await startHttpServer((_req, res) => {
      const status = failures.shift();
      if (status !== undefined) {
        res.statusCode = status;
        if (status === 429) res.setHeader("retry-after", "1");
        res.end("busy");
        return;
      }
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ data: { [SOL]: { price: 150 } } }));
    });
    close = server.close;
    const started = Date.now();
    const prices = await createHttpPriceSource(server.url, 30_000, { backoffMs: 5 }).fetchPrices([SOL]);
    expect(prices.get(SOL)).toBe("150");
    expect(server.requests).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });
});
