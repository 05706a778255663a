import { Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { rpc, startTestLocalnet } from "./helpers.ts";

type Msg = {
  id?: number;
  method?: string;
  result?: unknown;
  error?: { code: number };
  params?: { result: unknown; subscription: number };
};

class WsClient {
  private queue: Msg[] = [];
  private waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  private nextId = 1;
  constructor(private ws: WebSocket) {
    ws.on("message", (raw) => {
      const m = JSON.parse(raw.toString()) as Msg;
      const w = this.waiters.findIndex((x) => x.pred(m));
      if (w >= 0) this.waiters.splice(w, 1)[0]!.resolve(m);
      else this.queue.push(m);
    });
  }
  static async open(url: string): Promise<WsClient> {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return new WsClient(ws);
  }
  next(pred: (m: Msg) => boolean, timeoutMs = 20_000): Promise<Msg> {
    const i = this.queue.findIndex(pred);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0]!);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("timed out waiting for a websocket message")), timeoutMs);
      this.waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(t);
          resolve(m);
        },
      });
    });
  }
  async call(method: string, params: unknown[] = []): Promise<Msg> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.next((m) => m.id === id);
  }
  notification(sub: number): Promise<Msg> {
    return this.next((m) => m.params?.subscription === sub);
  }
  close(): void {
    this.ws.close();
  }
}

describe("PubSub subscriptions", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  const payer = Keypair.generate();
  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
    await net.airdrop(payer.publicKey.toBase58(), 5n * BigInt(LAMPORTS_PER_SOL));
  });
  afterAll(async () => {
    await net.cleanup();
  });

  async function transferTx(to: Keypair["publicKey"], lamports: number): Promise<string> {
    const bh = ((await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } })
      .value.blockhash;
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: bh }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports }),
    );
    tx.sign(payer);
    return tx.serialize().toString("base64");
  }

  it("signature, account, program and logs notifications after a transfer (ws on port+1)", async () => {
    const c = await WsClient.open(net.wsUrl);
    try {
      const to = Keypair.generate().publicKey;
      const tx = await transferTx(to, 2_000_000);
      const acc = (await c.call("accountSubscribe", [to.toBase58(), { encoding: "base64" }]))
        .result as number;
      const prog = (
        await c.call("programSubscribe", [
          "11111111111111111111111111111111",
          { encoding: "base64", filters: [{ dataSize: 0 }] },
        ])
      ).result as number;
      const logs = (await c.call("logsSubscribe", [{ mentions: [to.toBase58()] }])).result as number;
      const sent = await rpc(net.rpcUrl, "sendTransaction", [tx, { encoding: "base64" }]);
      const sig = sent.result as string;
      const sigSub = (await c.call("signatureSubscribe", [sig, { commitment: "confirmed" }]))
        .result as number;
      // Subscribing after the transaction landed still notifies (web3.js subscribes after sending).
      const sigNote = await c.notification(sigSub);
      expect(sigNote.method).toBe("signatureNotification");
      expect(sigNote.params?.result).toMatchObject({ value: { err: null } });
      const accNote = await c.notification(acc);
      expect(accNote.params?.result).toMatchObject({
        value: { lamports: 2_000_000, owner: "11111111111111111111111111111111" },
      });
      const progNote = await c.notification(prog);
      expect(progNote.method).toBe("programNotification");
      expect((progNote.params!.result as { value: { pubkey: string } }).value.pubkey).toMatch(
        /^[1-9A-HJ-NP-Za-km-z]+$/,
      );
      const logNote = await c.notification(logs);
      expect(logNote.params?.result).toMatchObject({ value: { signature: sig, err: null } });
      expect((logNote.params!.result as { value: { logs: string[] } }).value.logs[0]).toMatch(/invoke \[1\]/);
      expect((await c.call("accountUnsubscribe", [acc])).result).toBe(true);
      expect((await c.call("accountUnsubscribe", [acc])).error?.code).toBe(-32602);
      expect((await c.call("logsUnsubscribe", [logs])).result).toBe(true);
      expect((await c.call("programUnsubscribe", [prog])).result).toBe(true);
    } finally {
      c.close();
    }
  });

  it("logsSubscribe all sees every transaction", async () => {
    const c = await WsClient.open(net.wsUrl);
    try {
      const sub = (await c.call("logsSubscribe", ["all"])).result as number;
      const to = Keypair.generate().publicKey;
      const sig = (
        await rpc(net.rpcUrl, "sendTransaction", [await transferTx(to, 1_500_000), { encoding: "base64" }])
      ).result;
      const note = await c.next(
        (m) =>
          m.params?.subscription === sub &&
          (m.params.result as { value: { signature: string } }).value.signature === sig,
      );
      expect(note.params!.result).toMatchObject({ value: { err: null, signature: sig } });
    } finally {
      c.close();
    }
  });

  it("a transaction is processed in its open slot, confirmed when the next slot starts, finalized at the root", async () => {
    const c = await WsClient.open(net.rpcUrl.replace("http", "ws"));
    try {
      const tx = await transferTx(Keypair.generate().publicKey, 1_000_000);
      const { Transaction: T } = await import("@solana/web3.js");
      const sig = (await import("@solana/kit"))
        .getBase58Decoder()
        .decode(T.from(Buffer.from(tx, "base64")).signature!);
      const subs = {} as Record<"processed" | "confirmed" | "finalized", number>;
      for (const commitment of ["finalized", "confirmed", "processed"] as const)
        subs[commitment] = (await c.call("signatureSubscribe", [sig, { commitment }])).result as number;
      await rpc(net.rpcUrl, "sendTransaction", [tx, { encoding: "base64" }]);
      const status = async () =>
        (
          (await rpc(net.rpcUrl, "getSignatureStatuses", [[sig]])).result as {
            value: { slot: number; confirmations: number | null; confirmationStatus: string }[];
          }
        ).value[0]!;
      const slot = async () => (await rpc(net.rpcUrl, "getSlot")).result as number;

      await c.notification(subs.processed);
      const landed = (await status()).slot;
      await c.notification(subs.confirmed);
      const confirmed = await status();
      expect(await slot()).toBeGreaterThan(landed);
      expect(["confirmed", "finalized"]).toContain(confirmed.confirmationStatus);
      if (confirmed.confirmationStatus === "confirmed")
        expect(confirmed.confirmations).toBeGreaterThanOrEqual(1);
      // the root trails the newest slot by 32: about 3.2 s at this localnet's 100 ms slots
      await c.notification(subs.finalized);
      expect(await status()).toMatchObject({
        slot: landed,
        confirmations: null,
        confirmationStatus: "finalized",
      });
      expect((await slot()) - landed).toBeGreaterThanOrEqual(32);
      // an unknown commitment is refused as agave refuses it
      for (const commitment of ["rooted", "toString", 1])
        expect((await c.call("signatureSubscribe", [sig, { commitment }])).error?.code).toBe(-32602);
    } finally {
      c.close();
    }
  });

  it("signature subscription before sending fires once the transaction is durable (and confirmed)", async () => {
    const c = await WsClient.open(net.rpcUrl.replace("http", "ws"));
    try {
      const to = Keypair.generate().publicKey;
      const tx = await transferTx(to, 3_000_000);
      const { Transaction: T } = await import("@solana/web3.js");
      const sig = T.from(Buffer.from(tx, "base64")).signature!;
      const bs58sig = (await import("@solana/kit")).getBase58Decoder().decode(sig);
      const sub = (await c.call("signatureSubscribe", [bs58sig, { commitment: "confirmed" }]))
        .result as number;
      await rpc(net.rpcUrl, "sendTransaction", [tx, { encoding: "base64" }]);
      const note = await c.notification(sub);
      expect(note.params?.result).toMatchObject({ value: { err: null } });
    } finally {
      c.close();
    }
  });

  it("account notifications for admin writes; large data falls back from base58 to base64", async () => {
    const c = await WsClient.open(net.wsUrl);
    try {
      const target = Keypair.generate().publicKey.toBase58();
      const sub = (await c.call("accountSubscribe", [target])).result as number;
      await net.setAccount(target, { lamports: 5_000_000n, data: new Uint8Array(200).fill(9) });
      const note = await c.notification(sub);
      expect(note.params!.result).toMatchObject({
        value: { lamports: 5_000_000, data: [Buffer.alloc(200, 9).toString("base64"), "base64"], space: 200 },
      });
    } finally {
      c.close();
    }
  });

  it("slot notifications arrive every slot and stop after unsubscribe", async () => {
    const c = await WsClient.open(net.wsUrl);
    try {
      const sub = (await c.call("slotSubscribe")).result as number;
      const a = await c.notification(sub);
      const b = await c.notification(sub);
      const sa = (a.params!.result as { slot: number }).slot;
      const sb = (b.params!.result as { slot: number; parent: number }).slot;
      expect(sb).toBe(sa + 1);
      expect((b.params!.result as { parent: number }).parent).toBe(sa);
      expect((await c.call("slotUnsubscribe", [sub])).result).toBe(true);
      const root = (await c.call("rootSubscribe")).result as number;
      const rootNote = await c.notification(root);
      expect(rootNote.method).toBe("rootNotification");
      expect(typeof rootNote.params!.result).toBe("number");
      expect((await c.call("rootUnsubscribe", [root])).result).toBe(true);
    } finally {
      c.close();
    }
  });

  it("bad subscribe params and unknown methods get errors; id-less pings are ignored", async () => {
    const c = await WsClient.open(net.wsUrl);
    try {
      expect((await c.call("accountSubscribe", ["nope"])).error?.code).toBe(-32602);
      expect((await c.call("signatureSubscribe", ["abc"])).error?.code).toBe(-32602);
      expect((await c.call("logsSubscribe", [{ mentions: ["a", "b"] }])).error?.code).toBe(-32602);
      expect((await c.call("fooSubscribe")).error?.code).toBe(-32601);
      (c as unknown as { ws: WebSocket }).ws.send(JSON.stringify({ jsonrpc: "2.0", method: "ping" }));
      (c as unknown as { ws: WebSocket }).ws.send("{garbage");
      expect((await c.next((m) => m.error?.code === -32700)).error?.code).toBe(-32700);
      expect((await c.call("slotSubscribe")).result).toEqual(expect.any(Number));
    } finally {
      c.close();
    }
  });
});
