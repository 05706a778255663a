import { rmSync } from "node:fs";
import { Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBase58, encodeBase58 } from "../src/base58.ts";
import { Chain } from "../src/chain.ts";
import { parseWireTransaction } from "../src/wire.ts";
import { tempDataDir } from "./helpers.ts";

const SYSTEM = "11111111111111111111111111111111";

describe("owner index behind getProgramAccounts", () => {
  const dataDir = tempDataDir();
  let chain: Chain;
  const payer = Keypair.generate();
  const programX = Keypair.generate().publicKey;
  const programY = Keypair.generate().publicKey.toBase58();

  const send = async (tx: Transaction, ...signers: Keypair[]) => {
    tx.recentBlockhash = chain.latestBlockhash().blockhash;
    tx.feePayer = payer.publicKey;
    tx.sign(payer, ...signers);
    return await chain.submit(parseWireTransaction(tx.serialize()), false);
  };
  /** What a scan of every account finds (LiteSVM's own getProgramAccounts), without closed accounts. */
  const fullScan = (owner: string) =>
    chain.svm
      .getProgramAccounts(decodeBase58(owner))
      .filter((e) => e.account().lamports() > 0n || e.account().data().length > 0)
      .map((e) => encodeBase58(e.address))
      .sort();
  const indexed = (owner: string) => [...chain.owners.addresses(owner)].sort();

  beforeAll(async () => {
    chain = new Chain({ dataDir });
    await chain.setAccounts([
      {
        address: payer.publicKey.toBase58(),
        lamports: String(100n * BigInt(LAMPORTS_PER_SOL)),
        data: "",
        owner: SYSTEM,
        executable: false,
      },
    ]);
  });
  afterAll(async () => {
    await chain.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("follows accounts created, assigned, rewritten and closed without scanning again", async () => {
    const x = programX.toBase58();
    expect(indexed(x)).toEqual([]);
    expect(indexed(SYSTEM)).toEqual(fullScan(SYSTEM));
    const scans = chain.owners.fullScans;

    const a = Keypair.generate();
    const b = Keypair.generate();
    const create = (k: Keypair) =>
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: k.publicKey,
        lamports: LAMPORTS_PER_SOL / 100,
        space: 8,
        programId: programX,
      });
    await send(new Transaction().add(create(a), create(b)), a, b);
    expect(indexed(x)).toEqual([a.publicKey.toBase58(), b.publicKey.toBase58()].sort());

    // a wallet assigned to the program moves from System's set to the program's
    const c = Keypair.generate();
    await send(
      new Transaction().add(
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: c.publicKey,
          lamports: LAMPORTS_PER_SOL,
        }),
      ),
    );
    expect(indexed(SYSTEM)).toContain(c.publicKey.toBase58());
    await send(
      new Transaction().add(SystemProgram.assign({ accountPubkey: c.publicKey, programId: programX })),
      c,
    );
    expect(indexed(x)).toContain(c.publicKey.toBase58());
    expect(indexed(SYSTEM)).not.toContain(c.publicKey.toBase58());

    // an admin write gives b to another program
    await chain.setAccounts([
      {
        address: b.publicKey.toBase58(),
        lamports: "1000000",
        data: "AAAA",
        owner: programY,
        executable: false,
      },
    ]);
    expect(indexed(x)).not.toContain(b.publicKey.toBase58());
    expect(indexed(programY)).toEqual([b.publicKey.toBase58()]);

    // a wallet drained to zero lamports is closed
    const d = Keypair.generate();
    await send(
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: d.publicKey, lamports: 1_000_000 }),
      ),
    );
    expect(indexed(SYSTEM)).toContain(d.publicKey.toBase58());
    await send(
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: d.publicKey, toPubkey: payer.publicKey, lamports: 1_000_000 }),
      ),
      d,
    );
    expect(indexed(SYSTEM)).not.toContain(d.publicKey.toBase58());

    // the index agrees with a scan of every account, and only programY's first use scanned
    for (const owner of [x, SYSTEM, programY]) expect(indexed(owner)).toEqual(fullScan(owner));
    expect(chain.owners.fullScans).toBe(scans + 1);
  });
});
