import {
  createAssociatedTokenAccount,
  createMint,
  getAccount,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  TOKEN_PROGRAM_ID,
  transfer,
} from "@solana/spl-token";
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeConnection, startTestLocalnet } from "./helpers.ts";

describe("@solana/web3.js v1 against localnet", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  let conn: Connection;
  const payer = Keypair.generate();
  const alice = Keypair.generate();
  const bob = Keypair.generate();
  let mint: PublicKey;
  let aliceAta: PublicKey;
  let bobAta: PublicKey;

  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
    conn = new Connection(net.rpcUrl, "confirmed");
    const sig = await conn.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL);
    await conn.confirmTransaction({ signature: sig, ...(await conn.getLatestBlockhash()) });
  });
  afterAll(async () => {
    closeConnection(conn);
    await net.cleanup();
  });

  it("airdrop + confirm credits the exact amount", async () => {
    expect(await conn.getBalance(payer.publicKey)).toBe(10 * LAMPORTS_PER_SOL);
  });

  it("sendAndConfirmTransaction moves SOL and charges 5000 lamports", async () => {
    const before = await conn.getBalance(payer.publicKey);
    const sig = await sendAndConfirmTransaction(
      conn,
      new Transaction().add(
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: alice.publicKey,
          lamports: LAMPORTS_PER_SOL,
        }),
      ),
      [payer],
    );
    expect(await conn.getBalance(alice.publicKey)).toBe(LAMPORTS_PER_SOL);
    expect(await conn.getBalance(payer.publicKey)).toBe(before - LAMPORTS_PER_SOL - 5000);
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    expect(tx?.meta?.fee).toBe(5000);
    expect(tx?.meta?.err).toBeNull();
    expect(tx?.meta?.preBalances[1]).toBe(0);
    expect(tx?.meta?.postBalances[1]).toBe(LAMPORTS_PER_SOL);
    expect(tx?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(payer.publicKey.toBase58());
    const parsed = await conn.getParsedTransaction(sig, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(parsed?.transaction.message.accountKeys[0]?.signer).toBe(true);
    const sigs = await conn.getSignaturesForAddress(alice.publicKey);
    expect(sigs.map((s) => s.signature)).toEqual([sig]);
    expect(sigs[0]?.memo).toBeNull();
    const memoSig = await sendAndConfirmTransaction(
      conn,
      new Transaction()
        .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: alice.publicKey, lamports: 1 }))
        .add({
          programId: new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
          keys: [],
          data: Buffer.from("loan #7"),
        }),
      [payer],
    );
    const withMemo = await conn.getSignaturesForAddress(alice.publicKey, { limit: 1 });
    expect(withMemo).toEqual([
      expect.objectContaining({ signature: memoSig, memo: "[7] loan #7", err: null }),
    ]);
    const older = await conn.getSignaturesForAddress(alice.publicKey, { before: memoSig });
    expect(older.map((s) => s.signature)).toEqual([sig]);
  });

  it("v0 transactions work and need maxSupportedTransactionVersion for getTransaction", async () => {
    const { blockhash } = await conn.getLatestBlockhash();
    const msg = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: bob.publicKey, lamports: 5_000_000 }),
      ],
    }).compileToV0Message();
    const vtx = new VersionedTransaction(msg);
    vtx.sign([payer]);
    const sig = await conn.sendTransaction(vtx);
    await conn.confirmTransaction({
      signature: sig,
      blockhash,
      lastValidBlockHeight: (await conn.getLatestBlockhash()).lastValidBlockHeight,
    });
    expect(await conn.getBalance(bob.publicKey)).toBe(5_000_000);
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    expect(tx?.version).toBe(0);
    await expect(conn.getTransaction(sig, { commitment: "confirmed" } as never)).rejects.toThrow(
      /maxSupportedTransactionVersion/,
    );
  });

  it("SPL token flow with @solana/spl-token helpers and jsonParsed queries", async () => {
    mint = await createMint(conn, payer, payer.publicKey, null, 6);
    aliceAta = (await getOrCreateAssociatedTokenAccount(conn, payer, mint, alice.publicKey)).address;
    bobAta = await createAssociatedTokenAccount(conn, payer, mint, bob.publicKey);
    await mintTo(conn, payer, mint, aliceAta, payer, 5_000_000n);
    await transfer(conn, payer, aliceAta, bobAta, alice, 1_250_000n);
    expect((await getAccount(conn, aliceAta)).amount).toBe(3_750_000n);
    expect((await getAccount(conn, bobAta)).amount).toBe(1_250_000n);

    const byMint = await conn.getParsedTokenAccountsByOwner(alice.publicKey, { mint });
    expect(byMint.value).toHaveLength(1);
    expect(byMint.value[0]?.pubkey.toBase58()).toBe(aliceAta.toBase58());
    expect(byMint.value[0]?.account.data.parsed).toMatchObject({
      type: "account",
      info: {
        mint: mint.toBase58(),
        owner: alice.publicKey.toBase58(),
        state: "initialized",
        isNative: false,
        tokenAmount: { amount: "3750000", decimals: 6, uiAmount: 3.75, uiAmountString: "3.75" },
      },
    });
    const byProgram = await conn.getTokenAccountsByOwner(bob.publicKey, { programId: TOKEN_PROGRAM_ID });
    expect(byProgram.value.map((v) => v.pubkey.toBase58())).toEqual([bobAta.toBase58()]);

    expect((await conn.getTokenAccountBalance(bobAta)).value).toMatchObject({
      amount: "1250000",
      uiAmountString: "1.25",
    });
    expect((await conn.getTokenSupply(mint)).value).toMatchObject({ amount: "5000000", decimals: 6 });
    const largest = await conn.getTokenLargestAccounts(mint);
    expect(largest.value.map((v) => [v.address.toBase58(), v.amount])).toEqual([
      [aliceAta.toBase58(), "3750000"],
      [bobAta.toBase58(), "1250000"],
    ]);
    const mintInfo = await conn.getParsedAccountInfo(mint);
    expect((mintInfo.value!.data as { parsed: unknown }).parsed).toMatchObject({
      type: "mint",
      info: {
        decimals: 6,
        supply: "5000000",
        mintAuthority: payer.publicKey.toBase58(),
        freezeAuthority: null,
      },
    });
  });

  it("getProgramAccounts applies dataSize and memcmp filters", async () => {
    const accounts = await conn.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint.toBase58() } }],
    });
    expect(accounts.map((a) => a.pubkey.toBase58()).sort()).toEqual(
      [aliceAta.toBase58(), bobAta.toBase58()].sort(),
    );
    const onlyBob = await conn.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: bob.publicKey.toBase58() } }],
    });
    expect(onlyBob.map((a) => a.pubkey.toBase58())).toEqual([bobAta.toBase58()]);
    const mints = await conn.getProgramAccounts(TOKEN_PROGRAM_ID, { filters: [{ dataSize: 82 }] });
    expect(mints.map((a) => a.pubkey.toBase58())).toEqual([mint.toBase58()]);
    const sliced = await conn.getProgramAccounts(TOKEN_PROGRAM_ID, {
      dataSlice: { offset: 32, length: 32 },
      filters: [{ memcmp: { offset: 32, bytes: bob.publicKey.toBase58() } }],
    });
    expect(new PublicKey(sliced[0]!.account.data).toBase58()).toBe(bob.publicKey.toBase58());
  });

  it("a failing transaction reports its logs (preflight) and lands with skipPreflight", async () => {
    const poor = Keypair.generate();
    await conn.confirmTransaction({
      signature: await conn.requestAirdrop(poor.publicKey, 1_000_000),
      ...(await conn.getLatestBlockhash()),
    });
    const overspend = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: poor.publicKey,
        toPubkey: alice.publicKey,
        lamports: 5 * LAMPORTS_PER_SOL,
      }),
    );
    const err = await sendAndConfirmTransaction(conn, overspend, [poor]).catch((e) => e);
    expect(err).toBeInstanceOf(SendTransactionError);
    const logs = await (err as SendTransactionError).getLogs(conn);
    expect(logs.join("\n")).toMatch(/insufficient lamports/);
    expect(await conn.getBalance(poor.publicKey)).toBe(1_000_000);

    const tx2 = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: poor.publicKey,
        toPubkey: alice.publicKey,
        lamports: 6 * LAMPORTS_PER_SOL,
      }),
    );
    const { blockhash } = await conn.getLatestBlockhash();
    tx2.recentBlockhash = blockhash;
    tx2.feePayer = poor.publicKey;
    tx2.sign(poor);
    const sig = await conn.sendRawTransaction(tx2.serialize(), { skipPreflight: true });
    const status = (await conn.getSignatureStatuses([sig])).value[0];
    expect(status?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await conn.getBalance(poor.publicKey)).toBe(1_000_000 - 5000);
    const landed = await conn.getTransaction(sig, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(landed?.meta?.logMessages?.join("\n")).toMatch(/insufficient lamports/);
  });

  it("simulateTransaction: logs, sigVerify off, replaceRecentBlockhash, post-state accounts", async () => {
    const carol = Keypair.generate();
    const msg = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: "11111111111111111111111111111111",
      instructions: [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: carol.publicKey,
          lamports: 1_000_000,
        }),
      ],
    }).compileToLegacyMessage();
    const unsigned = new VersionedTransaction(msg);
    const sim = await conn.simulateTransaction(unsigned, {
      sigVerify: false,
      replaceRecentBlockhash: true,
      accounts: { addresses: [carol.publicKey.toBase58()], encoding: "base64" },
    });
    expect(sim.value.err).toBeNull();
    expect(sim.value.logs?.[0]).toMatch(/Program 11111111111111111111111111111111 invoke/);
    expect(sim.value.accounts?.[0]?.lamports).toBe(1_000_000);
    expect(
      (sim.value as { replacementBlockhash?: { blockhash: string } }).replacementBlockhash?.blockhash,
    ).toBeTruthy();
    expect(await conn.getBalance(carol.publicKey)).toBe(0);

    const stale = await conn.simulateTransaction(unsigned, { sigVerify: false });
    expect(stale.value.err).toBe("BlockhashNotFound");
  });

  it("prioritization fees come from SetComputeUnitPrice of recent transactions; fee for message", async () => {
    const sig = await sendAndConfirmTransaction(
      conn,
      new Transaction()
        .add(ComputeBudgetProgram.setComputeUnitLimit({ units: 10_000 }))
        .add(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 12_345 }))
        .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: bob.publicKey, lamports: 1 })),
      [payer],
    );
    const fees = await conn.getRecentPrioritizationFees({ lockedWritableAccounts: [bob.publicKey] });
    const slot = (await conn.getSignatureStatuses([sig])).value[0]!.slot;
    expect(fees.find((f) => f.slot === slot)?.prioritizationFee).toBe(12_345);
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    // 5000 per signature + ceil(12_345 * 10_000 / 1e6) = 124
    expect(tx?.meta?.fee).toBe(5124);
    const { blockhash } = await conn.getLatestBlockhash();
    const msg = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: bob.publicKey, lamports: 1 }),
      ],
    }).compileToV0Message();
    expect((await conn.getFeeForMessage(msg)).value).toBe(5000);
  });

  it("reports cluster info web3.js reads", async () => {
    const epoch = await conn.getEpochInfo();
    expect(epoch.absoluteSlot).toBeGreaterThan(0);
    expect(await conn.getGenesisHash()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(await conn.getMinimumBalanceForRentExemption(165)).toBe(2_039_280);
    const slot = await conn.getSlot();
    const t = await conn.getBlockTime(slot);
    expect(Math.abs((t ?? 0) - Date.now() / 1000)).toBeLessThan(5);
    const { blockhash } = await conn.getLatestBlockhash();
    expect((await conn.isBlockhashValid(blockhash)).value).toBe(true);
    expect((await conn.isBlockhashValid("11111111111111111111111111111111")).value).toBe(false);
  });
});
