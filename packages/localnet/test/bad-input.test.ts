import { Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawPost, rpc, startTestLocalnet } from "./helpers.ts";

describe("bad input gets the JSON-RPC error a real node gives", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  const payer = Keypair.generate();

  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
    await net.airdrop(payer.publicKey.toBase58(), 2n * BigInt(LAMPORTS_PER_SOL));
  });
  afterAll(async () => {
    await net.cleanup();
  });

  async function signedTransfer(blockhash?: string): Promise<Buffer> {
    const bh =
      blockhash ??
      ((await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } }).value
        .blockhash;
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: bh }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000,
      }),
    );
    tx.sign(payer);
    return tx.serialize();
  }

  it("malformed JSON -> -32700", async () => {
    const r = await rawPost(net.rpcUrl, "{not json");
    expect(r.json).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  });

  it("invalid request objects and empty batch -> -32600", async () => {
    expect((await rawPost(net.rpcUrl, '{"id":1,"method":"getSlot"}')).json).toMatchObject({
      error: { code: -32600 },
    });
    expect((await rawPost(net.rpcUrl, "[]")).json).toMatchObject({ error: { code: -32600 } });
    expect((await rawPost(net.rpcUrl, "42")).json).toMatchObject({ error: { code: -32600 } });
  });

  it("unknown method -> -32601; admin methods are unknown when admin is off", async () => {
    expect((await rpc(net.rpcUrl, "getNothing")).error).toEqual({
      code: -32601,
      message: "Method not found",
    });
    const off = await startTestLocalnet({ seed: false, admin: false });
    try {
      expect((await rpc(off.rpcUrl, "localnet_advanceClock", [10])).error?.code).toBe(-32601);
      expect((await rpc(off.rpcUrl, "getHealth")).result).toBe("ok");
    } finally {
      await off.cleanup();
    }
  });

  it("wrong param types -> -32602", async () => {
    expect((await rpc(net.rpcUrl, "getBalance", [42])).error?.code).toBe(-32602);
    expect((await rpc(net.rpcUrl, "getBalance", ["not-a-key!"])).error).toMatchObject({
      code: -32602,
      message: "Invalid param: Invalid",
    });
    expect((await rpc(net.rpcUrl, "getBalance", ["1111"])).error?.code).toBe(-32602);
    expect((await rpc(net.rpcUrl, "getMultipleAccounts", ["x"])).error?.code).toBe(-32602);
    expect(
      (await rpc(net.rpcUrl, "getAccountInfo", [payer.publicKey.toBase58(), { encoding: "hex" }])).error
        ?.code,
    ).toBe(-32602);
    expect((await rpc(net.rpcUrl, "getBlockTime", [-1])).error?.code).toBe(-32602);
    expect((await rpc(net.rpcUrl, "getSignatureStatuses", [Array(257).fill("1")])).error?.code).toBe(-32602);
    expect(
      (await rpc(net.rpcUrl, "getProgramAccounts", [payer.publicKey.toBase58(), { filters: [{ foo: 1 }] }]))
        .error?.code,
    ).toBe(-32602);
    expect((await rpc(net.rpcUrl, "requestAirdrop", [payer.publicKey.toBase58(), "lots"])).error?.code).toBe(
      -32602,
    );
  });

  it("batches: mixed results in order; oversized batch rejected", async () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "getHealth" },
      { jsonrpc: "2.0", id: 2, method: "nope" },
      { jsonrpc: "2.0", id: 3, method: "getBalance", params: [payer.publicKey.toBase58()] },
    ];
    const r = (await rawPost(net.rpcUrl, JSON.stringify(batch))).json as {
      id: number;
      result?: unknown;
      error?: { code: number };
    }[];
    expect(r.map((x) => x.id)).toEqual([1, 2, 3]);
    expect(r[0]?.result).toBe("ok");
    expect(r[1]?.error?.code).toBe(-32601);
    expect((r[2]!.result as { value: number }).value).toBe(2 * LAMPORTS_PER_SOL);
    const big = Array.from({ length: 1001 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "getSlot" }));
    expect((await rawPost(net.rpcUrl, JSON.stringify(big))).json).toMatchObject({ error: { code: -32600 } });
  });

  it("oversized body -> 413 with -32600", async () => {
    const r = await rawPost(
      net.rpcUrl,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth", params: ["x".repeat(6 * 1024 * 1024)] }),
    );
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ error: { code: -32600 } });
  });

  it("invalid base58/base64 and undecodable transactions -> -32602", async () => {
    const b58 = await rpc(net.rpcUrl, "sendTransaction", ["0OIl"]);
    expect(b58.error).toMatchObject({ code: -32602, message: expect.stringMatching(/invalid base58/) });
    const b64 = await rpc(net.rpcUrl, "sendTransaction", ["@@@@", { encoding: "base64" }]);
    expect(b64.error).toMatchObject({ code: -32602, message: expect.stringMatching(/invalid base64/) });
    const junk = await rpc(net.rpcUrl, "sendTransaction", [
      Buffer.from([1, 2, 3]).toString("base64"),
      { encoding: "base64" },
    ]);
    expect(junk.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/failed to deserialize/),
    });
    const tooBig = await rpc(net.rpcUrl, "sendTransaction", [
      Buffer.alloc(1300).toString("base64"),
      { encoding: "base64" },
    ]);
    expect(tooBig.error?.code).toBe(-32602);
    const sim = await rpc(net.rpcUrl, "simulateTransaction", ["%%%", { encoding: "base64" }]);
    expect(sim.error?.code).toBe(-32602);
  });

  it("bad signature -> -32003 and nothing changes", async () => {
    const bytes = await signedTransfer();
    bytes[10] = (bytes[10]! + 1) % 256; // inside the first signature
    const before = (
      (await rpc(net.rpcUrl, "getBalance", [payer.publicKey.toBase58()])).result as { value: number }
    ).value;
    const r = await rpc(net.rpcUrl, "sendTransaction", [bytes.toString("base64"), { encoding: "base64" }]);
    expect(r.error).toMatchObject({ code: -32003, message: "Transaction signature verification failure" });
    const skipped = await rpc(net.rpcUrl, "sendTransaction", [
      bytes.toString("base64"),
      { encoding: "base64", skipPreflight: true },
    ]);
    const status = await rpc(net.rpcUrl, "getSignatureStatuses", [[skipped.result]]);
    expect((status.result as { value: unknown[] }).value[0]).toBeNull();
    const after = (
      (await rpc(net.rpcUrl, "getBalance", [payer.publicKey.toBase58()])).result as { value: number }
    ).value;
    expect(after).toBe(before);
  });

  it("stale or unknown blockhash -> -32002 BlockhashNotFound", async () => {
    const bytes = await signedTransfer("11111111111111111111111111111111");
    const r = await rpc(net.rpcUrl, "sendTransaction", [bytes.toString("base64"), { encoding: "base64" }]);
    expect(r.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Blockhash not found",
      data: { err: "BlockhashNotFound", logs: [] },
    });
  });

  it("preflight failure -> -32002 with logs, and state is untouched", async () => {
    const poor = Keypair.generate();
    await net.airdrop(poor.publicKey.toBase58(), 1_000_000n);
    const bh = ((await rpc(net.rpcUrl, "getLatestBlockhash")).result as { value: { blockhash: string } })
      .value.blockhash;
    const tx = new Transaction({ feePayer: poor.publicKey, recentBlockhash: bh }).add(
      SystemProgram.transfer({
        fromPubkey: poor.publicKey,
        toPubkey: payer.publicKey,
        lamports: LAMPORTS_PER_SOL,
      }),
    );
    tx.sign(poor);
    const r = await rpc(net.rpcUrl, "sendTransaction", [
      tx.serialize().toString("base64"),
      { encoding: "base64" },
    ]);
    expect(r.error?.code).toBe(-32002);
    expect(r.error?.data).toMatchObject({ err: { InstructionError: [0, { Custom: 1 }] } });
    expect(((r.error!.data as { logs: string[] }).logs ?? []).join("\n")).toMatch(/insufficient lamports/);
    expect(
      ((await rpc(net.rpcUrl, "getBalance", [poor.publicKey.toBase58()])).result as { value: number }).value,
    ).toBe(1_000_000);
  });

  it("resending an executed transaction returns its signature without executing twice", async () => {
    const bytes = await signedTransfer();
    const a = await rpc(net.rpcUrl, "sendTransaction", [bytes.toString("base64"), { encoding: "base64" }]);
    const balance = (
      (await rpc(net.rpcUrl, "getBalance", [payer.publicKey.toBase58()])).result as { value: number }
    ).value;
    const again = await rpc(net.rpcUrl, "sendTransaction", [
      bytes.toString("base64"),
      { encoding: "base64", skipPreflight: true },
    ]);
    expect(again.result).toBe(a.result);
    const pre = await rpc(net.rpcUrl, "sendTransaction", [bytes.toString("base64"), { encoding: "base64" }]);
    expect(pre.error).toMatchObject({ code: -32002, data: { err: "AlreadyProcessed" } });
    expect(
      ((await rpc(net.rpcUrl, "getBalance", [payer.publicKey.toBase58()])).result as { value: number }).value,
    ).toBe(balance);
  });

  it("admin methods validate their params", async () => {
    expect((await rpc(net.rpcUrl, "localnet_advanceClock", ["ten"])).error?.code).toBe(-32602);
    expect(
      (await rpc(net.rpcUrl, "localnet_fundWallet", [payer.publicKey.toBase58(), { lamports: "1.5" }])).error
        ?.code,
    ).toBe(-32602);
    expect(
      (
        await rpc(net.rpcUrl, "localnet_fundWallet", [
          payer.publicKey.toBase58(),
          { tokens: [{ mint: payer.publicKey.toBase58(), amount: "1" }] },
        ])
      ).error?.code,
    ).toBe(-32602);
    expect((await rpc(net.rpcUrl, "localnet_setAccount", ["bad", { lamports: "1" }])).error?.code).toBe(
      -32602,
    );
    expect((await rpc(net.rpcUrl, "localnet_faucet", [])).error?.code).toBe(-32602);
    expect((await rpc(net.rpcUrl, "localnet_setDemoRuleSetPrograms", ["x"])).error?.code).toBe(-32602);
    expect((await rpc(net.rpcUrl, "localnet_setDemoRuleSetPrograms", [["bad"]])).error?.code).toBe(-32602);
  });

  it("no method answers malformed params with an internal error, and the server stays up", async () => {
    const scratch = await startTestLocalnet({ seed: false });
    try {
      const methods = [
        "getLatestBlockhash",
        "isBlockhashValid",
        "sendTransaction",
        "simulateTransaction",
        "getSignatureStatuses",
        "getTransaction",
        "getSignaturesForAddress",
        "getBalance",
        "getAccountInfo",
        "getMultipleAccounts",
        "getProgramAccounts",
        "getTokenAccountsByOwner",
        "getTokenAccountsByDelegate",
        "getTokenAccountBalance",
        "getTokenSupply",
        "getTokenLargestAccounts",
        "requestAirdrop",
        "getMinimumBalanceForRentExemption",
        "getFeeForMessage",
        "getRecentPrioritizationFees",
        "getSlot",
        "getBlockHeight",
        "getEpochInfo",
        "getBlockTime",
        "getRecentPerformanceSamples",
        "localnet_advanceClock",
        "localnet_setAccount",
        "localnet_fundWallet",
        "localnet_faucet",
      ];
      const A = "11111111111111111111111111111111";
      const paramsList: unknown[] = [
        undefined,
        [],
        [null],
        [{}],
        ["x"],
        [1],
        [-1],
        [1.5],
        [[1, 2]],
        "str",
        {},
        [A, null],
        [A, "x"],
        [A, { encoding: 5 }],
        [A, { filters: "x" }],
        [A, { filters: [{ memcmp: null }] }],
        [A, { mint: 5 }],
        [[A], { encoding: "jsonParsed" }],
        [A, { dataSlice: { offset: -1, length: 2 } }],
        [A, { lamports: -5 }],
        [A, { tokens: [null] }],
        [A, { accounts: { addresses: "x" } }],
        [[null]],
        [1e300],
        [A, { limit: 0 }],
      ];
      for (const method of methods) {
        const batch = paramsList.map((params, id) =>
          params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
        );
        const r = (await rawPost(scratch.rpcUrl, JSON.stringify(batch))).json as {
          id: number;
          error?: { code: number; message: string };
        }[];
        expect(r).toHaveLength(paramsList.length);
        const internal = r
          .filter((x) => x.error?.code === -32603)
          .map((x) => `${method} ${JSON.stringify(paramsList[x.id])}: ${x.error?.message}`);
        expect(internal).toEqual([]);
      }
      expect((await rpc(scratch.rpcUrl, "getHealth")).result).toBe("ok");
    } finally {
      await scratch.cleanup();
    }
  });

  it("random and bit-flipped transaction bytes get proper errors and never charge the payer", async () => {
    const { randomBytes } = await import("node:crypto");
    const valid = await signedTransfer();
    const payerBefore = (
      (await rpc(net.rpcUrl, "getBalance", [payer.publicKey.toBase58()])).result as { value: number }
    ).value;
    const inputs: Buffer[] = [];
    for (let i = 0; i < 150; i++) inputs.push(randomBytes(1 + ((i * 37) % 1200)));
    for (let i = 0; i < 150; i++) {
      const b = Buffer.from(valid);
      const at = (i * 13) % b.length;
      b[at] = b[at]! ^ (1 << (i % 8));
      inputs.push(b);
    }
    const batch = inputs.flatMap((b, i) => [
      {
        jsonrpc: "2.0",
        id: 3 * i,
        method: "sendTransaction",
        params: [b.toString("base64"), { encoding: "base64" }],
      },
      {
        jsonrpc: "2.0",
        id: 3 * i + 1,
        method: "sendTransaction",
        params: [b.toString("base64"), { encoding: "base64", skipPreflight: true }],
      },
      {
        jsonrpc: "2.0",
        id: 3 * i + 2,
        method: "simulateTransaction",
        params: [b.toString("base64"), { encoding: "base64" }],
      },
    ]);
    for (let i = 0; i < batch.length; i += 300) {
      const r = (await rawPost(net.rpcUrl, JSON.stringify(batch.slice(i, i + 300)))).json as {
        error?: { code: number; message: string };
      }[];
      const internal = r.filter((x) => x.error && ![-32602, -32002, -32003].includes(x.error.code));
      expect(internal).toEqual([]);
    }
    expect((await rpc(net.rpcUrl, "getHealth")).result).toBe("ok");
    // Every flipped copy fails signature verification, so none of them may charge the payer.
    const payerAfter = (
      (await rpc(net.rpcUrl, "getBalance", [payer.publicKey.toBase58()])).result as { value: number }
    ).value;
    expect(payerAfter).toBe(payerBefore);
  });
});
