import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Keypair, LAMPORTS_PER_SOL, type PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import { Chain } from "../src/chain.ts";
import { parseWireTransaction } from "../src/wire.ts";
import { tempDataDir } from "./helpers.ts";

const SYSTEM = "11111111111111111111111111111111";

/** Gives `address` lamports through the admin path (a logged "set" entry). */
async function fund(chain: Chain, address: string, lamports: bigint): Promise<void> {
  await chain.setAccounts([
    { address, lamports: String(lamports), data: "", owner: SYSTEM, executable: false },
  ]);
}

/** Sends `tx` (signed by `signers`) through the sendTransaction path; resolves once durable. */
async function send(chain: Chain, tx: Transaction, ...signers: Keypair[]): Promise<string> {
  tx.recentBlockhash = chain.latestBlockhash().blockhash;
  tx.feePayer = signers[0]!.publicKey;
  tx.sign(...signers);
  return await chain.submit(parseWireTransaction(tx.serialize()), false);
}

const transfer = (from: Keypair, to: PublicKey, lamports: number) =>
  new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }));

const ledgerLines = (dataDir: string) =>
  readFileSync(join(dataDir, "ledger.log"), "utf8").trim().split("\n").filter(Boolean);

describe("ledger compaction and bounded history", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("keeps the ledger to the lines after the previous snapshot plus the kept history, and restarts to the same state", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const options = { dataDir, historyTransactions: 5, compactAfterEntries: 10 };
    let chain = new Chain(options);
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    await fund(chain, payer.publicKey.toBase58(), 10n * BigInt(LAMPORTS_PER_SOL));
    const signatures: string[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 8; i++) {
        chain.advanceSlot();
        signatures.push(await send(chain, transfer(payer, to, 1_000_000 + round * 10 + i), payer));
      }
      await chain.snapshot();
    }
    const lines = ledgerLines(dataDir);
    // 33 entries were written; what is left is the base line, the kept transactions (the newest 5, and up to
    // a tenth more as history is trimmed in batches) and the 8 entries after the previous snapshot.
    expect(lines.length).toBeLessThanOrEqual(1 + 6 + 8);
    const base = JSON.parse(lines[0]!) as { k: string; s: number; t: number };
    expect(base.k).toBe("base");
    expect(base.t).toBeGreaterThan(0);

    const balanceTo = chain.svm.getBalance(to.toBytes());
    const payerBalance = chain.svm.getBalance(payer.publicKey.toBytes());
    expect(chain.history.size).toBe(32);
    await chain.close();

    chain = new Chain(options);
    try {
      expect(chain.svm.getBalance(to.toBytes())).toBe(balanceTo);
      expect(chain.svm.getBalance(payer.publicKey.toBytes())).toBe(payerBalance);
      // every transaction is counted; only the newest are still readable, as on a validator with a size limit
      expect(chain.history.size).toBe(32);
      for (const s of signatures.slice(-5)) expect(chain.history.get(s)?.err).toBeNull();
      expect(chain.history.get(signatures[0]!)).toBeUndefined();
      // a transaction already executed is still refused as a duplicate while its blockhash could be valid
      expect(chain.isKnownSignature(signatures.at(-1)!)).toBe(true);
      const newest = chain.history.forAddress(to.toBase58(), { limit: 100 }).map((r) => r.signature);
      expect(newest.slice(0, 5)).toEqual(signatures.slice(-5).reverse());
      expect(newest.length).toBeLessThanOrEqual(6);
    } finally {
      await chain.close();
    }
  });

  it("falls back to the previous snapshot when the newest is unreadable", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const options = { dataDir, historyTransactions: 3, compactAfterEntries: 4 };
    let chain = new Chain(options);
    const payer = Keypair.generate();
    const to = Keypair.generate().publicKey;
    await fund(chain, payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL));
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5; i++) {
        chain.advanceSlot();
        await send(chain, transfer(payer, to, 1_000_000 + i), payer);
      }
      await chain.snapshot();
    }
    const balanceTo = chain.svm.getBalance(to.toBytes());
    await chain.close();
    // the newest snapshot is damaged: the previous one plus the ledger after it give the same chain
    const path = join(dataDir, "snapshot.bin");
    const bytes = readFileSync(path);
    bytes.write("garbage!", 0);
    (await import("node:fs")).writeFileSync(path, bytes);
    chain = new Chain(options);
    try {
      expect(chain.svm.getBalance(to.toBytes())).toBe(balanceTo);
    } finally {
      await chain.close();
    }
  });

  it("refuses to start from a compacted ledger with no snapshot that reaches it, instead of a wrong chain", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const options = { dataDir, historyTransactions: 2, compactAfterEntries: 2 };
    const chain = new Chain(options);
    const payer = Keypair.generate();
    await fund(chain, payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL));
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++) {
        chain.advanceSlot();
        await send(chain, transfer(payer, Keypair.generate().publicKey, 1_000_000), payer);
      }
      await chain.snapshot();
    }
    await chain.close();
    rmSync(join(dataDir, "snapshot.bin"));
    rmSync(join(dataDir, "snapshot.prev.bin"));
    expect(() => new Chain(options)).toThrow(/compacted up to entry \d+ but no readable snapshot/);
  });
});
