import { createPoolUpdatePayload, USDC_MINT } from "@cistern/protocol";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertNoIgnoredPoolSettings } from "../../src/tx/builder/pool-builder.ts";
import { registerTxRoutes } from "../../src/tx/index.ts";
import { bytesOf, makeBank, makePool, randomAddress } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

/**
 * The lending program has no compounding switch, no liquidation threshold and no liquidation figures: the API
 * refuses them (400 naming the key) before it reads the chain, and its pool answers do not show them.
 */
describe("pool settings the lending program does not have", () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  const owner = randomAddress();
  const collection = randomAddress();
  const bankKey = randomAddress();
  const poolKey = randomAddress();

  beforeAll(async () => {
    t = await createTestDatabase("pglite");
    const built = await createTestApp(t.db, { catalog: makeCatalog(collection) });
    app = built.app;
    await registerTxRoutes(app, {
      env: {
        LENDING_PROGRAM_ID: "Cistern1111111111111111111111111111111111111",
        SOLANA_RPC_URL: "http://127.0.0.1:9",
      },
    });
    await app.ready();
    const bank = makeBank({ owner });
    // bits a pool may hold on chain (written before this release, or by hand with the SDK): read by no instruction
    const pool = makePool(bankKey, bank, {
      flags: { autoSell: true, mortgage: false, compounding: true },
      conditions: {
        isEnabled: true,
        whitelistEnabled: false,
        liquidationThresholdBps: 8000,
        minAgeSeconds: 86_400n,
        minLoanCount: 2n,
        minVolumeMicroUsd: 0n,
        whitelist: null,
      },
    });
    await built.indexer.applyAccount(bankKey, bytesOf.bank(bank), 5);
    await built.indexer.applyAccount(poolKey, bytesOf.pool(pool), 5);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const limits = { minDuration: 86_400, maxDuration: 604_800, maxAmountUsd: 1000, minAmountUsd: 10 };
  const conditions = {
    minAge: "0",
    minLoan: "0",
    minVolume: "0",
    liquidationThreshold: 0,
    isEnabled: 0,
    isWhitelistEnabled: 0,
    whitelist: "11111111111111111111111111111111",
  };
  const update = (extra: { top?: object; param?: object }) => ({
    pool: poolKey,
    owner,
    ...extra.top,
    param: {
      apr: 3000,
      limits,
      conditions,
      liquidation: { isAutoSellEnabled: true, loanLiquidation: 1000, mortgageLiquidation: 2000 },
      collections: [{ collection, collectionLtv: 5000, exposure: 5000 }],
      ...extra.param,
    },
  });
  const post = async (url: string, payload: object) => {
    const r = await app.inject({ method: "POST", url, payload });
    return { status: r.statusCode, body: r.json() };
  };

  it("refuses compounding in any value, at the top or in param, on create and update, naming the key", async () => {
    for (const value of [true, false]) {
      const top = await post("/nft/update-pool", update({ top: { isCompoundInterestEnabled: value } }));
      expect([top.status, top.body.code]).toEqual([400, 4400]);
      expect(top.body.message).toBe(
        "isCompoundInterestEnabled is not a setting: the lending program has no compounding switch: a pool's " +
          "share of repaid interest always goes back into its bank's available liquidity, where it is lent again " +
          "until the owner withdraws it; leave it out",
      );
      const inParam = await post("/defi/update-pool", {
        ...update({ param: { isCompoundInterestEnabled: value } }),
        param: {
          ...update({}).param,
          isCompoundInterestEnabled: value,
          collections: undefined,
          currencies: [{ currency: collection, currencyLtv: 5000, exposure: 5000 }],
        },
      });
      expect([inParam.status, inParam.body.message]).toEqual([
        400,
        expect.stringMatching(/^param\.isCompoundInterestEnabled is not a setting/),
      ]);
    }
    const created = await post("/nft/create-pool", {
      bank: randomAddress(),
      owner,
      amount: "0",
      mint: USDC_MINT,
      isCompoundInterestEnabled: true,
      param: { apr: 3000, limits, collections: [{ collection, collectionLtv: 5000, exposure: 5000 }] },
    });
    expect([created.status, created.body.message]).toEqual([
      400,
      expect.stringMatching(/^isCompoundInterestEnabled is not a setting/),
    ]);
  });

  it("refuses a liquidation threshold other than 0", async () => {
    for (const threshold of [1, 8000, 10_000]) {
      const r = await post(
        "/nft/update-pool",
        update({ param: { conditions: { ...conditions, liquidationThreshold: threshold } } }),
      );
      expect([r.status, r.body.message]).toEqual([
        400,
        "param.conditions.liquidationThreshold must be 0: the lending program has no liquidation threshold " +
          "(no borrower is refused for past liquidations)",
      ]);
    }
  });

  it("refuses liquidation figures other than the spec's fixed 1000 / 2000", async () => {
    for (const [key, value] of [
      ["loanLiquidation", 0],
      ["loanLiquidation", 2000],
      ["mortgageLiquidation", 1000],
      ["mortgageLiquidation", 5000],
    ] as const) {
      const r = await post(
        "/nft/update-pool",
        update({
          param: {
            liquidation: {
              isAutoSellEnabled: true,
              loanLiquidation: 1000,
              mortgageLiquidation: 2000,
              [key]: value,
            },
          },
        }),
      );
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(
        new RegExp(
          `^param\\.liquidation\\.${key} must be ${key === "loanLiquidation" ? 1000 : 2000} \\(the spec's fixed value\\) or left out: the lending program has no such setting`,
        ),
      );
    }
  });

  it("lets the spec's own update payload through (threshold 0, the fixed figures) and goes on to read the chain", async () => {
    const payload = createPoolUpdatePayload({
      type: "nft-pool",
      owner,
      pubkey: poolKey,
      bank: bankKey,
      poolCurrency: USDC_MINT,
      apy: "30",
      loanDuration: "7",
      maxAmountUsd: "1000",
      isAutoSellEnabled: true,
      withConditions: true,
      minAge: "1",
      collections: [{ id: collection, ltv: "50", exposure: "50" }],
    });
    expect(() => assertNoIgnoredPoolSettings(payload)).not.toThrow();
    // past the refusal, the builder reads the pool from the chain (unreachable here: 502, not a 400)
    const r = await post("/nft/update-pool", payload);
    expect(r.status).toBe(502);
  });

  it("does not present compounding or a liquidation threshold in its pool answers", async () => {
    const one = (await app.inject({ method: "GET", url: `/pool/pool?pubkey=${poolKey}` })).json();
    expect(one.pubkey).toBe(poolKey);
    expect(one).not.toHaveProperty("isCompoundingEnabled");
    expect(one.conditions).toEqual({
      isEnabled: true,
      minAge: 86_400,
      minLoan: 2,
      minVolume: 0,
      whitelist: "11111111111111111111111111111111",
    });
    expect(one.liquidation).toEqual({ isAutoSellEnabled: true });
    const listed = (await app.inject({ method: "GET", url: "/dirty/pools" })).json() as {
      pools?: { pubkey: string }[];
    };
    const fromList = (Array.isArray(listed) ? listed : (listed.pools ?? [])).find(
      (p: { pubkey: string }) => p.pubkey === poolKey,
    ) as Record<string, unknown> | undefined;
    expect(fromList).toBeDefined();
    expect(fromList).not.toHaveProperty("isCompoundingEnabled");
    expect(fromList!.conditions).not.toHaveProperty("liquidationThreshold");
  });
});
