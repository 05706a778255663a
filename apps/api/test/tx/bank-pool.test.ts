import { DEMO_WORLD } from "@cistern/localnet";
import { findBankPda, findPoolPda } from "@cistern/sdk";
import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setComputeUnitLimit, systemTransfer } from "../../src/tx/builder/wire-instructions.ts";
import {
  type Built,
  buildSignSend,
  createWorldIndexer,
  fundedWallet,
  post,
  SOL_MINT,
  signAll,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const COLLECTION = DEMO_WORLD.collections[0]!.collectionId as Address;
const COLLATERAL_TOKEN = DEMO_WORLD.tokens.find((t) => t.role === "collateral")!.mint as Address;

const limits = { minDuration: 86_400, maxDuration: 30 * 86_400, maxAmountUsd: 100_000, minAmountUsd: 10 };

/** A transaction a wallet built and signed itself (not issued by the builder). */
function signedOwnTransaction(
  payer: KeyPairSigner,
  lifetime: { blockhash: string; lastValidBlockHeight: number },
  instructions: Instruction[],
) {
  return signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          {
            blockhash: lifetime.blockhash as Blockhash,
            lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight),
          },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  );
}

describe("bank and pool transactions built, signed, sent and confirmed on localnet", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let bank: Address;

  beforeAll(async () => {
    w = await startTxWorld({ blockhashMinValidityMs: 0 });
    lender = (await fundedWallet(w.net)).signer;
    [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it("deposits USDC (creating the bank), then withdraws part of it", async () => {
    const dep = await buildSignSend(
      w.app,
      "/bank/deposit",
      {
        owner: lender.address,
        mint: USDC_MINT,
        amount: "1000000000",
        referrer: null,
        options: { priorityFeeLevel: "medium" },
      },
      [lender],
    );
    expect(dep.built.kind).toBe("Normal");
    expect(dep.built.metadata.bankCreated).toBe(true);
    expect(dep.sent.error).toBeUndefined();
    expect(typeof dep.sent.result).toBe("string");
    let account = await w.tx.state.getBank(bank);
    expect(account?.availableLiquidity).toBe(1_000_000_000n);
    expect(account?.owner).toBe(lender.address);

    const wd = await buildSignSend(
      w.app,
      "/bank/withdraw",
      { owner: lender.address, mint: USDC_MINT, amount: "200000000" },
      [lender],
    );
    expect(wd.sent.error).toBeUndefined();
    account = await w.tx.state.getBank(bank);
    expect(account?.availableLiquidity).toBe(800_000_000n);
    expect(account?.totalLiquidity).toBe(800_000_000n);
  }, 60_000);

  it("wraps SOL into a SOL bank and unwraps it on withdraw", async () => {
    const [solBank] = await findBankPda(w.programId, lender.address, SOL_MINT);
    const dep = await buildSignSend(
      w.app,
      "/bank/deposit",
      { owner: lender.address, mint: SOL_MINT, amount: "2000000000" },
      [lender],
    );
    expect(dep.sent.error).toBeUndefined();
    expect((await w.tx.state.getBank(solBank))?.availableLiquidity).toBe(2_000_000_000n);
    const before = BigInt((await w.tx.app.rpc.call<{ value: number }>("getBalance", [lender.address])).value);
    const wd = await buildSignSend(
      w.app,
      "/bank/withdraw",
      { owner: lender.address, mint: SOL_MINT, amount: "500000000" },
      [lender],
    );
    expect(wd.sent.error).toBeUndefined();
    expect((await w.tx.state.getBank(solBank))?.availableLiquidity).toBe(1_500_000_000n);
    const after = BigInt((await w.tx.app.rpc.call<{ value: number }>("getBalance", [lender.address])).value);
    // 0.5 SOL came back as native SOL (minus fees; the temporary wSOL account's rent is refunded).
    expect(after - before).toBeGreaterThan(499_000_000n);
    // /send-transaction-tmp answers the signature at once, without waiting for confirmation.
    const b = await post(w.app, "/bank/deposit", { owner: lender.address, mint: SOL_MINT, amount: "1000" });
    const built = b.body as unknown as Built;
    const [signed] = await signAll(built, [lender]);
    const tmp = await post(w.app, "/send-transaction-tmp", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(typeof tmp.body.result).toBe("string");
    for (
      let i = 0;
      i < 100 && (await w.tx.state.getBank(solBank))?.availableLiquidity !== 1_500_001_000n;
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
    expect((await w.tx.state.getBank(solBank))?.availableLiquidity).toBe(1_500_001_000n);
  }, 60_000);

  it("creates, updates and closes an nft-pool and creates a defi-pool", async () => {
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "100000000",
        mint: USDC_MINT,
        seed: "7",
        param: {
          apr: 3650,
          limits,
          collections: [{ collection: COLLECTION, collectionLtv: 5000, exposure: 10000 }],
        },
        referrer: lender.address,
      },
      [lender],
    );
    expect(created.sent.error).toBeUndefined();
    const [pool] = await findPoolPda(w.programId, lender.address, 7n);
    expect(created.built.metadata.pool).toBe(pool);
    expect(created.built.metadata.referrer).toBe(lender.address);
    let account = await w.tx.state.getPool(pool);
    expect(account).toMatchObject({
      poolType: "nft-pool",
      status: "Open",
      loanAprBps: 3650,
      bank,
      owner: lender.address,
    });
    expect(account?.maxDurationSeconds).toBe(2_592_000n);
    expect(account?.minAmountMicroUsd).toBe(10_000_000n);
    expect(account?.collections).toEqual([
      { id: COLLECTION, ltvBps: 5000, exposureBps: 10000, borrowedAmount: 0n, ongoingLoans: 0n },
    ]);
    expect((await w.tx.state.getBank(bank))?.availableLiquidity).toBe(900_000_000n);

    const updated = await buildSignSend(
      w.app,
      "/nft/update-pool",
      {
        pool,
        owner: lender.address,
        status: "Frozen",
        enableAutoSell: true,
        enableMortgage: true,
        param: {
          apr: 5000,
          loanApr: 5000,
          mortgageApr: 5000,
          limits: { ...limits, maxAmountUsd: 5000 },
          conditions: {
            minAge: "86400",
            minLoan: "1",
            minVolume: "100",
            liquidationThreshold: 0,
            isEnabled: 1,
            isWhitelistEnabled: 0,
            whitelist: "11111111111111111111111111111111",
            whitelistAddresses: [],
          },
          liquidation: { isAutoSellEnabled: true, loanLiquidation: 1000, mortgageLiquidation: 2000 },
          collections: [{ collection: COLLECTION, collectionLtv: 4000, exposure: 5000 }],
        },
      },
      [lender],
    );
    expect(updated.sent.error).toBeUndefined();
    account = await w.tx.state.getPool(pool);
    expect(account).toMatchObject({ status: "Frozen", loanAprBps: 5000, mortgageAprBps: 5000 });
    expect(account?.flags).toEqual({ autoSell: true, mortgage: true, compounding: false });
    expect(account?.maxAmountMicroUsd).toBe(5_000_000_000n);
    expect(account?.conditions).toMatchObject({
      isEnabled: true,
      minAgeSeconds: 86_400n,
      minLoanCount: 1n,
      minVolumeMicroUsd: 100_000_000n,
      // the program has no liquidation threshold: the API writes none (and refuses one: pool-settings.test.ts)
      liquidationThresholdBps: 0,
    });
    expect(account?.collections[0]).toMatchObject({ ltvBps: 4000, exposureBps: 5000 });

    const closed = await buildSignSend(w.app, "/nft/close-pool", { pool, owner: lender.address }, [lender]);
    expect(closed.sent.error).toBeUndefined();
    expect(await w.tx.state.getPool(pool)).toBeNull();

    const defi = await buildSignSend(
      w.app,
      "/defi/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "0",
        mint: USDC_MINT,
        seed: "8",
        param: {
          apr: 2000,
          limits,
          currencies: [{ currency: COLLATERAL_TOKEN, currencyLtv: 6000, exposure: 8000 }],
        },
      },
      [lender],
    );
    expect(defi.sent.error).toBeUndefined();
    const [defiPool] = await findPoolPda(w.programId, lender.address, 8n);
    expect((await w.tx.state.getPool(defiPool))?.poolType).toBe("defi-pool");
  }, 120_000);

  it("updates pool metadata and the user profile with a wallet-signed link message", async () => {
    const [defiPool] = await findPoolPda(w.programId, lender.address, 8n);
    const indexer = createWorldIndexer(w);
    await indexer.reconcile();
    // the wallet asks for the link message, signs it, and the API accepts that signature once
    const linkFor = async (signer: KeyPairSigner) => {
      const issued = await post(w.app, "/user/link-message", { wallet: signer.address });
      expect(issued.status).toBe(200);
      const message = issued.body.message as string;
      const signature = getBase58Decoder().decode(
        await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(message)),
      );
      return { message, signature };
    };
    const thumbnail = "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'/>";
    const first = await linkFor(lender);
    const ok = await post(w.app, "/pool/update", {
      pool: defiPool,
      owner: lender.address,
      ...first,
      name: "Lender's JTO pool",
      thumbnail,
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const meta = (
      await w.app.inject({ method: "GET", url: `/dirty/pools-metadata?pubkeys=${defiPool}` })
    ).json() as {
      pubkey: string;
      metadata: { name: string; thumbnail: string };
    }[];
    expect(meta).toEqual([{ pubkey: defiPool, metadata: { name: "Lender's JTO pool", thumbnail } }]);

    const replay = await post(w.app, "/pool/update", {
      pool: defiPool,
      owner: lender.address,
      ...first,
      name: "again",
    });
    expect([replay.status, replay.body.code]).toEqual([409, 11005]);

    const stranger = await generateKeyPairSigner();
    let r = await post(w.app, "/pool/update", {
      pool: defiPool,
      owner: stranger.address,
      ...(await linkFor(stranger)),
      name: "mine",
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/not the owner/);
    // the stranger's signature of the lender's message
    const lenderMessage = await linkFor(lender);
    const strangerSig = getBase58Decoder().decode(
      await signBytes(stranger.keyPair.privateKey, new TextEncoder().encode(lenderMessage.message)),
    );
    r = await post(w.app, "/pool/update", {
      pool: defiPool,
      owner: lender.address,
      message: lenderMessage.message,
      signature: strangerSig,
      name: "mine",
    });
    expect([r.status, r.body.code]).toEqual([400, 11003]);
    r = await post(w.app, "/pool/update", {
      pool: defiPool,
      owner: lender.address,
      ...lenderMessage,
      thumbnail: "https://pbs.twimg.com/a.png",
    });
    expect(r.status).toBe(400);
    const [row] = await w.tx.app.db.query<{ name: string }>("SELECT name FROM pools WHERE pubkey = $1", [
      defiPool,
    ]);
    expect(row?.name).toBe("Lender's JTO pool");

    const user = await post(w.app, "/user/update", {
      pubkey: lender.address,
      ...(await linkFor(lender)),
      username: "lender",
      image: thumbnail,
    });
    expect(user.body).toEqual({ pubkey: lender.address, username: "lender", image: thumbnail });
    const again = await post(w.app, "/user/update", {
      pubkey: lender.address,
      ...(await linkFor(lender)),
      username: "lender2",
    });
    expect(again.body).toEqual({ pubkey: lender.address, username: "lender2", image: thumbnail });
    // a message issued for the lender, signed by the lender, presented as the stranger's
    r = await post(w.app, "/user/update", {
      pubkey: stranger.address,
      ...(await linkFor(lender)),
      username: "thief",
    });
    expect(r.status).toBe(400);
  }, 60_000);

  it("refuses bad payloads with a 400 and a clear message, before anything reaches the chain", async () => {
    const stranger = await generateKeyPairSigner();
    const [defiPool] = await findPoolPda(w.programId, lender.address, 8n);
    const cases: [string, unknown, RegExp][] = [
      ["/bank/deposit", { owner: lender.address, mint: USDC_MINT }, /amount/],
      ["/bank/deposit", { owner: 12, mint: USDC_MINT, amount: "1" }, /owner/],
      ["/bank/deposit", { owner: lender.address, mint: USDC_MINT, amount: "1.5" }, /too many decimals/],
      ["/bank/deposit", { owner: lender.address, mint: USDC_MINT, amount: "abc" }, /amount/],
      ["/bank/deposit", { owner: lender.address, mint: USDC_MINT, amount: "0" }, /greater than 0/],
      ["/bank/withdraw", { owner: stranger.address, mint: USDC_MINT, amount: "5" }, /has no bank/],
      ["/defi/close-pool", { pool: stranger.address, owner: lender.address }, /unknown pool/],
      ["/defi/close-pool", { pool: defiPool, owner: stranger.address }, /not the owner/],
      ["/nft/close-pool", { pool: defiPool, owner: lender.address }, /is a defi-pool/],
      [
        "/nft/create-pool",
        {
          bank: stranger.address,
          owner: lender.address,
          amount: "0",
          mint: USDC_MINT,
          param: {
            apr: 100,
            limits,
            collections: [{ collection: COLLECTION, collectionLtv: 5000, exposure: 100 }],
          },
        },
        /is not the bank/,
      ],
      [
        "/nft/create-pool",
        {
          bank,
          owner: lender.address,
          amount: "0",
          mint: USDC_MINT,
          param: {
            apr: 100,
            limits: { ...limits, minDuration: 5 },
            collections: [{ collection: COLLECTION, collectionLtv: 5000, exposure: 100 }],
          },
        },
        /minDuration/,
      ],
      [
        "/nft/create-pool",
        {
          bank,
          owner: lender.address,
          amount: "0",
          mint: USDC_MINT,
          param: {
            apr: 100,
            limits,
            collections: [{ collection: COLLECTION, collectionLtv: 20000, exposure: 100 }],
          },
        },
        /ltvBps/,
      ],
      [
        "/bank/deposit",
        { owner: lender.address, mint: USDC_MINT, amount: "1", options: { amount: "0.0000000001" } },
        /options.amount/,
      ],
    ];
    const issuedBefore = await w.tx.issued.count();
    for (const [url, payload, message] of cases) {
      const r = await post(w.app, url, payload);
      expect(r.status, `${url} ${JSON.stringify(payload)}`).toBe(400);
      expect(String(r.body.message)).toMatch(message);
    }
    expect(await w.tx.issued.count()).toBe(issuedBefore);
  }, 60_000);

  it("sends a bundle all or none: a failing second transaction leaves the first unlanded", async () => {
    const payer = (await fundedWallet(w.net)).signer;
    const lifetime = await w.tx.clock.lifetime();
    const signedTransfer = async (to: Address, lamports: bigint) =>
      getBase64EncodedWireTransaction(
        await signedOwnTransaction(payer, lifetime, [systemTransfer(payer.address, to, lamports)]),
      );
    const balance = async (a: Address) =>
      (await w.tx.app.rpc.call<{ value: number }>("getBalance", [a, { commitment: "confirmed" }])).value;
    const first = (await generateKeyPairSigner()).address;
    const payerBefore = await balance(payer.address);
    const refused = await post(w.app, "/send-bundle", {
      transactions: [await signedTransfer(first, 5_000_000n), await signedTransfer(first, 10n ** 15n)],
      blockHeight: lifetime.lastValidBlockHeight,
    });
    expect(refused.status).toBe(200);
    expect(refused.body.result).toBeNull();
    // the System Program refused the second transfer (its error 1: not enough lamports)
    expect((refused.body.error as { message: string }).message).toMatch(
      /System program refused this transaction \(error 1\)/,
    );
    expect(await balance(first)).toBe(0);
    expect(await balance(payer.address)).toBe(payerBefore);
    // the same two without the failing amount land together
    const second = (await generateKeyPairSigner()).address;
    const landed = await post(w.app, "/send-bundle", {
      transactions: [await signedTransfer(first, 5_000_000n), await signedTransfer(second, 6_000_000n)],
      blockHeight: lifetime.lastValidBlockHeight,
    });
    expect(landed.body.error).toBeUndefined();
    expect((landed.body.signatures as string[]).length).toBe(2);
    expect([await balance(first), await balance(second)]).toEqual([5_000_000, 6_000_000]);
  });

  it("sender refuses an altered message, a message it never built and an expired one", async () => {
    const b = await post(w.app, "/bank/deposit", { owner: lender.address, mint: USDC_MINT, amount: "1000" });
    const built = b.body as unknown as Built;
    const [signed] = await signAll(built, [lender]);
    // Co-signing a message that does not need the oracle is refused.
    let r = await post(w.app, "/send-cos-transaction", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/does not need the oracle/);
    // Altered: one byte of the message changed (then re-signed by the user) -> not issued.
    const tx = getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64"));
    const bytes = new Uint8Array(tx.messageBytes);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    const altered = await partiallySignTransaction([lender.keyPair], { ...tx, messageBytes: bytes as never });
    r = await post(w.app, "/send-cos-transaction", { transaction: getBase64EncodedWireTransaction(altered) });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/did not build this message/);
    // Never built: a fresh wallet's own transaction.
    const other = await generateKeyPairSigner();
    const lifetime = await w.tx.clock.lifetime();
    const foreign = await signedOwnTransaction(other, lifetime, [setComputeUnitLimit(10_000)]);
    r = await post(w.app, "/send-cos-bundle", { transactions: [getBase64EncodedWireTransaction(foreign)] });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/did not build this message/);
    // Missing/empty lists and junk.
    r = await post(w.app, "/send-bundle", { transactions: [] });
    expect(r.body.message).toBe("No transactions provided");
    r = await post(w.app, "/send-transaction", { transaction: "!!", kind: "Strange" });
    expect(r.body.message).toBe("Unknown transaction kind");
    r = await post(w.app, "/send-transaction", { transaction: "AAAA" });
    expect(r.status).toBe(400);
    // Expired: wait until the block height passes the message's last valid height.
    while ((await w.tx.clock.blockHeight()) <= built.lastValidBlockHeight)
      await new Promise((s) => setTimeout(s, 250));
    r = await post(w.app, "/send-transaction", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/block height exceeded/);
    r = await post(w.app, "/send-cos-transaction", { transaction: signed });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/did not build|expired/);
    // Nothing was deposited by any of these.
    expect((await w.tx.state.getBank(bank))?.availableLiquidity).toBe(900_000_000n);
  }, 240_000);
});
