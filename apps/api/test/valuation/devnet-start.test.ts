import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEMO_WORLD } from "@cistern/localnet";
import { findBankPda, findPoolPda } from "@cistern/sdk";
import type { Address } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../helpers/http-server.ts";
import {
  buildSignSend,
  fundedWallet,
  SOL_MINT,
  startTxWorld,
  TEST_POOL_LIMITS,
  type TxWorld,
  USDC_MINT,
} from "../tx/support/tx-world.ts";

const REPO = resolve(import.meta.dirname, "../../../..");
const SOL_FEED = "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d";
const USDC_FEED = "eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * `SOLANA_CLUSTER=devnet npm start` (the API alone: --no-web) against a local RPC holding the lending program and a
 * pool, with a catalogue file naming the pool's collection and the currencies, Pyth's Hermes, Magic Eden and Tensor
 * answered by local servers in their shapes: collections, currencies, quotes and pools are served.
 */
describe("SOLANA_CLUSTER=devnet npm start values from the production adapters", () => {
  let w: TxWorld;
  let child: ChildProcess | undefined;
  let api = "";
  let pool: Address;
  const dir = mkdtempSync(join(tmpdir(), "cistern-devnet-start-"));
  const closers: (() => Promise<void>)[] = [];
  const collection = DEMO_WORLD.collections[0]!;
  let output = "";

  beforeAll(async () => {
    w = await startTxWorld();
    const lender = (await fundedWallet(w.net)).signer;
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "5000000000",
        mint: USDC_MINT,
        seed: "1",
        param: {
          apr: 2000,
          limits: TEST_POOL_LIMITS,
          collections: [{ collection: collection.collectionId, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(created.sent.result).not.toBeNull();
    [pool] = await findPoolPda(w.programId, lender.address, 1n);

    const hermes = await startHttpServer((_req, res) => {
      const at = Math.floor(Date.now() / 1000) - 1;
      const entry = (id: string, price: string, conf: string) => ({
        id,
        price: { price, conf, expo: -8, publish_time: at },
        ema_price: { price, conf, expo: -8, publish_time: at },
        metadata: { slot: 1, proof_available_time: at, prev_publish_time: at - 1 },
      });
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          binary: { encoding: "hex", data: [] },
          parsed: [entry(SOL_FEED, "15000000000", "5000000"), entry(USDC_FEED, "100000000", "10000")],
        }),
      );
    });
    const magicEden = await startHttpServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ symbol: "cistern_otters", floorPrice: 12_500_000_000, listedCount: 20 }));
    });
    const tensor = await startHttpServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          collId: "c0ffee",
          slug: "cisternotters",
          stats: { buyNowPrice: "12400000000", sellNowPrice: "11000000000", numListed: 18 },
        }),
      );
    });
    closers.push(hermes.close, magicEden.close, tensor.close);
    const catalogFile = join(dir, "devnet-catalogue.json");
    writeFileSync(
      catalogFile,
      JSON.stringify({
        tokens: [
          {
            mint: USDC_MINT,
            symbol: "USDC",
            name: "USD Coin",
            decimals: 6,
            role: "currency",
            pythFeedId: `0x${USDC_FEED}`,
          },
          {
            mint: SOL_MINT,
            symbol: "SOL",
            name: "Wrapped SOL",
            decimals: 9,
            role: "currency",
            pythFeedId: `0x${SOL_FEED}`,
          },
        ],
        collections: [
          {
            collectionId: collection.collectionId,
            name: collection.name,
            symbol: collection.symbol,
            standard: "NonFungible",
            magicEdenSlug: "cistern_otters",
            tensorSlug: "cisternotters",
          },
        ],
      }),
    );
    const port = await freePort();
    child = spawn(process.execPath, ["--import", "tsx", join(REPO, "scripts/start.ts"), "--no-web"], {
      cwd: REPO,
      env: {
        ...process.env,
        SOLANA_CLUSTER: "devnet",
        SOLANA_RPC_URL: w.net.rpcUrl,
        SOLANA_WS_URL: w.net.wsUrl,
        LENDING_PROGRAM_ID: w.programId,
        ORACLE_KEYPAIR_PATH: join(w.dataDir, "keys", "oracle.json"),
        DATA_DIR: join(dir, "data"),
        API_PORT: String(port),
        LOG_LEVEL: "warn",
        CATALOG_FILE: catalogFile,
        PRICE_API_URL: hermes.url,
        MAGIC_EDEN_API_URL: magicEden.url,
        MAGIC_EDEN_API_KEY: "me-key",
        TENSOR_API_URL: tensor.url,
        TENSOR_API_KEY: "tensor-key",
        DATABASE_URL: "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => {
      output += String(d);
    });
    child.stderr!.on("data", (d) => {
      output += String(d);
    });
    const started = Date.now();
    while (!output.includes("Cistern is running against devnet")) {
      if (child.exitCode !== null || Date.now() - started > 120_000)
        throw new Error(`devnet start failed:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    api = `http://127.0.0.1:${port}`;
  }, 240_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child!.once("exit", r));
    }
    for (const c of closers) await c();
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string) => (await fetch(`${api}${path}`)).json() as Promise<unknown>;

  it("prints the catalogue and the production sources it values with", () => {
    expect(output).toContain("catalogue       ");
    expect(output).toContain("prices          Pyth http://127.0.0.1");
  });

  it("serves the catalogue's collections with their slugs and the marketplaces' value", async () => {
    // min(Tensor's 12.4 SOL, Magic Eden's 12.5 SOL) under 125% of the 11 SOL best bid
    await expect
      .poll(
        async () =>
          ((await get("/collection/collections")) as { floorPrice: string | null }[])[0]?.floorPrice,
        {
          timeout: 20_000,
        },
      )
      .toBe("12400000000");
    const [c] = (await get("/collection/collections")) as {
      collectionId: string;
      metadata: { collectionName: string; thumbnail: string; magicEdenSlug: string; tensorSlug: string };
      isLocked: boolean;
    }[];
    // the file names no image: the collection NFT's, from DAS (the local RPC serves it)
    expect(c!.metadata.thumbnail).toBe(collection.image);
    expect(c).toMatchObject({
      collectionId: collection.collectionId,
      metadata: {
        collectionName: collection.name,
        magicEdenSlug: "cistern_otters",
        tensorSlug: "cisternotters",
      },
    });
  });

  it("serves the currencies and their Pyth prices", async () => {
    const currencies = (await get("/currency/currencies")) as Record<
      string,
      { metadata: { symbol: string } }
    >;
    expect(
      Object.values(currencies)
        .map((c) => c.metadata.symbol)
        .sort(),
    ).toEqual(["SOL", "USDC"]);
    const { prices } = (await get("/prices")) as { prices: Record<string, { price: number }> };
    expect(prices[SOL_MINT]?.price).toBe(150);
    expect(prices[USDC_MINT]?.price).toBe(1);
  });

  it("serves the pool and quotes a loan on the collection's value", async () => {
    await expect
      .poll(async () => JSON.stringify(await get("/dirty/pools")).includes(pool), { timeout: 30_000 })
      .toBe(true);
    const r = await fetch(`${api}/nft/quote`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ collection: collection.collectionId, duration: 7 * 86_400 }),
    });
    const body = (await r.json()) as Record<string, unknown>;
    expect(r.status, JSON.stringify(body)).toBe(200);
    // 12.4 SOL x 150 USD / 1 USD = 1,860 USDC; LTV 50%
    expect(body).toMatchObject({ pool, collateralValue: "1860000000", maxBorrowAmount: "930000000" });
  });
});
