import { generateKeyPairSigner, getBase58Decoder, type KeyPairSigner, signBytes } from "@solana/kit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LINKED_ADDRESSES } from "../../src/users/address-links.ts";
import { randomAddress } from "../helpers/fixtures.ts";
import { createTestApp, makeCatalog } from "../helpers/test-app.ts";
import { createTestDatabase, ENGINES, type TestDatabase } from "../helpers/test-database.ts";

const NOW = 1_800_000_000;

async function sign(signer: KeyPairSigner, message: string): Promise<string> {
  return getBase58Decoder().decode(
    await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(message)),
  );
}

describe.each(ENGINES)("linked wallets: /user/user-addresses and the signed link routes (%s)", (engine) => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let user: KeyPairSigner;
  let phone: KeyPairSigner;
  let ledger: KeyPairSigner;
  let stranger: KeyPairSigner;

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    app = (await createTestApp(t.db, { catalog: makeCatalog(randomAddress()), now: NOW })).app;
    await app.ready();
    [user, phone, ledger, stranger] = (await Promise.all(
      Array.from({ length: 4 }, () => generateKeyPairSigner()),
    )) as [KeyPairSigner, KeyPairSigner, KeyPairSigner, KeyPairSigner];
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const post = async (url: string, payload: object) => {
    const r = await app.inject({ method: "POST", url, payload });
    return { status: r.statusCode, body: r.json() };
  };
  const addresses = async (pubkey: string) =>
    (await app.inject({ method: "GET", url: `/user/user-addresses?pubkey=${pubkey}` })).json();

  /** Both messages issued, each signed by `signers` (the user's and the wallet's by default). */
  async function linkRequest(
    u: string,
    a: string,
    signers: { user: KeyPairSigner; address: KeyPairSigner },
  ): Promise<Record<string, string>> {
    const issued = await post("/user/address-link-message", { user: u, address: a });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const userMessage = issued.body.userMessage.message as string;
    const addressMessage = issued.body.addressMessage.message as string;
    return {
      user: u,
      address: a,
      userMessage,
      userSignature: await sign(signers.user, userMessage),
      addressMessage,
      addressSignature: await sign(signers.address, addressMessage),
    };
  }

  it("answers a wallet with no links as a user of one wallet, nothing linked", async () => {
    expect(await addresses(user.address)).toEqual({
      pubkey: user.address,
      user: user.address,
      addresses: [user.address],
      linked: [],
    });
  });

  it("links a wallet when both wallets sign a message naming the pair, and lists it from either side", async () => {
    const issued = await post("/user/address-link-message", { user: user.address, address: phone.address });
    expect(issued.status).toBe(200);
    for (const [key, wallet] of [
      ["userMessage", user.address],
      ["addressMessage", phone.address],
    ] as const) {
      expect(issued.body[key].message.split("\n")).toEqual([
        `Link the wallet ${phone.address} to the Cistern user ${user.address}`,
        `Wallet: ${wallet}`,
        expect.stringMatching(/^Nonce: [0-9a-f]{32}$/),
        expect.stringMatching(/^Expires: /),
      ]);
    }
    const request = await linkRequest(user.address, phone.address, { user, address: phone });
    const linked = await post("/user/link-address", request);
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    const expected = {
      user: user.address,
      addresses: [user.address, phone.address],
      linked: [{ address: phone.address, linkedAt: NOW }],
    };
    expect(linked.body).toEqual({ pubkey: user.address, ...expected });
    expect(await addresses(user.address)).toEqual({ pubkey: user.address, ...expected });
    expect(await addresses(phone.address)).toEqual({ pubkey: phone.address, ...expected });
    // the signed messages were used once
    const replay = await post("/user/link-address", request);
    expect(replay.status).toBe(422);
    expect(replay.body.message).toBe(`${phone.address} is already linked to ${user.address}`);
  });

  it("refuses a link the wallet to link did not sign, or that the user did not sign, and uses up nothing", async () => {
    const forged = await linkRequest(user.address, ledger.address, { user, address: stranger });
    const noWallet = await post("/user/link-address", forged);
    expect([noWallet.status, noWallet.body.code, noWallet.body.message]).toEqual([
      400,
      11003,
      `addressSignature is not ${ledger.address}'s signature of addressMessage`,
    ]);
    const byStranger = await linkRequest(user.address, ledger.address, { user: stranger, address: ledger });
    const noUser = await post("/user/link-address", byStranger);
    expect([noUser.status, noUser.body.code]).toEqual([400, 11003]);
    // the wallet's own signature was checked but not used up: with the user's real signature the link is made
    const fixed = await post("/user/link-address", {
      ...byStranger,
      userSignature: await sign(user, byStranger.userMessage!),
    });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    // the user's own wallet first; links of the same second (the test clock stands still) by address
    expect(fixed.body.addresses).toEqual([user.address, ...[phone.address, ledger.address].sort()]);
  });

  it("refuses messages for another pair, a wallet linked elsewhere, chains and linking to oneself", async () => {
    const other = await generateKeyPairSigner();
    const forOther = await linkRequest(user.address, other.address, { user, address: other });
    // the messages name `other`: they cannot link the stranger
    const swapped = await post("/user/link-address", { ...forOther, address: stranger.address });
    expect([swapped.status, swapped.body.params]).toEqual([400, { field: "body.userMessage" }]);
    expect(swapped.body.message).toContain(
      `must start with "Link the wallet ${stranger.address} to the Cistern user ${user.address}"`,
    );
    const elsewhere = await post("/user/address-link-message", {
      user: stranger.address,
      address: phone.address,
    });
    expect([elsewhere.status, elsewhere.body.message]).toEqual([
      422,
      `${phone.address} is linked to the user ${user.address}: unlink it there first`,
    ]);
    const chain = await post("/user/address-link-message", {
      user: phone.address,
      address: stranger.address,
    });
    expect([chain.status, chain.body.message]).toEqual([
      422,
      `${phone.address} is itself a wallet linked to the user ${user.address}: link ${stranger.address} to that user`,
    ]);
    const hasLinks = await post("/user/address-link-message", {
      user: stranger.address,
      address: user.address,
    });
    expect([hasLinks.status, hasLinks.body.message]).toEqual([
      422,
      `${user.address} has wallets linked to it: a linked wallet cannot have links of its own`,
    ]);
    const self = await post("/user/address-link-message", { user: user.address, address: user.address });
    expect([self.status, self.body.message]).toEqual([400, "address must be another wallet than user"]);
    const badKey = await post("/user/address-link-message", { user: user.address, address: "nope" });
    expect(badKey.status).toBe(400);
    expect(badKey.body.message).toContain("address");
  });

  it("ends a link on the signature of the linked wallet itself or of the user, never of a stranger", async () => {
    const byStranger = await post("/user/address-unlink-message", {
      user: user.address,
      address: phone.address,
      signer: stranger.address,
    });
    expect([byStranger.status, byStranger.body.message]).toEqual([
      400,
      "signer must be the user or the linked wallet",
    ]);
    const issued = await post("/user/address-unlink-message", {
      user: user.address,
      address: phone.address,
      signer: phone.address,
    });
    expect(issued.status).toBe(200);
    expect(issued.body.message.split("\n")[0]).toBe(
      `Unlink the wallet ${phone.address} from the Cistern user ${user.address}`,
    );
    const wrongKey = await post("/user/unlink-address", {
      user: user.address,
      address: phone.address,
      signer: phone.address,
      message: issued.body.message,
      signature: await sign(stranger, issued.body.message),
    });
    expect([wrongKey.status, wrongKey.body.code]).toEqual([400, 11003]);
    const done = await post("/user/unlink-address", {
      user: user.address,
      address: phone.address,
      signer: phone.address,
      message: issued.body.message,
      signature: await sign(phone, issued.body.message),
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.addresses).toEqual([user.address, ledger.address]);
    expect(await addresses(phone.address)).toEqual({
      pubkey: phone.address,
      user: phone.address,
      addresses: [phone.address],
      linked: [],
    });
    const again = await post("/user/address-unlink-message", {
      user: user.address,
      address: phone.address,
      signer: user.address,
    });
    expect([again.status, again.body.message]).toEqual([
      422,
      `${phone.address} is not linked to the user ${user.address}`,
    ]);

    const byUser = await post("/user/address-unlink-message", {
      user: user.address,
      address: ledger.address,
      signer: user.address,
    });
    const ended = await post("/user/unlink-address", {
      user: user.address,
      address: ledger.address,
      signer: user.address,
      message: byUser.body.message,
      signature: await sign(user, byUser.body.message),
    });
    expect(ended.body.linked).toEqual([]);
    // a link message is not an unlink message, even signed by the right wallet
    const link = await linkRequest(user.address, phone.address, { user, address: phone });
    await post("/user/link-address", link);
    const misuse = await post("/user/unlink-address", {
      user: user.address,
      address: phone.address,
      signer: user.address,
      message: link.userMessage,
      signature: link.userSignature,
    });
    expect([misuse.status, misuse.body.params]).toEqual([400, { field: "body.message" }]);
  });

  it(`keeps a user to ${MAX_LINKED_ADDRESSES} linked wallets`, async () => {
    const owner = await generateKeyPairSigner();
    const now = NOW;
    for (let i = 0; i < MAX_LINKED_ADDRESSES; i++)
      await t.db.query("INSERT INTO user_addresses (address, user_pubkey, linked_at) VALUES ($1, $2, $3)", [
        randomAddress(),
        owner.address,
        now + i,
      ]);
    const full = await post("/user/address-link-message", { user: owner.address, address: stranger.address });
    expect([full.status, full.body.message]).toEqual([
      422,
      `${owner.address} already has ${MAX_LINKED_ADDRESSES} linked wallets: unlink one first`,
    ]);
    expect((await addresses(owner.address)).addresses).toHaveLength(MAX_LINKED_ADDRESSES + 1);
  });
});
