import { Keypair, LAMPORTS_PER_SOL, type PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, startTestLocalnet } from "./helpers.ts";

describe("sendBundle: all or none", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  const payer = Keypair.generate();

  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
    await net.airdrop(payer.publicKey.toBase58(), 10n * BigInt(LAMPORTS_PER_SOL));
  });
  afterAll(async () => {
    await net.cleanup();
  });

  const blockhash = async () =>
    ((await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } }).value
      .blockhash;
  const balance = async (key: PublicKey) =>
    ((await rpc(net.rpcUrl, "getBalance", [key.toBase58()])).result as { value: number }).value;

  async function transfer(from: Keypair, to: PublicKey, lamports: number): Promise<{ b64: string }> {
    const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: await blockhash() }).add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }),
    );
    tx.sign(from);
    return { b64: tx.serialize().toString("base64") };
  }
  const send = (txs: { b64: string }[]) =>
    rpc(net.rpcUrl, "sendBundle", [txs.map((t) => t.b64), { encoding: "base64" }]);

  it("runs the transactions in order: the second spends what the first gave", async () => {
    const middle = Keypair.generate();
    const end = Keypair.generate().publicKey;
    const first = await transfer(payer, middle.publicKey, LAMPORTS_PER_SOL);
    const second = await transfer(middle, end, LAMPORTS_PER_SOL / 2);
    const r = await send([first, second]);
    expect(r.error).toBeUndefined();
    expect(r.result).toMatch(/^[0-9a-f]{64}$/);
    expect(await balance(end)).toBe(LAMPORTS_PER_SOL / 2);
    expect(await balance(middle.publicKey)).toBe(LAMPORTS_PER_SOL / 2 - 5000);
  });

  it("changes nothing when a later transaction fails: the earlier one is undone and never recorded", async () => {
    const fresh = Keypair.generate();
    const poor = Keypair.generate();
    await net.airdrop(poor.publicKey.toBase58(), 10_000_000n);
    const payerBefore = await balance(payer.publicKey);
    const first = await transfer(payer, fresh.publicKey, 2_000_000);
    const failing = await transfer(poor, Keypair.generate().publicKey, 5 * LAMPORTS_PER_SOL);
    const r = await send([first, failing]);
    expect(r.error?.message).toMatch(/^Bundle refused: transaction 1 failed: .*nothing was executed/);
    // the account the first transaction created does not exist, the payer paid neither amount nor fee
    expect(await balance(fresh.publicKey)).toBe(0);
    expect((await rpc(net.rpcUrl, "getAccountInfo", [fresh.publicKey.toBase58()])).result).toMatchObject({
      value: null,
    });
    expect(await balance(payer.publicKey)).toBe(payerBefore);
    expect(await balance(poor.publicKey)).toBe(10_000_000);
    expect((await rpc(net.rpcUrl, "getSignaturesForAddress", [fresh.publicKey.toBase58()])).result).toEqual(
      [],
    );
  });

  it("refuses an empty bundle, more than five transactions and a transaction listed twice", async () => {
    expect((await rpc(net.rpcUrl, "sendBundle", [[], { encoding: "base64" }])).error?.message).toMatch(
      /1 to 5/,
    );
    const six = await Promise.all(
      Array.from({ length: 6 }, () => transfer(payer, Keypair.generate().publicKey, 1_000_000)),
    );
    expect((await send(six)).error?.message).toMatch(/max 5/);
    const one = await transfer(payer, Keypair.generate().publicKey, 1_000_000);
    expect((await send([one, one])).error?.message).toMatch(/transaction 1 was already processed/);
  });

  it("keeps a bundle across a restart, as one ledger line", async () => {
    const a = Keypair.generate().publicKey;
    const b = Keypair.generate().publicKey;
    const r = await send([await transfer(payer, a, 3_000_000), await transfer(payer, b, 4_000_000)]);
    expect(r.error).toBeUndefined();
    await net.close();
    const { startLocalnet } = await import("../src/index.ts");
    const again = await startLocalnet({ rpcPort: 0, dataDir: net.dataDir, seed: false, slotMs: 100 });
    try {
      const get = async (k: PublicKey) =>
        ((await rpc(again.rpcUrl, "getBalance", [k.toBase58()])).result as { value: number }).value;
      expect([await get(a), await get(b)]).toEqual([3_000_000, 4_000_000]);
    } finally {
      await again.close();
    }
    net = await startTestLocalnet({ seed: false, dataDir: net.dataDir });
  });
});
