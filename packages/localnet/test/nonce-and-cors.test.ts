import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  NONCE_ACCOUNT_LENGTH,
  NonceAccount,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeConnection, rpc, startTestLocalnet } from "./helpers.ts";

describe("durable nonces and CORS", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  let conn: Connection;
  const payer = Keypair.generate();
  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
    conn = new Connection(net.rpcUrl, "confirmed");
    await net.airdrop(payer.publicKey.toBase58(), 5n * BigInt(LAMPORTS_PER_SOL));
  });
  afterAll(async () => {
    closeConnection(conn);
    await net.cleanup();
  });

  it("accepts a transaction whose lifetime is a durable nonce instead of a recent blockhash", async () => {
    const nonce = Keypair.generate();
    await sendAndConfirmTransaction(
      conn,
      new Transaction().add(
        ...SystemProgram.createNonceAccount({
          fromPubkey: payer.publicKey,
          noncePubkey: nonce.publicKey,
          authorizedPubkey: payer.publicKey,
          lamports: await conn.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH),
        }).instructions,
      ),
      [payer, nonce],
    );
    const info = await conn.getAccountInfo(nonce.publicKey);
    const nonceValue = NonceAccount.fromAccountData(info!.data).nonce;
    const to = Keypair.generate().publicKey;
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: nonceValue })
      .add(SystemProgram.nonceAdvance({ noncePubkey: nonce.publicKey, authorizedPubkey: payer.publicKey }))
      .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000_000 }));
    tx.sign(payer);
    const sent = await rpc(net.rpcUrl, "sendTransaction", [
      tx.serialize().toString("base64"),
      { encoding: "base64" },
    ]);
    expect(sent.error).toBeUndefined();
    expect(await conn.getBalance(to)).toBe(1_000_000);
    const after = NonceAccount.fromAccountData((await conn.getAccountInfo(nonce.publicKey))!.data).nonce;
    expect(after).not.toBe(nonceValue);
    // The old nonce value is no longer a valid lifetime.
    const replay = new Transaction({ feePayer: payer.publicKey, recentBlockhash: nonceValue })
      .add(SystemProgram.nonceAdvance({ noncePubkey: nonce.publicKey, authorizedPubkey: payer.publicKey }))
      .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 2_000_000 }));
    replay.sign(payer);
    const stale = await rpc(net.rpcUrl, "sendTransaction", [
      replay.serialize().toString("base64"),
      { encoding: "base64" },
    ]);
    expect(stale.error).toMatchObject({ code: -32002, data: { err: "BlockhashNotFound" } });
  });

  it("answers browser CORS preflights and tags responses", async () => {
    const pre = await fetch(net.rpcUrl, {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "POST" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    const res = await fetch(net.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json", Origin: "http://localhost:5173" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "getHealth" }),
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 7, result: "ok" });
    expect((await fetch(`${net.rpcUrl}/health`)).status).toBe(200);
  });
});
