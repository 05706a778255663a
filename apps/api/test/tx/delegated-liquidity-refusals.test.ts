/**
 * Extend, margin swap and loan-request fills cannot pull a bank's delegated liquidity back from the lending venue
 * (only TakeLoan does): when the pool's idle liquidity is short but its delegated liquidity would have covered the
 * loan, each is refused before anything is signed with LOAN_LIQUIDITY_DELEGATED (2011), whose sentence says what to
 * do; nothing moves on chain. The rule does not depend on the venue (it reads the bank's books): this world pins
 * the local lending venue (the marginfi world is marginfi-delegation.test.ts).
 */
import { type CodedErrorBody, describeErrorForUser, ERROR_CODES, formatMoney } from "@cistern/protocol";
import { decodeBankAccount, decodeLoanAccount, decodeRequestAccount, findBankPda } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildSignSend,
  createUsdcJtoPool,
  fundedWallet,
  JTO_MINT,
  post,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const USDC = 1_000_000n;

describe("Extend, margin swap and request fills refuse clearly when the pool's liquidity is delegated", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  let bank: Address;
  let loan: Address;
  const read = async (address: Address) => (await w.tx.state.getAccounts([address]))[0]!.data;
  /** The sentence a user reads for an API error body (packages/protocol's, from its code). */
  const sentence = (body: Record<string, unknown>) =>
    describeErrorForUser(body as unknown as CodedErrorBody, { amount: (a, m) => formatMoney(a, m) });

  /** The borrower's request for `principal` USDC against `jto` JTO (base units), posted and landed. */
  const postTokenRequest = (principal: bigint, jto: bigint) =>
    buildSignSend(
      w.app,
      "/defi/post-loan-request",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        collateralAmount: String(jto),
        currency: USDC_MINT,
        amount: String(principal),
        duration: 7 * DAY,
        maxApr: 4000,
      },
      [borrower],
    );

  beforeAll(async () => {
    w = await startTxWorld({ swapVenue: true, lendingVenue: true });
    lender = (await fundedWallet(w.net)).signer;
    borrower = (await fundedWallet(w.net)).signer;
    await createUsdcJtoPool(w, lender, 1, String(1_000n * USDC));
    [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    // a 50 USDC loan to extend later, then 900 USDC delegated: 50 USDC stays idle
    const taken = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        collateralAmount: "300000000000",
        duration: 7 * DAY,
        amount: String(50n * USDC),
      },
      [borrower],
    );
    expect(taken.sent.error).toBeUndefined();
    loan = taken.built.metadata.loan as Address;
    const d = await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: String(900n * USDC) },
      [lender],
    );
    expect(d.sent.error).toBeUndefined();
    const b = decodeBankAccount(await read(bank));
    expect([b.availableLiquidity, b.delegatedLiquidity]).toEqual([50n * USDC, 900n * USDC]);
    w.tx.state.invalidate();
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("Extend for more than the idle liquidity: refused before signing, naming what can be lent; the loan and bank are untouched", async () => {
    const bankBefore = await read(bank);
    const loanBefore = await read(loan);
    const r = await post(w.app, "/defi/extend-loan", {
      borrower: borrower.address,
      loan,
      duration: 5 * DAY,
      amount: String(200n * USDC),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({
      code: ERROR_CODES.LOAN_LIQUIDITY_DELEGATED,
      name: "LOAN_LIQUIDITY_DELEGATED",
      params: { mint: USDC_MINT, delegatedAmount: String(900n * USDC), viewer: "borrower" },
    });
    // idle 50 USDC plus the old loan's 50 USDC principal and the lender's share of its interest
    const idle = BigInt((r.body.params as Record<string, string>).maxAmount!);
    expect(idle).toBeGreaterThanOrEqual(100n * USDC);
    expect(idle).toBeLessThan(101n * USDC);
    expect(sentence(r.body)).toBe(
      `Most of this pool's funds are delegated to a lending venue, which this transaction cannot pull them back from, so the pool can lend ${formatMoney(idle, USDC_MINT)} right now: ask for at most that, or choose another pool.`,
    );
    expect(Buffer.from(await read(bank)).equals(Buffer.from(bankBefore))).toBe(true);
    expect(Buffer.from(await read(loan)).equals(Buffer.from(loanBefore))).toBe(true);
    expect(decodeLoanAccount(await read(loan)).status).toBe("Ongoing");
  }, 60_000);

  it("a margin swap for more than the idle liquidity: refused before signing; one within it still builds", async () => {
    const bankBefore = await read(bank);
    const ask = (amount: bigint) =>
      post(w.app, "/defi/margin-swap", {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        currency: USDC_MINT,
        downPayment: String(100n * USDC),
        amount: String(amount),
        duration: 7 * DAY,
      });
    const r = await ask(100n * USDC);
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({
      code: ERROR_CODES.LOAN_LIQUIDITY_DELEGATED,
      params: { mint: USDC_MINT, maxAmount: String(50n * USDC), viewer: "borrower" },
    });
    expect(sentence(r.body)).toMatch(
      /can lend 50 USDC right now: ask for at most that, or choose another pool\.$/,
    );
    expect(Buffer.from(await read(bank)).equals(Buffer.from(bankBefore))).toBe(true);
    // within the idle liquidity the builder answers a transaction (not signed here)
    const within = await ask(40n * USDC);
    expect(within.status, JSON.stringify(within.body)).toBe(200);
  }, 60_000);

  it("filling a request for more than the idle liquidity: the lender is told to withdraw delegated funds first; the request stays open", async () => {
    const posted = await postTokenRequest(80n * USDC, 200_000_000_000n);
    expect(posted.sent.error).toBeUndefined();
    const request = posted.built.metadata.request as Address;
    w.tx.state.invalidate();
    const bankBefore = await read(bank);
    const r = await post(w.app, "/loan-request/fill", { lender: lender.address, request });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({
      code: ERROR_CODES.LOAN_LIQUIDITY_DELEGATED,
      params: { maxAmount: String(50n * USDC), viewer: "lender" },
    });
    expect(sentence(r.body)).toBe(
      "Your bank's idle funds are delegated to the lending venue, and filling a request cannot pull them back: withdraw delegated funds on My pools, then fill the request.",
    );
    expect(Buffer.from(await read(bank)).equals(Buffer.from(bankBefore))).toBe(true);
    expect(decodeRequestAccount(await read(request)).status).toBe("Open");

    // more than idle and delegated together is still the plain shortfall
    const huge = await postTokenRequest(2_000n * USDC, 100_000_000_000n);
    expect(huge.sent.error).toBeUndefined();
    w.tx.state.invalidate();
    const plain = await post(w.app, "/loan-request/fill", {
      lender: lender.address,
      request: huge.built.metadata.request,
    });
    expect(plain.status).toBe(422);
    expect(plain.body.name).toBe("InsufficientLiquidity");

    // once the lender withdraws the delegated funds, the same fill lands
    const back = await buildSignSend(
      w.app,
      "/bank/marginfi-withdraw",
      { owner: lender.address, mint: USDC_MINT },
      [lender],
    );
    expect(back.sent.error).toBeUndefined();
    w.tx.state.invalidate();
    const filled = await buildSignSend(w.app, "/loan-request/fill", { lender: lender.address, request }, [
      lender,
    ]);
    expect(filled.sent.error).toBeUndefined();
    expect(decodeRequestAccount(await read(request)).status).not.toBe("Open");
  }, 90_000);
});
