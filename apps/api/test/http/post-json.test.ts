import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES, isApiError } from "../../src/errors/api-error.ts";
import { getPostJsonCount, postJson } from "../../src/http/post-json.ts";
import { createRpcClient } from "../../src/solana/rpc-client.ts";
import { byCurrencyThenPrice } from "../../src/tx/builder/nft-market-routes.ts";

describe("postJson: the node's JSON-RPC over kept-alive HTTP", () => {
  let server: Server;
  let url = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        if (req.url === "/silent") return; // never answers
        if (req.url === "/junk") return res.end("not json");
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(body).id, result: 42 }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("answers the status and parsed body; junk parses to null", async () => {
    expect(await postJson(`${url}/`, JSON.stringify({ id: 7 }), 1000)).toEqual({
      status: 200,
      body: { jsonrpc: "2.0", id: 7, result: 42 },
    });
    expect((await postJson(`${url}/junk`, "{}", 1000)).body).toBeNull();
  });

  it("counts the POSTs it made (what benchmarks print per request)", async () => {
    const before = getPostJsonCount();
    await postJson(`${url}/`, JSON.stringify({ id: 1 }), 1000);
    await postJson(`${url}/junk`, "{}", 1000);
    expect(getPostJsonCount() - before).toBe(2);
  });

  it("gives up after its timeout with a TimeoutError, and the RPC client says the node is unreachable", async () => {
    await expect(postJson(`${url}/silent`, "{}", 150)).rejects.toMatchObject({ name: "TimeoutError" });
    const client = createRpcClient(`${url}/silent`, 150);
    const error = await client.getSlot().catch((e: unknown) => e);
    expect(isApiError(error, ERROR_CODES.UPSTREAM_FAILED)).toBe(true);
    expect((error as Error).message).toMatch(/RPC getSlot unreachable/);
    // and a bad answer is a bad answer, not a crash
    await expect(createRpcClient(`${url}/junk`).getSlot()).rejects.toThrow(/RPC getSlot failed: bad answer/);
  });
});

describe("mortgage listings order", () => {
  it("groups by currency, then cheapest first (base units of different mints never compared)", () => {
    const listings = [
      { currency: "USDC", price: 5n },
      { currency: "SOL", price: 900n },
      { currency: "USDC", price: 2n },
      { currency: "SOL", price: 100n },
    ];
    expect([...listings].sort(byCurrencyThenPrice)).toEqual([
      { currency: "SOL", price: 100n },
      { currency: "SOL", price: 900n },
      { currency: "USDC", price: 2n },
      { currency: "USDC", price: 5n },
    ]);
  });
});
