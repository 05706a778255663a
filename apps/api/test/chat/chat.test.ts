import {
  CHAT_MESSAGE_MAX_CHARS,
  type ChatCredential,
  getDirectRoomId,
  getLoanRoomId,
  USDC_MINT,
} from "@cistern/protocol";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureLoanRoom, postSystemMessage } from "../../src/chat/chat-store.ts";
import { createChatTimeline, describeLoanEvent } from "../../src/chat/chat-timeline.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";
import {
  type ChatWallet,
  collectMessages,
  eventually,
  gql,
  insertLoan,
  newWallet,
  signIn,
  socketClient,
} from "./chat-helpers.ts";

const LOAN = "Lo4n111111111111111111111111111111111111111";
const NOW = Math.floor(Date.now() / 1000);

describe.each(ENGINES)("loan chat over GraphQL (%s)", (engine) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let url: string;
  let borrower: ChatWallet;
  let lender: ChatWallet;
  let stranger: ChatWallet;
  let asBorrower: ChatCredential;
  let asLender: ChatCredential;
  let asStranger: ChatCredential;
  const room = getLoanRoomId(LOAN);

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    ({ app } = await createTestApp(t.db, {
      catalog: makeCatalog("C0llection1111111111111111111111111111111111"),
    }));
    url = await app.listen({ host: "127.0.0.1", port: 0 });
    [borrower, lender, stranger] = await Promise.all([newWallet(), newWallet(), newWallet()]);
    await insertLoan(t.db, {
      pubkey: LOAN,
      borrower: borrower.address,
      lender: lender.address,
      currency: USDC_MINT,
      principal: 100_000_000n,
      aprBps: 1250,
      createdAt: NOW - 3600,
      duration: 7 * 86_400,
    });
    [asBorrower, asLender, asStranger] = await Promise.all([
      signIn(url, borrower),
      signIn(url, lender),
      signIn(url, stranger),
    ]);
  }, 30_000);

  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  it("issues the spec's sign-in message with a nonce and an expiry, and accepts its signature for the session", async () => {
    expect(asBorrower.message.split("\n")[0]).toBe(`Access Cistern chat as ${borrower.address}`);
    expect(asBorrower.message).toMatch(/\nNonce: [0-9a-f]{32}\nExpires: /);
    const me = await gql(url, "{ me { userId } }", {}, asBorrower);
    expect(me.data).toEqual({ me: { userId: borrower.address } });
    // the cached credential keeps working (a page reload) until the session ends
    const again = await gql(url, "{ me { userId } }", {}, asBorrower);
    expect(again.data).toEqual({ me: { userId: borrower.address } });
  });

  it("refuses a missing, altered or foreign credential with a coded error", async () => {
    const none = await gql(url, "{ rooms { id } }");
    expect(none.errors?.[0]?.extensions?.code).toBe(8101);
    const altered = { ...asLender, message: asLender.message.replace("Nonce: ", "Nonce: 0") };
    const r1 = await gql(url, "{ rooms { id } }", {}, altered);
    expect(r1.errors?.[0]?.extensions?.code).toBe(8102); // the signature no longer matches
    const stolen = { ...asLender, userId: borrower.address };
    const r2 = await gql(url, "{ rooms { id } }", {}, stolen);
    expect(r2.errors?.[0]?.extensions?.code).toBe(8101);
    const badSignature = { ...asLender, signature: asBorrower.signature };
    const r3 = await gql(url, "{ rooms { id } }", {}, badSignature);
    expect(r3.errors?.[0]?.extensions).toMatchObject({ code: 8102, name: "CHAT_CREDENTIAL_REFUSED" });
    expect(r3.errors?.[0]?.message).toMatch(/sign in again/);
  });

  it("closes a websocket without a valid credential with 4403, as graphql-ws does", async () => {
    for (const params of [undefined, { ...asLender, signature: asBorrower.signature }]) {
      let closed: number | undefined;
      const client = socketClient(url, params, (code) => {
        closed = code;
      });
      await eventually(() => closed !== undefined);
      expect(closed).toBe(4403);
      await client.dispose();
    }
  });

  it("lets the borrower and the lender talk in the loan's room in real time; a third wallet cannot read it", async () => {
    const lenderSocket = socketClient(url, { ...asLender });
    const inbox = collectMessages(lenderSocket, room);
    await inbox.ready;
    const sent = await gql<{ sendMessage: { id: string; text: string; sender: { userId: string } } }>(
      url,
      "mutation($r: ID!, $t: String!) { sendMessage(roomId: $r, text: $t) { id text sender { userId } } }",
      { r: room, t: "  Hi, can I extend next week? <b>bold?</b>  " },
      asBorrower,
    );
    expect(sent.data?.sendMessage.text).toBe("Hi, can I extend next week? <b>bold?</b>");
    expect(sent.data?.sendMessage.sender.userId).toBe(borrower.address);
    await eventually(() => inbox.received.length === 1);
    expect(inbox.received[0]).toMatchObject({
      roomId: room,
      text: "Hi, can I extend next week? <b>bold?</b>",
    });

    const strangerRead = await gql(
      url,
      "query($r: ID!) { messages(roomId: $r) { messages { text } } }",
      { r: room },
      asStranger,
    );
    expect(strangerRead.data).toBeNull();
    expect(strangerRead.errors?.[0]?.extensions?.code).toBe(8104);
    const strangerSend = await gql(
      url,
      'mutation($r: ID!) { sendMessage(roomId: $r, text: "let me in") { id } }',
      { r: room },
      asStranger,
    );
    expect(strangerSend.errors?.[0]?.extensions?.code).toBe(8104);
    const strangerSocket = socketClient(url, { ...asStranger });
    const spy = collectMessages(strangerSocket, room);
    await eventually(() => spy.errors.length > 0);
    const everything = collectMessages(strangerSocket);
    await everything.ready;
    await gql(
      url,
      'mutation($r: ID!) { sendMessage(roomId: $r, text: "secret") { id } }',
      { r: room },
      asLender,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(everything.received).toEqual([]);
    const [{ n }] = (await t.db.query<{ n: unknown }>(
      "SELECT count(*) AS n FROM chat_messages WHERE sender = $1",
      [stranger.address],
    )) as [{ n: unknown }];
    expect(Number(n)).toBe(0);
    await Promise.all([lenderSocket.dispose(), strangerSocket.dispose()]);
  });

  it("counts unread messages per room and clears them when read; history pages newest first", async () => {
    const rooms = await gql<{
      rooms: { id: string; unread: number; peer: { userId: string } }[];
      unreadTotal: number;
    }>(url, "{ rooms { id unread peer { userId } } unreadTotal }", {}, asBorrower);
    const loanRoom = rooms.data!.rooms.find((r) => r.id === room)!;
    expect(loanRoom.peer.userId).toBe(lender.address);
    expect(loanRoom.unread).toBe(1); // the lender's "secret"
    expect(rooms.data!.unreadTotal).toBe(1);
    await gql(url, "mutation($r: ID!) { markRead(roomId: $r) { unread } }", { r: room }, asBorrower);
    const after = await gql<{ unreadTotal: number }>(url, "{ unreadTotal }", {}, asBorrower);
    expect(after.data!.unreadTotal).toBe(0);

    const page1 = await gql<{ messages: { messages: { id: string; text: string }[]; hasMore: boolean } }>(
      url,
      "query($r: ID!) { messages(roomId: $r, limit: 1) { messages { id text } hasMore } }",
      { r: room },
      asBorrower,
    );
    expect(page1.data!.messages.messages.map((m) => m.text)).toEqual(["secret"]);
    expect(page1.data!.messages.hasMore).toBe(true);
    const page2 = await gql<{ messages: { messages: { text: string }[]; hasMore: boolean } }>(
      url,
      "query($r: ID!, $b: ID) { messages(roomId: $r, before: $b, limit: 1) { messages { text } hasMore } }",
      { r: room, b: page1.data!.messages.messages[0]!.id },
      asBorrower,
    );
    expect(page2.data!.messages.messages.map((m) => m.text)).toEqual([
      "Hi, can I extend next week? <b>bold?</b>",
    ]);
  });

  it("counts only people's messages as unread, never system messages (loan events)", async () => {
    const loan = "Lo4n222222222222222222222222222222222222222";
    await insertLoan(t.db, {
      pubkey: loan,
      borrower: borrower.address,
      lender: lender.address,
      currency: USDC_MINT,
      principal: 20_000_000n,
      aprBps: 1250,
      createdAt: NOW - 3600,
      duration: 7 * 86_400,
    });
    const view = (await ensureLoanRoom(t.db, loan))!;
    const unread = async () =>
      (
        await gql<{ rooms: { id: string; unread: number }[]; unreadTotal: number }>(
          url,
          "{ rooms { id unread } unreadTotal }",
          {},
          asBorrower,
        )
      ).data!;
    const before = (await unread()).unreadTotal;
    expect(await postSystemMessage(t.db, view, "unread-test", "Loan extended.", Date.now())).not.toBe(null);
    expect((await unread()).unreadTotal).toBe(before);
    expect((await unread()).rooms.find((r) => r.id === view.id)?.unread ?? 0).toBe(0);
    // the lender's word does count
    await gql(
      url,
      "mutation($r: ID!, $t: String!) { sendMessage(roomId: $r, text: $t) { id } }",
      { r: view.id, t: "see you" },
      asLender,
    );
    expect((await unread()).unreadTotal).toBe(before + 1);
    expect((await unread()).rooms.find((r) => r.id === view.id)!.unread).toBe(1);
    await gql(url, "mutation($r: ID!) { markRead(roomId: $r) { unread } }", { r: view.id }, asBorrower);
    // the timeline test below writes one loan's events: this loan leaves the index again
    await t.db.query("DELETE FROM loans WHERE pubkey = $1", [loan]);
  });

  it("refuses bad messages with a clear error and writes nothing", async () => {
    const [{ n: before }] = (await t.db.query<{ n: unknown }>("SELECT count(*) AS n FROM chat_messages")) as [
      { n: unknown },
    ];
    const send = (text: string, roomId = room) =>
      gql(
        url,
        "mutation($r: ID!, $t: String!) { sendMessage(roomId: $r, text: $t) { id } }",
        { r: roomId, t: text },
        asLender,
      );
    expect((await send("   ")).errors?.[0]?.extensions?.code).toBe(8105);
    const long = await send("x".repeat(CHAT_MESSAGE_MAX_CHARS + 1));
    expect(long.errors?.[0]).toMatchObject({
      message: `A message can have at most ${CHAT_MESSAGE_MAX_CHARS} characters.`,
      extensions: { code: 8106 },
    });
    expect((await send("bell\u0007")).errors?.[0]?.extensions?.code).toBe(8109);
    expect(
      (await send("hello", "loan:Unkn0wn1111111111111111111111111111111")).errors?.[0]?.extensions?.code,
    ).toBe(8103);
    expect((await send("hello", "not-a-room")).errors?.[0]?.extensions?.code).toBe(8103);
    const others = getDirectRoomId(borrower.address, stranger.address);
    expect((await send("hello", others)).errors?.[0]?.extensions?.code).toBe(8104);
    const [{ n: after }] = (await t.db.query<{ n: unknown }>("SELECT count(*) AS n FROM chat_messages")) as [
      { n: unknown },
    ];
    expect(Number(after)).toBe(Number(before));
  });

  it("limits a wallet to 5 messages per 10 seconds across the API", async () => {
    const dm = await gql<{ openDirectRoom: { id: string } }>(
      url,
      "mutation($w: String!) { openDirectRoom(wallet: $w) { id } }",
      { w: lender.address },
      asStranger,
    );
    const roomId = dm.data!.openDirectRoom.id;
    expect(roomId).toBe(getDirectRoomId(stranger.address, lender.address));
    const results = [];
    for (let i = 0; i < 6; i++)
      results.push(
        await gql(
          url,
          "mutation($r: ID!, $t: String!) { sendMessage(roomId: $r, text: $t) { id } }",
          { r: roomId, t: `m${i}` },
          asStranger,
        ),
      );
    expect(results.slice(0, 5).every((r) => r.errors === undefined)).toBe(true);
    expect(results[5]!.errors?.[0]?.extensions?.code).toBe(8107);
    const self = await gql(
      url,
      "mutation($w: String!) { openDirectRoom(wallet: $w) { id } }",
      { w: stranger.address },
      asStranger,
    );
    expect(self.errors?.[0]?.extensions?.code).toBe(8108);
  });

  it("answers the chat users routes from the stored messages", async () => {
    const top = await app.inject({ method: "GET", url: "/user/top-users-chat?limit=2" });
    expect(top.json()[0]).toMatchObject({ userId: stranger.address, messages: 5 });
    const search = await app.inject({
      method: "GET",
      url: `/user/search-users-chat?query=${lender.address.slice(0, 6)}`,
    });
    expect(search.json().map((u: { userId: string }) => u.userId)).toContain(lender.address);
  });

  it("writes the loan's timeline as system messages, once each", async () => {
    let chainNow = NOW;
    const timeline = createChatTimeline(t.db, async () => chainNow, app.log);
    expect((await timeline.round()).posted).toBe(1);
    expect((await timeline.round()).posted).toBe(0);
    chainNow = NOW - 3600 + 7 * 86_400 - 3600; // an hour before expiry
    expect((await timeline.round()).posted).toBe(1);
    chainNow = NOW - 3600 + 7 * 86_400 + 7 * 3600 + 1; // past expiry + 7 h grace
    expect((await timeline.round()).posted).toBe(1);
    expect((await timeline.round()).posted).toBe(0);
    const page = await gql<{ messages: { messages: { text: string; sender: null | object }[] } }>(
      url,
      "query($r: ID!) { messages(roomId: $r, limit: 3) { messages { text sender { userId } } } }",
      { r: room },
      asLender,
    );
    const texts = page.data!.messages.messages.map((m) => m.text);
    expect(texts[2]).toMatch(
      /^Loan taken: 100 USDC for 7d at 12\.5% APR\. Due \d+ \w+ \d{4}, \d\d:\d\d UTC\.$/,
    );
    expect(texts[1]).toMatch(/^Due in less than 24 hours: repay by/);
    expect(texts[0]).toBe("Past due and past the grace period: the lender may now liquidate this loan.");
    expect(page.data!.messages.messages.every((m) => m.sender === null)).toBe(true);

    // the loan is repaid (the indexer writes its event): one more system message, in currency units
    await t.db.query("UPDATE loans SET status = 'Repaid', repaid_amount = 100240000 WHERE pubkey = $1", [
      LOAN,
    ]);
    await t.db.query(
      `INSERT INTO loan_activity (loan, kind, at, slot, pool, borrower, lender, currency, collection, amount)
       VALUES ($1, 'repaid', $2, 2, 'pool', $3, $4, $5, 'collection', 100240000)`,
      [LOAN, NOW, borrower.address, lender.address, USDC_MINT],
    );
    expect((await timeline.round()).posted).toBe(1);
    const last = await gql<{ messages: { messages: { text: string }[] } }>(
      url,
      "query($r: ID!) { messages(roomId: $r, limit: 1) { messages { text } } }",
      { r: room },
      asBorrower,
    );
    expect(last.data!.messages.messages[0]!.text).toBe(
      "Loan repaid: 100.24 USDC paid back; the collateral is back with the borrower.",
    );
  });

  it("says what happened in plain words for every loan event", () => {
    const loan = {
      pubkey: LOAN,
      borrower: "b",
      currency: USDC_MINT,
      principal: "2500000000",
      repaid_amount: "0",
      apr_bps: 1000,
      duration: 14 * 86_400,
      created_at: 1_800_000_000,
      expired_at: 1_800_000_000 + 14 * 86_400,
      status: "Ongoing",
    };
    expect(describeLoanEvent("taken", loan)).toBe(
      "Loan taken: 2,500 USDC for 14d at 10% APR. Due 29 Jan 2027, 08:00 UTC.",
    );
    expect(describeLoanEvent("liquidated", loan)).toBe("Loan liquidated: the collateral went to the lender.");
    expect(describeLoanEvent("extended", loan)).toBe(
      "Loan extended: it was repaid into a new loan with new terms.",
    );
    expect(describeLoanEvent("sold", loan)).toBe("Collateral sold: the loan was repaid from the sale.");
    expect(describeLoanEvent("due-soon", loan)).toBe(
      "Due in less than 24 hours: repay by 29 Jan 2027, 08:00 UTC to keep the collateral.",
    );
  });
});
