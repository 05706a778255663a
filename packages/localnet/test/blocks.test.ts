import {
  airdropFactory,
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, startTestLocalnet } from "./helpers.ts";

describe("getBlock and getBlocks", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  let signature: string;
  let slot: number;
  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
    const kit = createSolanaRpc(net.rpcUrl);
    const subs = createSolanaRpcSubscriptions(net.wsUrl);
    const payer = await generateKeyPairSigner();
    await airdropFactory({ rpc: kit, rpcSubscriptions: subs })({
      recipientAddress: payer.address,
      lamports: lamports(2_000_000_000n),
      commitment: "confirmed",
    });
    const { value: latest } = await kit.getLatestBlockhash().send();
    const recipient = (await generateKeyPairSigner()).address;
    const tx = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
        (m) =>
          appendTransactionMessageInstruction(
            getTransferSolInstruction({ source: payer, destination: recipient, amount: 10_000_000n }),
            m,
          ),
      ),
    );
    await sendAndConfirmTransactionFactory({ rpc: kit, rpcSubscriptions: subs })(tx as never, {
      commitment: "confirmed",
    });
    signature = getSignatureFromTransaction(tx);
    const got = (await rpc(net.rpcUrl, "getTransaction", [signature, { maxSupportedTransactionVersion: 0 }]))
      .result as { slot: number };
    slot = got.slot;
  });
  afterAll(() => net?.cleanup());

  it("lists the blocks of a range (every produced slot) and none past the current slot", async () => {
    const blocks = (await rpc(net.rpcUrl, "getBlocks", [slot - 2, slot + 1])).result as number[];
    expect(blocks).toContain(slot);
    expect(blocks).toEqual([...blocks].sort((a, b) => a - b));
    const current = (await rpc(net.rpcUrl, "getSlot", [])).result as number;
    const open = (await rpc(net.rpcUrl, "getBlocks", [Math.max(0, current - 3)])).result as number[];
    expect(open.every((s) => s <= current + 1)).toBe(true);
    expect((await rpc(net.rpcUrl, "getBlocks", [0, 600_000])).error?.message).toMatch(/Slot range too large/);
  });

  it("answers a block with its transaction, parent and heights, in full or as signatures", async () => {
    const full = (await rpc(net.rpcUrl, "getBlock", [slot, { maxSupportedTransactionVersion: 0 }]))
      .result as {
      blockhash: string;
      previousBlockhash: string;
      parentSlot: number;
      blockHeight: number;
      blockTime: number;
      transactions: { transaction: { signatures: string[] }; meta: { err: unknown }; version: number }[];
      rewards: unknown[];
    };
    expect(full.parentSlot).toBe(slot - 1);
    expect(full.transactions.map((t) => t.transaction.signatures[0])).toContain(signature);
    expect(full.transactions.find((t) => t.transaction.signatures[0] === signature)).toMatchObject({
      meta: { err: null },
      version: 0,
    });
    expect(full.rewards).toEqual([]);
    const parent = (await rpc(net.rpcUrl, "getBlock", [slot - 1, { transactionDetails: "none" }])).result as {
      blockhash: string;
      blockHeight: number;
    };
    expect(parent.blockhash).toBe(full.previousBlockhash);
    expect(parent.blockHeight).toBe(full.blockHeight - 1);
    const signatures = (await rpc(net.rpcUrl, "getBlock", [slot, { transactionDetails: "signatures" }]))
      .result as {
      signatures: string[];
    };
    expect(signatures.signatures).toContain(signature);
  });

  it("refuses what agave refuses: a v0 transaction without maxSupportedTransactionVersion, a future slot, bad options", async () => {
    expect((await rpc(net.rpcUrl, "getBlock", [slot])).error?.code).toBe(-32015);
    const future = await rpc(net.rpcUrl, "getBlock", [10_000_000]);
    expect(future.error).toMatchObject({ code: -32004, message: "Block not available for slot 10000000" });
    expect((await rpc(net.rpcUrl, "getBlock", [slot, { encoding: "xml" }])).error?.code).toBe(-32602);
    expect((await rpc(net.rpcUrl, "getBlock", [slot, { transactionDetails: "accounts" }])).error?.code).toBe(
      -32602,
    );
    expect((await rpc(net.rpcUrl, "getBlock", [slot, { commitment: "processed" }])).error?.code).toBe(-32602);
  });
});
