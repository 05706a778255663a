import { USDC_MINT } from "@cistern/protocol";
import { getBase58Decoder, signBytes } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertLoan, newWallet } from "../chat/chat-helpers.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

const LOAN = "Ca1endarLoan1111111111111111111111111111111";

describe("per-wallet calendar feed", () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let wallet: Awaited<ReturnType<typeof newWallet>>;

  const feed = async () => {
    const issued = await app.inject({
      method: "POST",
      url: "/calendar/feed-message",
      payload: { wallet: wallet.address },
    });
    const message = issued.json().message as string;
    const signature = getBase58Decoder().decode(
      await signBytes(wallet.signer.keyPair.privateKey, new TextEncoder().encode(message)),
    );
    return { message, signature };
  };

  beforeAll(async () => {
    t = await createTestDatabase("pglite");
    ({ app } = await createTestApp(t.db, {
      catalog: makeCatalog("C0llection1111111111111111111111111111111111"),
    }));
    wallet = await newWallet();
    await insertLoan(t.db, {
      pubkey: LOAN,
      borrower: wallet.address,
      lender: (await newWallet()).address,
      currency: USDC_MINT,
      principal: 50_000_000n,
      aprBps: 1000,
      createdAt: 1_800_000_000,
      duration: 3 * 86_400,
    });
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  it("issues a private feed URL for the wallet's signature and serves its loans' due dates and grace ends", async () => {
    const signed = await feed();
    expect(signed.message.split("\n")[0]).toBe(`Create the Cistern loan calendar of ${wallet.address}`);
    const r = await app.inject({
      method: "POST",
      url: "/calendar/feed",
      payload: { wallet: wallet.address, ...signed },
    });
    expect(r.statusCode, r.body).toBe(200);
    const { path } = r.json() as { path: string };
    expect(path).toMatch(/^\/calendar\/[A-Za-z0-9_-]{32}\.ics$/);
    const ics = await app.inject({ method: "GET", url: path });
    expect(ics.statusCode).toBe(200);
    expect(ics.headers["content-type"]).toMatch(/^text\/calendar/);
    expect(ics.body.startsWith("BEGIN:VCALENDAR")).toBe(true);
    // due 3 days after 1_800_000_000, grace 3 hours later
    expect(ics.body).toContain("DTSTART:20270118T080000Z");
    expect(ics.body).toContain("DTSTART:20270118T110000Z");
    expect(ics.body).toContain("SUMMARY:Cistern loan due: 50 USDC against an NFT");
    // the same signature cannot mint a second feed, and a new feed revokes the old URL
    const replay = await app.inject({
      method: "POST",
      url: "/calendar/feed",
      payload: { wallet: wallet.address, ...signed },
    });
    expect(replay.statusCode).toBe(409);
    const again = await app.inject({
      method: "POST",
      url: "/calendar/feed",
      payload: { wallet: wallet.address, ...(await feed()) },
    });
    expect(again.json().path).not.toBe(path);
    expect((await app.inject({ method: "GET", url: path })).statusCode).toBe(404);
  });

  it("refuses another wallet's signature, and unknown or malformed feed addresses", async () => {
    const other = await newWallet();
    const signed = await feed();
    const r = await app.inject({
      method: "POST",
      url: "/calendar/feed",
      payload: { wallet: other.address, ...signed },
    });
    expect(r.statusCode).toBe(400);
    expect((await app.inject({ method: "GET", url: `/calendar/${"a".repeat(32)}.ics` })).statusCode).toBe(
      404,
    );
    expect((await app.inject({ method: "GET", url: "/calendar/short.ics" })).statusCode).toBe(400);
  });
});
