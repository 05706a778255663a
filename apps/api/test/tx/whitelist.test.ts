import { randomBytes } from "node:crypto";
import { DEMO_WORLD } from "@cistern/localnet";
import { getPriorityFeeOptions } from "@cistern/protocol";
import { findBankPda, findPoolPda, getTakeLoanInstruction } from "@cistern/sdk";
import {
  type Address,
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  type KeyPairSigner,
} from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import { quoteLoan } from "../../src/tx/calculator/quote-service.ts";
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  decodeLookupTableAddresses,
} from "../../src/tx/chain/lookup-table-account.ts";
import { createAttestation } from "../../src/tx/oracle/attestation.ts";
import {
  buildSignSend,
  fundedWallet,
  post,
  signAll,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const JTO = DEMO_WORLD.tokens.find((t) => t.symbol === "JTO")!.mint as Address;
const DAY = 86_400;
const limits = { minDuration: DAY, maxDuration: 30 * DAY, maxAmountUsd: 100_000, minAmountUsd: 1 };
const param = { apr: 2000, limits, currencies: [{ currency: JTO, currencyLtv: 6000, exposure: 10000 }] };
const conditions = (extra: Record<string, unknown>) => ({
  minAge: "0",
  minLoan: "0",
  minVolume: "0",
  liquidationThreshold: 0,
  isEnabled: 0,
  isWhitelistEnabled: 1,
  whitelist: "11111111111111111111111111111111",
  ...extra,
});
const loanBody = (borrower: Address) => ({
  borrower,
  collateralMint: JTO,
  collateralAmount: "20000000000",
  duration: 3 * DAY,
  amount: "10000000",
});

/** A lender with a USDC defi-pool of 1,000 USDC lending against JTO. */
async function lenderWithPool(w: TxWorld, seed: number) {
  const lender = (await fundedWallet(w.net)).signer;
  const [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
  const r = await buildSignSend(
    w.app,
    "/defi/create-pool",
    { bank, owner: lender.address, amount: "1000000000", mint: USDC_MINT, seed: String(seed), param },
    [lender],
  );
  if (r.sent.result === null) throw new Error(JSON.stringify(r.sent));
  const [pool] = await findPoolPda(w.programId, lender.address, BigInt(seed));
  return { lender, pool };
}

async function readTable(w: TxWorld, table: string) {
  w.tx.state.invalidate();
  const [account] = await w.tx.state.getAccounts([table]);
  if (!account) return null;
  const data = Buffer.from(account.data);
  // Header: u32 type, u64 deactivation slot, u64 last extended slot, u8 start index, u8 authority tag, pubkey.
  const authority = data[21] === 1 ? getAddressDecoder().decode(data.subarray(22, 54)) : null;
  return { owner: account.owner, authority, addresses: decodeLookupTableAddresses(account.data) };
}

describe("private pools: update-pool's whitelistAddresses creates the whitelist lookup table on localnet", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let pool: Address;
  let allowed: KeyPairSigner;
  let stranger: KeyPairSigner;
  let table: Address;

  beforeAll(async () => {
    w = await startTxWorld();
    ({ lender, pool } = await lenderWithPool(w, 11));
    allowed = (await fundedWallet(w.net)).signer;
    stranger = (await fundedWallet(w.net)).signer;
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("refuses bad whitelists with 400 and sends nothing", async () => {
    const update = (whitelistAddresses: unknown) =>
      post(w.app, "/defi/update-pool", {
        pool,
        owner: lender.address,
        param: { ...param, conditions: conditions({ whitelistAddresses }) },
      });
    const invalid = await update([allowed.address, "not-an-address"]);
    expect(invalid.status).toBe(400);
    const shortKey = await update([allowed.address, "3yZe7d"]);
    expect(shortKey.status).toBe(400);
    const many = await Promise.all(Array.from({ length: 31 }, () => generateKeyPairSigner()));
    const tooMany = await update(many.map((s) => s.address));
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toMatch(/30/);
    const repeated = await update([allowed.address, allowed.address]);
    expect(repeated.status).toBe(400);
    expect(repeated.body.message).toMatch(/must not repeat/);
    w.tx.state.invalidate();
    const account = await w.tx.state.getPool(pool);
    expect(account?.conditions.whitelistEnabled).toBe(false);
    expect(account?.conditions.whitelist).toBeNull();
  }, 60_000);

  it("creates the table with two borrowers and sets it as the pool's whitelist in one transaction", async () => {
    const other = (await generateKeyPairSigner()).address;
    const { built, sent } = await buildSignSend(
      w.app,
      "/defi/update-pool",
      {
        pool,
        owner: lender.address,
        param: { ...param, conditions: conditions({ whitelistAddresses: [allowed.address, other] }) },
      },
      [lender],
    );
    expect(built.kind).toBe("Normal");
    expect(built.transactions).toHaveLength(1);
    expect(sent.error).toBeUndefined();
    table = address(built.metadata.whitelist as string);
    const onChain = await readTable(w, table);
    expect(onChain).toEqual({
      owner: ADDRESS_LOOKUP_TABLE_PROGRAM,
      authority: lender.address,
      addresses: [allowed.address, other],
    });
    const account = await w.tx.state.getPool(pool);
    expect(account?.conditions.whitelistEnabled).toBe(true);
    expect(account?.conditions.whitelist).toBe(table);
    const listed = await w.app.inject({ method: "GET", url: `/defi/whitelist-addresses?pool=${pool}` });
    expect(listed.json()).toEqual({ pool, whitelist: table, addresses: [allowed.address, other] });
  }, 60_000);

  it("lends to a whitelisted borrower; the quote does not offer the pool to others", async () => {
    const { built, sent } = await buildSignSend(w.app, "/defi/take-loan", loanBody(allowed.address), [
      allowed,
    ]);
    expect(sent.error).toBeUndefined();
    expect(built.metadata.pool).toBe(pool);
    const [loan] = await w.tx.state.getLoans([built.metadata.loan as string]);
    expect(loan?.status).toBe("Ongoing");
    const quote = await post(w.app, "/defi/quote", {
      collateralMint: JTO,
      collateralAmount: "20000000000",
      duration: 3 * DAY,
      borrower: stranger.address,
    });
    expect(quote.status).toBe(422);
    // the rule-book's refusal keeps the program's code and name over HTTP
    expect(quote.body).toMatchObject({ code: 6031, name: "NotWhitelisted", params: {} });
    expect(JSON.stringify(quote.body)).toMatch(/whitelist/);
    const take = await post(w.app, "/defi/take-loan", loanBody(stranger.address));
    expect(take.status).toBe(422);
  }, 90_000);

  it("the program refuses a borrower who is not on the table (NotWhitelisted), even with an oracle attestation", async () => {
    // Past the API's own check: the offer as quoted for the whitelisted borrower, the loan for a stranger.
    const { offer, valuation } = await quoteLoan(w.tx, {
      poolType: "defi-pool",
      collateralId: JTO,
      collateralAmount: 20_000_000_000n,
      durationSeconds: 3 * DAY,
      amount: 10_000_000n,
      borrower: allowed.address,
      pool,
    });
    const attestation = await createAttestation(w.tx, {
      offer,
      collection: JTO,
      borrower: stranger.address,
      valuation,
    });
    const ix = await getTakeLoanInstruction({
      poolType: "defi-pool",
      programAddress: w.programId,
      borrower: stranger.address,
      oracle: w.tx.oracle.address,
      pool,
      bank: address(offer.bankAddress),
      collateralMint: JTO,
      borrowerCollateralTokenAccount: await findAssociatedTokenAddress(stranger.address, JTO),
      borrowerCurrencyTokenAccount: await findAssociatedTokenAddress(stranger.address, USDC_MINT),
      whitelist: table,
      nonce: randomBytes(8).readBigUInt64LE(0),
      principalBaseUnits: offer.amount,
      durationSeconds: BigInt(3 * DAY),
      collateralAmountBaseUnits: 20_000_000_000n,
      expectedAprBps: offer.account.loanAprBps,
      attestation,
    });
    const built = await w.tx.factory.build({
      feePayer: stranger.address,
      groups: [[ix]],
      options: getPriorityFeeOptions(),
      needsOracle: true,
    });
    const [signed] = await signAll(built as never, [stranger]);
    const r = await post(w.app, "/send-cos-transaction", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    expect(r.status).toBe(200);
    expect(r.body.result).toBeNull();
    // decoded by code from the transaction result, not from its text
    expect(r.body.error).toMatchObject({ code: 6031, name: "NotWhitelisted", params: {} });
    const [loan] = await w.tx.state.getLoans([ix.loan]);
    expect(loan).toBeNull();
  }, 90_000);

  it("thirty addresses do not fit one transaction: a bundle creates, extends, then updates in order", async () => {
    const second = await lenderWithPool(w, 12);
    const members = (await Promise.all(Array.from({ length: 30 }, () => generateKeyPairSigner()))).map(
      (s) => s.address,
    );
    const { built, sent } = await buildSignSend(
      w.app,
      "/defi/update-pool",
      {
        pool: second.pool,
        owner: second.lender.address,
        param: { ...param, conditions: conditions({ whitelistAddresses: members }) },
      },
      [second.lender],
    );
    expect(built.kind).toBe("Bundle");
    // create + 2 extends of 10 in the first, the last extend + UpdatePool in the second.
    expect(built.transactions).toHaveLength(2);
    expect(sent.error).toBeUndefined();
    const secondTable = built.metadata.whitelist as string;
    expect((await readTable(w, secondTable))?.addresses).toEqual(members);
    const account = await w.tx.state.getPool(second.pool);
    expect(account?.conditions.whitelist).toBe(secondTable);
  }, 120_000);

  it("an existing table given as whitelist, without addresses, is used as before", async () => {
    const { sent, built } = await buildSignSend(
      w.app,
      "/defi/update-pool",
      { pool, owner: lender.address, param: { ...param, conditions: conditions({ whitelist: table }) } },
      [lender],
    );
    expect(sent.error).toBeUndefined();
    expect(built.metadata.whitelist).toBeUndefined();
    w.tx.state.invalidate();
    expect((await w.tx.state.getPool(pool))?.conditions.whitelist).toBe(table);
  }, 60_000);
});
