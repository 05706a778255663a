import { getPriorityFeeOptions } from "@cistern/protocol";
import {
  type Address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemTransfer } from "../../src/tx/builder/wire-instructions.ts";
import { fundedWallet, post, startTxWorld, type TxWorld } from "./support/tx-world.ts";

/**
 * A transaction signed and sent after its blockhash expired (held in a backlog) is refused as expired, not as a
 * message this server did not build: the builder forgets an issued message once its blockhash expires, so by then
 * the sender no longer knows it.
 */
describe("sender: a transaction whose issued record was pruned after its blockhash expired", () => {
  let w: TxWorld;
  beforeAll(async () => {
    w = await startTxWorld({ blockhashMinValidityMs: 0 });
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  async function buildTransfer(payer: Address) {
    const to = (await generateKeyPairSigner()).address;
    return w.tx.factory.build({
      feePayer: payer,
      groups: [[systemTransfer(payer, to, 1_000_000n)]],
      options: getPriorityFeeOptions(),
      needsOracle: false,
    });
  }

  it("says the transaction expired (block height exceeded), while an unknown live message is still one it did not build", async () => {
    const payer = (await fundedWallet(w.net)).signer;
    const built = await buildTransfer(payer.address);
    const signed = getBase64EncodedWireTransaction(
      await partiallySignTransaction(
        [payer.keyPair],
        getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64")),
      ),
    );
    const message = getTransactionDecoder().decode(Buffer.from(signed, "base64")).messageBytes;
    expect(await w.tx.issued.lookup(message)).toBeDefined();
    // The backlog: the blockhash expires, then a later build prunes the expired messages (at most once a second).
    while ((await w.tx.clock.blockHeight()) <= built.lastValidBlockHeight)
      await new Promise((s) => setTimeout(s, 250));
    await new Promise((s) => setTimeout(s, 1100));
    await buildTransfer(payer.address);
    expect(await w.tx.issued.lookup(message)).toBeUndefined();

    const expired = await post(w.app, "/send-cos-transaction", { transaction: signed });
    expect(expired.status).toBe(400);
    expect(expired.body.message).toMatch(/expired/);
    expect(expired.body.message).toMatch(/block height exceeded/);
    expect(expired.body.message).not.toMatch(/did not build/);
    const inBundle = await post(w.app, "/send-cos-bundle", { transactions: [signed] });
    expect(inBundle.status).toBe(400);
    expect(inBundle.body.message).toMatch(/transactions\[0\].*expired/);

    // A message never built, on a live blockhash: still refused as one this server did not build.
    const other = (await fundedWallet(w.net)).signer;
    const fresh = await buildTransfer(other.address);
    const tx = getTransactionDecoder().decode(Buffer.from(fresh.transactions[0]!, "base64"));
    const bytes = new Uint8Array(tx.messageBytes);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    const altered = await partiallySignTransaction([other.keyPair], { ...tx, messageBytes: bytes as never });
    const unknown = await post(w.app, "/send-cos-transaction", {
      transaction: getBase64EncodedWireTransaction(altered),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/did not build this message/);
  }, 120_000);
});
