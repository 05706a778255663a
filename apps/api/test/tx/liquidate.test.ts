import { DEMO_WORLD } from "@cistern/localnet";
import { findBankPda, findPoolPda } from "@cistern/sdk";
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAssociatedTokenAddress } from "../../src/tx/builder/wire-instructions.ts";
import {
  buildSignSend,
  fundedWallet,
  post,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const JTO = DEMO_WORLD.tokens.find((t) => t.symbol === "JTO")!.mint as Address;
const DAY = 86_400;
const HOUR = 3_600;
const limits = { minDuration: DAY, maxDuration: 30 * DAY, maxAmountUsd: 100_000, minAmountUsd: 1 };

async function tokenBalance(w: TxWorld, owner: Address, mint: Address): Promise<bigint> {
  const ata = await findAssociatedTokenAddress(owner, mint);
  const [account] = await w.tx.state.getAccounts([ata]);
  return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
}

/** Advances the localnet clock and waits until the Clock sysvar the builder reads shows it. */
async function advanceClock(w: TxWorld, seconds: number): Promise<void> {
  const target = (await w.tx.clock.unixTime()) + seconds;
  await w.net.advanceClock(seconds);
  for (let i = 0; i < 100 && (await w.tx.clock.unixTime()) < target; i++)
    await new Promise((r) => setTimeout(r, 50));
  expect(await w.tx.clock.unixTime()).toBeGreaterThanOrEqual(target);
}

describe("liquidate: a loan unpaid past expiry + grace; its collateral goes to the pool owner", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let borrower: KeyPairSigner;
  let keeper: KeyPairSigner;
  let nftMint: Address;
  let bank: Address;
  let nftPool: Address;
  let nftLoan: Address;
  let defiLoan: Address;

  beforeAll(async () => {
    w = await startTxWorld();
    lender = (await fundedWallet(w.net)).signer;
    keeper = (await fundedWallet(w.net)).signer;
    const b = await fundedWallet(w.net);
    borrower = b.signer;
    nftMint = b.given.nfts[0]!.mint as Address;
    [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
    const created = await buildSignSend(
      w.app,
      "/nft/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "1000000000",
        mint: USDC_MINT,
        seed: "1",
        param: {
          apr: 2000,
          limits,
          collections: [{ collection: b.given.nfts[0]!.collectionId, collectionLtv: 5000, exposure: 10000 }],
        },
      },
      [lender],
    );
    expect(created.sent.error).toBeUndefined();
    nftPool = (await findPoolPda(w.programId, lender.address, 1n))[0];
    const defi = await buildSignSend(
      w.app,
      "/defi/create-pool",
      {
        bank,
        owner: lender.address,
        amount: "0",
        mint: USDC_MINT,
        seed: "2",
        param: { apr: 2000, limits, currencies: [{ currency: JTO, currencyLtv: 6000, exposure: 10000 }] },
      },
      [lender],
    );
    expect(defi.sent.error).toBeUndefined();
    w.tx.state.invalidate();
    const nft = await buildSignSend(
      w.app,
      "/nft/take-loan",
      { borrower: borrower.address, nftMint, duration: DAY, amount: "100000000", pool: nftPool },
      [borrower],
    );
    expect(nft.sent.error).toBeUndefined();
    nftLoan = nft.built.metadata.loan as Address;
    const token = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.address,
        collateralMint: JTO,
        collateralAmount: "20000000000",
        duration: 2 * DAY,
        amount: "10000000",
      },
      [borrower],
    );
    expect(token.sent.error).toBeUndefined();
    defiLoan = token.built.metadata.loan as Address;
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("refuses before expiry and inside the grace period (chain clock); nothing is issued", async () => {
    const issued = await w.tx.issued.count();
    const early = await post(w.app, "/nft/liquidate-loan", { loan: nftLoan, payer: keeper.address });
    expect(early.status).toBe(400);
    expect(early.body.message).toMatch(/cannot be liquidated yet.*grace period ends/);
    // 1 day + 30 min: expired, but a 1-day loan has 1 hour of grace.
    await advanceClock(w, DAY + 30 * 60);
    const inGrace = await post(w.app, "/nft/liquidate-loan", { loan: nftLoan, payer: keeper.address });
    expect(inGrace.status).toBe(400);
    expect(inGrace.body.message).toMatch(/cannot be liquidated yet/);
    expect(await w.tx.issued.count()).toBe(issued);
    const [loan] = await w.tx.state.getLoans([nftLoan]);
    expect(loan?.status).toBe("Ongoing");
    expect(await tokenBalance(w, lender.address, nftMint)).toBe(0n);
  }, 60_000);

  it("after grace anyone liquidates the NFT loan: the pool owner holds the NFT, the bank writes the principal off", async () => {
    await advanceClock(w, HOUR);
    const [bankBefore, poolBefore] = await Promise.all([
      w.tx.state.getBank(bank),
      w.tx.state.getPool(nftPool),
    ]);
    const { built, sent } = await buildSignSend(
      w.app,
      "/nft/liquidate-loan",
      { loan: nftLoan, payer: keeper.address, referrer: keeper.address },
      [keeper],
    );
    expect(built.kind).toBe("Normal");
    expect(built.transactions).toHaveLength(1);
    expect(built.metadata).toMatchObject({
      loan: nftLoan,
      pool: nftPool,
      poolOwner: lender.address,
      collateralMint: nftMint,
      collateralAmount: "1",
      principal: "100000000",
      referrer: keeper.address,
    });
    expect(sent.error).toBeUndefined();
    expect(typeof sent.result).toBe("string");
    const [loan] = await w.tx.state.getLoans([nftLoan]);
    expect(loan?.status).toBe("Liquidated");
    expect(await tokenBalance(w, lender.address, nftMint)).toBe(1n);
    expect(await tokenBalance(w, borrower.address, nftMint)).toBe(0n);
    const [bankAfter, poolAfter] = await Promise.all([w.tx.state.getBank(bank), w.tx.state.getPool(nftPool)]);
    expect(bankAfter!.totalLiquidity).toBe(bankBefore!.totalLiquidity - 100_000_000n);
    expect(bankAfter!.availableLiquidity).toBe(bankBefore!.availableLiquidity);
    expect(bankAfter!.ongoingLoans).toBe(bankBefore!.ongoingLoans - 1n);
    expect(poolAfter!.totalLiquidations).toBe(poolBefore!.totalLiquidations + 1n);
    expect(poolAfter!.currentLoans).toBe(poolBefore!.currentLoans - 1n);
  }, 60_000);

  it("the lender liquidates the token loan (2-day loan: 2 hours of grace) and receives the collateral tokens", async () => {
    const [loan] = await w.tx.state.getLoans([defiLoan]);
    const refused = await post(w.app, "/defi/liquidate-loan", { loan: defiLoan, payer: lender.address });
    expect(refused.status).toBe(400);
    const now = await w.tx.clock.unixTime();
    await advanceClock(w, Number(loan!.expiredAt) + 2 * HOUR + 1 - now);
    const before = await tokenBalance(w, lender.address, JTO);
    const { sent } = await buildSignSend(
      w.app,
      "/defi/liquidate-loan",
      { loan: defiLoan, payer: lender.address },
      [lender],
    );
    expect(sent.error).toBeUndefined();
    const [after] = await w.tx.state.getLoans([defiLoan]);
    expect(after?.status).toBe("Liquidated");
    expect(await tokenBalance(w, lender.address, JTO)).toBe(before + 20_000_000_000n);
    const b = await w.tx.state.getBank(bank);
    expect(b!.ongoingLoans).toBe(0n);
    expect(b!.totalLiquidity).toBe(1_000_000_000n - 110_000_000n);
  }, 60_000);

  it("refuses bad liquidation payloads with 400 before anything is built", async () => {
    const stranger = await generateKeyPairSigner();
    const cases: [string, unknown, RegExp][] = [
      ["/nft/liquidate-loan", { loan: stranger.address, payer: keeper.address }, /unknown loan/],
      ["/nft/liquidate-loan", { loan: defiLoan, payer: keeper.address }, /token loan; use the other route/],
      ["/defi/liquidate-loan", { loan: nftLoan, payer: keeper.address }, /NFT loan; use the other route/],
      ["/nft/liquidate-loan", { loan: nftLoan }, /payer/],
      ["/defi/liquidate-loan", { loan: "not-a-key", payer: keeper.address }, /loan/],
      ["/defi/liquidate-loan", { loan: defiLoan, payer: keeper.address, extra: 1 }, /extra|additional/],
    ];
    const issued = await w.tx.issued.count();
    for (const [url, payload, message] of cases) {
      const r = await post(w.app, url, payload);
      expect(r.status, `${url} ${JSON.stringify(payload)} -> ${JSON.stringify(r.body)}`).toBe(400);
      expect(String(r.body.message)).toMatch(message);
    }
    // a loan that already ended: the program's code and how it ended, no address in the sentence
    const ended = await post(w.app, "/nft/liquidate-loan", { loan: nftLoan, payer: keeper.address });
    expect(ended.status).toBe(422);
    expect(ended.body).toMatchObject({
      code: 6033,
      name: "LoanNotOngoing",
      params: { status: "Liquidated", collateral: "NFT" },
    });
    expect(String(ended.body.message)).not.toContain(nftLoan);
    expect(await w.tx.issued.count()).toBe(issued);
  }, 60_000);
});
