import {
  Keypair,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { deserializeTransactions, parseBuildResponse, prepareForWallet } from "../src/tx/transactions.ts";

const payer = Keypair.generate();
const blockhash = Keypair.generate().publicKey.toBase58();
const transfer = () =>
  SystemProgram.transfer({
    fromPubkey: payer.publicKey,
    toPubkey: Keypair.generate().publicKey,
    lamports: 1,
  });
const connection = { getLatestBlockhash: async () => ({ blockhash, lastValidBlockHeight: 9 }) };
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("transactions", () => {
  it("deserializes v0 as VersionedTransaction and legacy as Transaction", () => {
    const v0 = new VersionedTransaction(
      new TransactionMessage({
        payerKey: payer.publicKey,
        recentBlockhash: blockhash,
        instructions: [transfer()],
      }).compileToV0Message(),
    );
    const legacy = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(transfer());
    const [a, b] = deserializeTransactions([
      b64(v0.serialize()),
      b64(legacy.serialize({ requireAllSignatures: false })),
    ]);
    expect(a).toBeInstanceOf(VersionedTransaction);
    expect(b).toBeInstanceOf(Transaction);
  });

  it("fills the fee payer and a recent blockhash on legacy transactions", async () => {
    const legacy = new Transaction().add(transfer());
    await prepareForWallet(
      [legacy],
      { publicKey: payer.publicKey, supportedTransactionVersions: null },
      connection,
    );
    expect(legacy.feePayer?.toBase58()).toBe(payer.publicKey.toBase58());
    expect(legacy.recentBlockhash).toBe(blockhash);
  });

  it("refuses versioned transactions for wallets without versioned support", async () => {
    const v0 = new VersionedTransaction(
      new TransactionMessage({
        payerKey: payer.publicKey,
        recentBlockhash: blockhash,
        instructions: [transfer()],
      }).compileToV0Message(),
    );
    await expect(
      prepareForWallet([v0], { publicKey: payer.publicKey, supportedTransactionVersions: null }, connection),
    ).rejects.toThrow("Signing versioned transactions isn't supported by this wallet");
  });

  it("validates the builder response", () => {
    expect(() => parseBuildResponse({ transactions: [], kind: "Normal" })).toThrow(
      "No transactions provided",
    );
    expect(() => parseBuildResponse({ transactions: ["AA=="], kind: "Other" })).toThrow(
      "Unknown transaction kind",
    );
    expect(parseBuildResponse({ transactions: ["AA=="], kind: "Bundle", lastValidBlockHeight: 5 })).toEqual({
      transactions: ["AA=="],
      kind: "Bundle",
      lastValidBlockHeight: 5,
    });
  });
});
