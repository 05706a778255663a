import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SIGNED_LINK_MESSAGE } from "@cistern/protocol";
import { generateKeyPairSigner, getBase58Decoder, type KeyPairSigner, signBytes } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import type { Database } from "../../src/db/database.ts";
import { openPostgresDatabase } from "../../src/db/postgres-database.ts";
import {
  createSignedMessageStore,
  SIGNED_MESSAGE_TTL_SECONDS,
} from "../../src/tx/auth/signed-message-store.ts";
import type { TxContext } from "../../src/tx/index.ts";
import { registerTxRoutes } from "../../src/tx/index.ts";
import { createLiquidationKeeper, KEEPER_LOCK_KEY } from "../../src/tx/keeper/liquidation-keeper.ts";
import { createIssuedMessageStore } from "../../src/tx/sender/issued-messages.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

const NOW = 1_800_000_000;

/** An API process (app with the write routes) over `db`, whose clock reads `clock.now`. */
async function apiProcess(db: Database, clock: { now: number }): Promise<FastifyInstance> {
  const env = {
    LOG_LEVEL: "silent",
    DATA_DIR: mkdtempSync(join(tmpdir(), "cistern-signed-")),
    SOLANA_RPC_URL: "http://127.0.0.1:9",
    LENDING_PROGRAM_ID: "Cistern1111111111111111111111111111111111111",
    INDEXER: "off",
  };
  const app = await createApp(loadConfig(env), { db, now: () => clock.now });
  await registerTxRoutes(app, { env });
  await app.ready();
  return app;
}

async function post(app: FastifyInstance, url: string, payload: unknown) {
  const r = await app.inject({ method: "POST", url, payload: payload as object });
  return { status: r.statusCode, body: r.json() as Record<string, unknown> };
}

/** Asks `app` for the link message of `wallet` and signs it with `signer`. */
async function signedLink(app: FastifyInstance, wallet: string, signer: KeyPairSigner) {
  const issued = await post(app, "/user/link-message", { wallet });
  expect(issued.status).toBe(200);
  const message = issued.body.message as string;
  const bytes = await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(message));
  return { message, signature: getBase58Decoder().decode(bytes) };
}

describe.each(ENGINES)("signed link messages (%s)", (engine) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  const clock = { now: NOW };
  let wallet: KeyPairSigner;

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    app = await apiProcess(t.db, clock);
    wallet = await generateKeyPairSigner();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it("issues the spec's message with the wallet, a nonce and an expiry, and accepts its signature once", async () => {
    const link = await signedLink(app, wallet.address, wallet);
    expect(link.message.split("\n")).toEqual([
      SIGNED_LINK_MESSAGE,
      `Wallet: ${wallet.address}`,
      expect.stringMatching(/^Nonce: [0-9a-f]{32}$/),
      `Expires: ${new Date((NOW + SIGNED_MESSAGE_TTL_SECONDS) * 1000).toISOString()}`,
    ]);
    const ok = await post(app, "/user/update", { pubkey: wallet.address, ...link, username: "first" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const replay = await post(app, "/user/update", { pubkey: wallet.address, ...link, username: "replayed" });
    expect([replay.status, replay.body.code]).toEqual([409, 11005]);
    const [profile] = await t.db.query<{ username: string }>(
      "SELECT username FROM user_profiles WHERE pubkey = $1",
      [wallet.address],
    );
    expect(profile?.username).toBe("first");
  });

  it("refuses an expired message, another wallet's signature, an altered message and a made-up nonce", async () => {
    const expired = await signedLink(app, wallet.address, wallet);
    clock.now = NOW + SIGNED_MESSAGE_TTL_SECONDS + 1;
    const late = await post(app, "/user/update", { pubkey: wallet.address, ...expired, username: "late" });
    expect([late.status, late.body.code, late.body.message]).toEqual([
      400,
      11004,
      expect.stringMatching(/expired/),
    ]);
    clock.now = NOW;

    const other = await generateKeyPairSigner();
    const foreign = await signedLink(app, wallet.address, other);
    const stolen = await post(app, "/user/update", { pubkey: wallet.address, ...foreign, username: "x" });
    expect([stolen.status, stolen.body.code]).toEqual([400, 11003]);
    // the same message is still good for its wallet: a refused signature does not use it up
    const mine = await signedLink(app, wallet.address, wallet);
    const forOther = await post(app, "/user/update", { pubkey: other.address, ...mine, username: "x" });
    expect(forOther.status).toBe(400);

    const altered = mine.message.replace("update your metadata", "update everything");
    expect(altered).not.toBe(mine.message);
    const signature = getBase58Decoder().decode(
      await signBytes(wallet.keyPair.privateKey, new TextEncoder().encode(altered)),
    );
    const changed = await post(app, "/user/update", { pubkey: wallet.address, message: altered, signature });
    expect([changed.status, changed.body.code]).toEqual([400, 11004]);

    const madeUp = mine.message.replace(/Nonce: [0-9a-f]{32}/, `Nonce: ${"ab".repeat(16)}`);
    const madeUpSig = getBase58Decoder().decode(
      await signBytes(wallet.keyPair.privateKey, new TextEncoder().encode(madeUp)),
    );
    const unknown = await post(app, "/user/update", {
      pubkey: wallet.address,
      message: madeUp,
      signature: madeUpSig,
    });
    expect([unknown.status, unknown.body.code]).toEqual([400, 11004]);
    const noNonce = await post(app, "/user/update", {
      pubkey: wallet.address,
      message: SIGNED_LINK_MESSAGE,
      signature: madeUpSig,
    });
    expect(noNonce.status).toBe(400);
  });

  it("shows the stored profile in /user/user and /user/multiple-users, null for a wallet without one", async () => {
    const link = await signedLink(app, wallet.address, wallet);
    const set = await post(app, "/user/update", {
      pubkey: wallet.address,
      ...link,
      username: "Ada",
      image: "",
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const stranger = (await generateKeyPairSigner()).address;
    const one = await app.inject({ url: `/user/user?pubkey=${wallet.address}` });
    expect(one.json()).toEqual({
      pubkey: wallet.address,
      userId: wallet.address,
      profile: { username: "Ada", image: "" },
    });
    const many = await app.inject({ url: `/user/multiple-users?pubkeys=${stranger},${wallet.address}` });
    expect(many.json()).toEqual([
      { pubkey: stranger, userId: stranger, profile: null },
      { pubkey: wallet.address, userId: wallet.address, profile: { username: "Ada", image: "" } },
    ]);
  });

  it("refuses a message issued for another purpose (a chat login is not a link)", async () => {
    const store = createSignedMessageStore(t.db);
    const chat = await store.issue({
      wallet: wallet.address,
      purpose: "chat-login",
      firstLine: `Access Cistern chat as ${wallet.address}`,
      nowSeconds: NOW,
    });
    const signature = getBase58Decoder().decode(
      await signBytes(wallet.keyPair.privateKey, new TextEncoder().encode(chat.message)),
    );
    const r = await post(app, "/user/update", { pubkey: wallet.address, message: chat.message, signature });
    expect([r.status, r.body.message]).toEqual([400, "this message was issued for another purpose"]);
  });
});

describe("two API processes over one PostgreSQL database", () => {
  let t: TestDatabase;
  let secondDb: Database;
  let a: FastifyInstance;
  let b: FastifyInstance;
  const clock = { now: NOW };

  beforeAll(async () => {
    t = await createTestDatabase("postgres");
    secondDb = await openPostgresDatabase(t.url!);
    a = await apiProcess(t.db, clock);
    b = await apiProcess(secondDb, clock);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await secondDb?.close();
    await t?.drop();
  });

  it("accept a link message issued by the other exactly once, even when both receive it at once", async () => {
    const wallet = await generateKeyPairSigner();
    const link = await signedLink(a, wallet.address, wallet);
    const first = await post(b, "/user/update", { pubkey: wallet.address, ...link, username: "via b" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await post(a, "/user/update", { pubkey: wallet.address, ...link })).status).toBe(409);
    expect((await post(b, "/user/update", { pubkey: wallet.address, ...link })).status).toBe(409);

    const race = await signedLink(b, wallet.address, wallet);
    const answers = await Promise.all([
      post(a, "/user/update", { pubkey: wallet.address, ...race, username: "a" }),
      post(b, "/user/update", { pubkey: wallet.address, ...race, username: "b" }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it("share the builder's issued transactions: built by one, co-signed once by either", async () => {
    const storeA = createIssuedMessageStore(t.db);
    const storeB = createIssuedMessageStore(secondDb);
    const message = new Uint8Array([9, 8, 7, 6]);
    await storeA.remember(message, { kind: "NormalCoSigned", needsOracle: true, lastValidBlockHeight: 500 });
    expect(await storeB.lookup(message)).toEqual({
      kind: "NormalCoSigned",
      needsOracle: true,
      lastValidBlockHeight: 500,
    });
    expect(await storeB.lookup(new Uint8Array([9, 8, 7, 5]))).toBeUndefined();
    const claims = await Promise.all([storeA.claimCosign(message, NOW), storeB.claimCosign(message, NOW)]);
    expect(claims.sort()).toEqual([false, true]);
    await storeB.prune(500);
    expect(await storeA.count()).toBe(1);
    await storeA.prune(501);
    expect(await storeB.count()).toBe(0);
  });

  it("claims co-signatures asked at once in one UPDATE, each message once, none expired or not needing the oracle", async () => {
    let updates = 0;
    const counting = {
      query: (sql: string, params?: readonly unknown[]) => {
        if (sql.includes("UPDATE issued_transactions")) updates++;
        return t.db.query(sql, params as never);
      },
    };
    const store = createIssuedMessageStore(counting as never);
    const messages = Array.from({ length: 30 }, (_, i) => new Uint8Array([201, i, 2]));
    const plain = new Uint8Array([201, 99, 3]);
    await Promise.all([
      ...messages.map((m, i) =>
        store.remember(m, { kind: "NormalCoSigned", needsOracle: true, lastValidBlockHeight: 900 + i }),
      ),
      store.remember(plain, { kind: "Normal", needsOracle: false, lastValidBlockHeight: 950 }),
    ]);
    const claims = await Promise.all([
      ...messages.map((m) => store.claimCosignUntil(m, NOW, 910)),
      store.claimCosignUntil(messages[20]!, NOW, 910),
      store.claimCosignUntil(plain, NOW, 910),
    ]);
    // expired before height 910: messages 0-9; the same message twice: the first caller only; no oracle: none
    expect(claims.slice(0, 30)).toEqual(messages.map((_, i) => (i >= 10 ? 900 + i : undefined)));
    expect(claims.slice(30)).toEqual([undefined, undefined]);
    expect(updates).toBeLessThanOrEqual(2);
    // claimed once for good
    expect(await store.claimCosignUntil(messages[25]!, NOW, 910)).toBeUndefined();
    expect(await store.claimCosign(messages[25]!, NOW)).toBe(false);
  });

  it("stores messages remembered at once in a few INSERTs, every one of them", async () => {
    let inserts = 0;
    const counting = {
      query: (sql: string, params?: readonly unknown[]) => {
        if (sql.includes("INSERT INTO issued_transactions")) inserts++;
        return t.db.query(sql, params as never);
      },
    };
    const store = createIssuedMessageStore(counting as never);
    const messages = Array.from({ length: 40 }, (_, i) => new Uint8Array([200, i, 1]));
    await Promise.all(
      messages.map((m) =>
        store.remember(m, { kind: "Normal", needsOracle: false, lastValidBlockHeight: 900 }),
      ),
    );
    expect(inserts).toBeLessThan(messages.length);
    for (const m of messages) expect((await store.lookup(m))?.lastValidBlockHeight).toBe(900);
    await store.prune(901);
  });

  it("let one of them lead the liquidation keeper; the other's rounds do nothing", async () => {
    const signer = await generateKeyPairSigner();
    const log = { info: () => undefined, warn: () => undefined };
    const keeperB = createLiquidationKeeper({ app: { db: secondDb } } as unknown as TxContext, signer, log);
    expect(await t.db.tryAdvisoryLock(KEEPER_LOCK_KEY)).toBe(true);
    expect(await keeperB.runRound()).toEqual({
      leader: false,
      liquidated: [],
      failed: [],
      migration: { migrated: [], failed: [] },
      fees: { collected: [], failed: [] },
    });
  });
});
