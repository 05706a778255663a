import {
  createAssociatedTokenAccountInstruction,
  createMint,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeConnection, rpc, startTestLocalnet } from "./helpers.ts";

describe("token queries, Token-2022, inner instructions and token balances", () => {
  let net: Awaited<ReturnType<typeof startTestLocalnet>>;
  let conn: Connection;
  const payer = Keypair.generate();
  const owner = Keypair.generate();

  beforeAll(async () => {
    net = await startTestLocalnet({ seed: false });
    conn = new Connection(net.rpcUrl, "confirmed");
    await net.airdrop(payer.publicKey.toBase58(), 10n * BigInt(LAMPORTS_PER_SOL));
  });
  afterAll(async () => {
    closeConnection(conn);
    await net.cleanup();
  });

  it("parses Token-2022 mints and accounts and finds them by programId", async () => {
    const mint = await createMint(
      conn,
      payer,
      payer.publicKey,
      null,
      9,
      undefined,
      undefined,
      TOKEN_2022_PROGRAM_ID,
    );
    const ata = await getOrCreateAssociatedTokenAccount(
      conn,
      payer,
      mint,
      owner.publicKey,
      false,
      undefined,
      undefined,
      TOKEN_2022_PROGRAM_ID,
    );
    await mintTo(conn, payer, mint, ata.address, payer, 2_500_000_000n, [], undefined, TOKEN_2022_PROGRAM_ID);
    const res = await conn.getParsedTokenAccountsByOwner(owner.publicKey, {
      programId: TOKEN_2022_PROGRAM_ID,
    });
    expect(res.value).toHaveLength(1);
    expect(res.value[0]!.account.data.program).toBe("spl-token-2022");
    expect(res.value[0]!.account.data.parsed.info.tokenAmount).toEqual({
      amount: "2500000000",
      decimals: 9,
      uiAmount: 2.5,
      uiAmountString: "2.5",
    });
    const mintInfo = await conn.getParsedAccountInfo(mint);
    expect((mintInfo.value!.data as { program: string; parsed: { type: string } }).parsed.type).toBe("mint");
    const byMint = await conn.getParsedTokenAccountsByOwner(owner.publicKey, { mint });
    expect(byMint.value.map((v) => v.pubkey.toBase58())).toEqual([ata.address.toBase58()]);
  });

  it("records inner instructions and pre/post token balances", async () => {
    const mint = await createMint(conn, payer, payer.publicKey, null, 6);
    const ata = getAssociatedTokenAddressSync(mint, owner.publicKey);
    const sig = await sendAndConfirmTransaction(
      conn,
      new Transaction().add(
        createAssociatedTokenAccountInstruction(payer.publicKey, ata, owner.publicKey, mint),
      ),
      [payer],
    );
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    expect(tx!.meta!.innerInstructions!.length).toBeGreaterThan(0);
    expect(tx!.meta!.postTokenBalances).toEqual([
      expect.objectContaining({
        mint: mint.toBase58(),
        owner: owner.publicKey.toBase58(),
        uiTokenAmount: expect.objectContaining({ amount: "0", decimals: 6 }),
      }),
    ]);
    expect(tx!.meta!.preTokenBalances).toEqual([]);
    const minted = await mintTo(conn, payer, mint, ata, payer, 7_000_000n);
    const mtx = await conn.getTransaction(minted, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(mtx!.meta!.preTokenBalances![0]!.uiTokenAmount.amount).toBe("0");
    expect(mtx!.meta!.postTokenBalances![0]!.uiTokenAmount.amount).toBe("7000000");

    // jsonParsed: known programs are parsed like agave does, others stay partially decoded.
    const pm = await conn.getParsedTransaction(minted, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(pm!.transaction.message.instructions[0]).toMatchObject({
      program: "spl-token",
      parsed: {
        type: "mintTo",
        info: {
          account: ata.toBase58(),
          amount: "7000000",
          mint: mint.toBase58(),
          mintAuthority: payer.publicKey.toBase58(),
        },
      },
    });
    const pc = await conn.getParsedTransaction(sig, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(pc!.transaction.message.instructions[0]).toMatchObject({
      program: "spl-associated-token-account",
      parsed: {
        type: "create",
        info: { account: ata.toBase58(), wallet: owner.publicKey.toBase58(), mint: mint.toBase58() },
      },
    });
    const inner = pc!.meta!.innerInstructions!.flatMap((g) => g.instructions) as {
      program?: string;
      parsed?: { type: string };
    }[];
    expect(inner.some((ix) => ix.program === "system" && ix.parsed?.type === "createAccount")).toBe(true);
    const to = Keypair.generate().publicKey;
    const solSig = await sendAndConfirmTransaction(
      conn,
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 3_000_000 }),
      ),
      [payer],
    );
    const ps = await conn.getParsedTransaction(solSig, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(ps!.transaction.message.instructions[0]).toMatchObject({
      program: "system",
      parsed: {
        type: "transfer",
        info: { source: payer.publicKey.toBase58(), destination: to.toBase58(), lamports: 3_000_000 },
      },
    });
  });

  it("getMultipleAccounts honours encodings and dataSlice; missing accounts are null", async () => {
    const mint = await createMint(conn, payer, payer.publicKey, null, 2);
    const missing = Keypair.generate().publicKey.toBase58();
    const r = (
      await rpc(net.rpcUrl, "getMultipleAccounts", [
        [mint.toBase58(), missing],
        { encoding: "base58", dataSlice: { offset: 44, length: 2 } },
      ])
    ).result as { value: ({ data: [string, string]; space: number } | null)[] };
    expect(r.value[1]).toBeNull();
    expect(r.value[0]!.space).toBe(82);
    // bytes 44..46 of a mint: decimals (2) and isInitialized (1)
    expect(r.value[0]!.data).toEqual(["9r", "base58"]); // base58 of [2, 1] = 513 = 9r
    const big = await rpc(net.rpcUrl, "getAccountInfo", [mint.toBase58(), { encoding: "base58" }]);
    expect(big.error).toBeUndefined();
    const bigAccount = Keypair.generate().publicKey.toBase58();
    await net.setAccount(bigAccount, { lamports: 10_000_000n, data: new Uint8Array(300) });
    const full = await rpc(net.rpcUrl, "getAccountInfo", [bigAccount, { encoding: "base58" }]);
    expect(full.error?.code).toBe(-32602);
  });

  it("getTokenAccountsByDelegate finds approved accounts, with the delegate in jsonParsed", async () => {
    const { approve } = await import("@solana/spl-token");
    const mint = await createMint(conn, payer, payer.publicKey, null, 3);
    const holder = await getOrCreateAssociatedTokenAccount(conn, payer, mint, payer.publicKey);
    await mintTo(conn, payer, mint, holder.address, payer, 9_000n);
    const delegate = Keypair.generate().publicKey;
    await approve(conn, payer, holder.address, delegate, payer, 2_500n);
    type Res = {
      value: { pubkey: string; account: { data: { parsed: { info: Record<string, unknown> } } } }[];
    };
    const byDelegate = async (who: string) =>
      (
        await rpc(net.rpcUrl, "getTokenAccountsByDelegate", [
          who,
          { mint: mint.toBase58() },
          { encoding: "jsonParsed" },
        ])
      ).result as Res;
    const r = await byDelegate(delegate.toBase58());
    expect(r.value.map((v) => v.pubkey)).toEqual([holder.address.toBase58()]);
    expect(r.value[0]!.account.data.parsed.info).toMatchObject({
      delegate: delegate.toBase58(),
      delegatedAmount: { amount: "2500", decimals: 3, uiAmountString: "2.5" },
      tokenAmount: { amount: "9000" },
    });
    expect((await byDelegate(Keypair.generate().publicKey.toBase58())).value).toEqual([]);
  });

  it("getTokenLargestAccounts and getTokenSupply reject non-mints", async () => {
    expect((await rpc(net.rpcUrl, "getTokenSupply", [payer.publicKey.toBase58()])).error?.code).toBe(-32602);
    expect((await rpc(net.rpcUrl, "getTokenAccountBalance", [payer.publicKey.toBase58()])).error?.code).toBe(
      -32602,
    );
    expect(
      (
        await rpc(net.rpcUrl, "getTokenAccountsByOwner", [
          owner.publicKey.toBase58(),
          { programId: payer.publicKey.toBase58() },
        ])
      ).error?.code,
    ).toBe(-32602);
  });
});
