import { getPriorityFeeOptions } from "@cistern/protocol";
import { findBankPda, getTakeLoanInstruction } from "@cistern/sdk";
import {
  AccountRole,
  type Address,
  address,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  partiallySignTransaction,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemTransfer } from "../../src/tx/builder/wire-instructions.ts";
import {
  createUsdcJtoPool,
  DAY_SECONDS,
  fundedWallet,
  JTO_MINT,
  post,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

describe("oracle co-signing limits on localnet: never fee payer, never writable, capped fees", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  let lenderPool: Address;

  const balance = async (who: Address) =>
    BigInt((await w.tx.app.rpc.call<{ value: number }>("getBalance", [who])).value);

  /** Issues a message through the builder's factory (as a faulty builder would) and asks the sender to co-sign it. */
  const issueAndCoSign = async (
    feePayer: Address,
    instructions: Instruction[],
    signers: KeyPairSigner[] = [],
  ) => {
    const built = await w.tx.factory.build({
      feePayer,
      groups: [instructions],
      options: getPriorityFeeOptions(),
      needsOracle: true,
    });
    const tx = getTransactionDecoder().decode(Buffer.from(built.transactions[0]!, "base64"));
    const signed = await partiallySignTransaction(
      signers.map((s) => s.keyPair),
      tx,
    );
    return post(w.app, "/send-cos-transaction", { transaction: getBase64EncodedWireTransaction(signed) });
  };

  beforeAll(async () => {
    w = await startTxWorld();
    lender = (await fundedWallet(w.net)).signer;
    borrower = (await fundedWallet(w.net)).signer;
    lenderPool = await createUsdcJtoPool(w, lender, 1, "1000000000");
    // The oracle holds lamports, so a transaction it paid for could land: the refusals must stop it.
    await w.net.fundWallet(w.tx.oracle.address, { lamports: 2_000_000_000n });
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("refuses to build for the oracle as borrower or payer, and fees or tips above the cap (400)", async () => {
    const oracle = w.tx.oracle.address;
    const issued = await w.tx.issued.count();
    const takeByOracle = {
      borrower: oracle,
      collateralMint: JTO_MINT,
      collateralAmount: "20000000000",
      duration: DAY_SECONDS,
      amount: "10000000",
    };
    const cases: [string, unknown, RegExp][] = [
      [
        "/defi/take-loan",
        { ...takeByOracle, options: { type: "exactFee", amount: "50" } },
        /maximum priority fee|oracle/,
      ],
      ["/defi/take-loan", takeByOracle, /borrower must not be the oracle/],
      ["/defi/repay-loan", { borrower: oracle, loans: [lenderPool] }, /oracle/],
      [
        "/defi/take-loan",
        {
          borrower: borrower.address,
          collateralMint: JTO_MINT,
          collateralAmount: "20000000000",
          duration: DAY_SECONDS,
          amount: "10000000",
          options: { type: "exactFee", amount: "2" },
        },
        /above the maximum priority fee \/ tip of 0.01 SOL/,
      ],
      [
        "/defi/take-loan",
        {
          borrower: borrower.address,
          collateralMint: JTO_MINT,
          collateralAmount: "20000000000",
          duration: DAY_SECONDS,
          options: { broadcastMode: "jito", amount: "0.5" },
        },
        /above the maximum priority fee \/ tip of 0.01 SOL/,
      ],
    ];
    for (const [url, payload, message] of cases) {
      const r = await post(w.app, url, payload);
      expect(r.status, `${url} ${JSON.stringify(payload)} -> ${JSON.stringify(r.body)}`).toBe(400);
      expect(String(r.body.message)).toMatch(message);
    }
    expect(await w.tx.issued.count()).toBe(issued);
  }, 60_000);

  it("the sender never co-signs a message where the oracle pays or is a writable signer; nothing lands", async () => {
    const oracle = w.tx.oracle.address;
    const before = await balance(oracle);
    const attacker = await generateKeyPairSigner();
    // Oracle as fee payer (and the source of a transfer).
    const asPayer = await issueAndCoSign(oracle, [systemTransfer(oracle, attacker.address, 1_000_000_000n)]);
    expect(asPayer.status).toBe(400);
    expect(asPayer.body.message).toMatch(/oracle must never be the fee payer/);
    // Attacker pays; the oracle is a writable signer (a transfer out of it).
    await w.net.fundWallet(attacker.address, { lamports: 1_000_000_000n });
    const writable = await issueAndCoSign(
      attacker.address,
      [systemTransfer(oracle, attacker.address, 1_000_000_000n)],
      [attacker],
    );
    expect(writable.status).toBe(400);
    expect(writable.body.message).toMatch(/read-only signer/);
    // A real take-loan (oracle read-only) with the oracle also signing an unrelated instruction.
    const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const take = await getTakeLoanInstruction({
      poolType: "defi-pool",
      programAddress: w.programId,
      borrower: attacker.address,
      oracle,
      pool: lenderPool,
      bank,
      collateralMint: JTO_MINT,
      borrowerCollateralTokenAccount: attacker.address,
      borrowerCurrencyTokenAccount: attacker.address,
      whitelist: null,
      nonce: 1n,
      principalBaseUnits: 1n,
      durationSeconds: BigInt(DAY_SECONDS),
      collateralAmountBaseUnits: 1n,
      expectedAprBps: 2000,
      attestation: {
        collateralValueBaseUnits: 1n,
        collection: JTO_MINT,
        currencyPriceMicroUsd: 1_000_000n,
        walletAgeSeconds: 0n,
        pastLoans: 0n,
        volumeMicroUsd: 0n,
        slot: 0n,
      },
    });
    const memoLike: Instruction = {
      programAddress: address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"),
      accounts: [{ address: oracle, role: AccountRole.READONLY_SIGNER }],
      data: new Uint8Array([1]),
    };
    const misuse = await issueAndCoSign(attacker.address, [take, memoLike], [attacker]);
    expect(misuse.status).toBe(400);
    expect(misuse.body.message).toMatch(
      /signs only the lending program's take-loan, extend, margin-swap, refinance and take-mortgage/,
    );
    expect(await balance(oracle)).toBe(before);
  }, 60_000);
});
