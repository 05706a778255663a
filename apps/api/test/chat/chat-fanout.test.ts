import { getLoanRoomId, USDC_MINT } from "@cistern/protocol";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { openPostgresDatabase } from "../../src/db/postgres-database.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";
import {
  collectMessages,
  eventually,
  gql,
  insertLoan,
  newWallet,
  signIn,
  socketClient,
} from "./chat-helpers.ts";

// Two API processes over one PostgreSQL (each app has its own pool and LISTEN connection, as two processes do).
let t: TestDatabase;
let secondDb: Database;
let apps: FastifyInstance[];
let urls: string[];
const LOAN = "FanoutLoan111111111111111111111111111111111";

beforeAll(async () => {
  t = await createTestDatabase("postgres");
  secondDb = await openPostgresDatabase(t.url!);
  const catalog = makeCatalog("C0llection1111111111111111111111111111111111");
  apps = [(await createTestApp(t.db, { catalog })).app, (await createTestApp(secondDb, { catalog })).app];
  urls = await Promise.all(apps.map((a) => a.listen({ host: "127.0.0.1", port: 0 })));
}, 30_000);

afterAll(async () => {
  for (const a of apps) await a.close();
  await secondDb.close();
  await t.drop();
});

it("a message sent to one API process reaches a subscriber on another, through LISTEN/NOTIFY", async () => {
  const [borrower, lender] = await Promise.all([newWallet(), newWallet()]);
  await insertLoan(t.db, {
    pubkey: LOAN,
    borrower: borrower.address,
    lender: lender.address,
    currency: USDC_MINT,
    principal: 5_000_000n,
    aprBps: 900,
    createdAt: Math.floor(Date.now() / 1000),
    duration: 86_400,
  });
  // each signs in on a different process: the session is shared through the database
  const asBorrower = await signIn(urls[0]!, borrower);
  const asLender = await signIn(urls[1]!, lender);
  const lenderSocket = socketClient(urls[1]!, { ...asLender });
  const inbox = collectMessages(lenderSocket);
  await inbox.ready;
  const sent = await gql(
    urls[0]!,
    "mutation($r: ID!, $t: String!) { sendMessage(roomId: $r, text: $t) { id } }",
    { r: getLoanRoomId(LOAN), t: "sent to process A" },
    asBorrower,
  );
  expect(sent.errors).toBeUndefined();
  await eventually(() => inbox.received.length === 1);
  expect(inbox.received[0]).toMatchObject({ roomId: getLoanRoomId(LOAN), text: "sent to process A" });
  // the credential signed on process A is accepted by process B too
  const me = await gql(urls[1]!, "{ me { userId } }", {}, asBorrower);
  expect(me.data).toEqual({ me: { userId: borrower.address } });
  await lenderSocket.dispose();
});
