import { decodeBankAccount, findBankPda } from "@cistern/sdk";
import type { Address, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertBank } from "../../src/indexer/store.ts";
import { createDelegationKeeper } from "../../src/tx/keeper/delegation-keeper.ts";
import { loadServiceKeypair } from "../../src/tx/oracle/oracle-keypair.ts";
import {
  buildSignSend,
  createUsdcJtoPool,
  fundedWallet,
  JTO_MINT,
  post,
  SOL_MINT,
  startTxWorld,
  TEST_RESERVE_RATE_BPS,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;

describe("delegation of idle bank liquidity to the local lending venue, on localnet", () => {
  let w: TxWorld;
  let lender: KeyPairSigner;
  let bank: Address;
  const readBank = async () => {
    const [account] = await w.tx.state.getAccounts([bank]);
    return decodeBankAccount(account!.data);
  };
  /** The read route, after the bank's current account is indexed (this world runs no indexer). */
  const view = async () => {
    await upsertBank(w.app.cistern.db, bank, await readBank(), await w.tx.clock.slot());
    const r = await w.app.inject({ url: `/marginfi/bank?pubkey=${bank}` });
    expect(r.statusCode, r.body).toBe(200);
    return r.json();
  };

  beforeAll(async () => {
    w = await startTxWorld({ lendingVenue: true });
    lender = (await fundedWallet(w.net)).signer;
    await createUsdcJtoPool(w, lender, 1, "1000000000"); // 1,000 USDC
    [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
  }, 180_000);
  afterAll(async () => {
    await w?.close();
  });

  it("shows the venue, its rate and nothing delegated yet", async () => {
    expect(await view()).toMatchObject({
      bank,
      mint: USDC_MINT,
      isDelegationSupported: true,
      venue: "local",
      reserve: w.lendingVenue!.reserve,
      rateBps: TEST_RESERVE_RATE_BPS,
      delegatedLiquidity: "0",
      positionValue: "0",
      earnedYield: "0",
      cooldownLiquidity: "0",
      cooldownPeriod: 0,
      autoDelegate: false,
      externalAccount: null,
    });
    const unknown = await w.app.inject({ url: `/marginfi/bank?pubkey=${lender.address}` });
    expect(unknown.json()).toBeNull();
    const usdc = await w.app.inject({ url: `/marginfi/reserve?mint=${USDC_MINT}` });
    expect(usdc.json()).toMatchObject({
      isDelegationSupported: true,
      venue: "local",
      rateBps: TEST_RESERVE_RATE_BPS,
    });
    const sol = await w.app.inject({ url: `/marginfi/reserve?mint=${SOL_MINT}` });
    expect(sol.json()).toMatchObject({ isDelegationSupported: false, rateBps: 0, reserve: null });
  });

  it("refuses bad delegations with a clear error", async () => {
    const tooMuch = await post(w.app, "/bank/marginfi-deposit", {
      owner: lender.address,
      mint: USDC_MINT,
      amount: "1000000001",
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.message).toMatch(/exceeds the bank's available liquidity/);
    const noBank = await post(w.app, "/bank/marginfi-deposit", {
      owner: lender.address,
      mint: SOL_MINT,
      amount: "1",
    });
    expect(noBank.status).toBe(400);
    const nothing = await post(w.app, "/bank/marginfi-withdraw", { owner: lender.address, mint: USDC_MINT });
    expect(nothing.status).toBe(422);
    expect(nothing.body.message).toBe("This bank has nothing delegated to withdraw");
  });

  it("delegates 900 USDC with the hourly choice; a 300 USDC loan then pulls what it needs back", async () => {
    const d = await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "900000000", autoDelegate: true },
      [lender],
    );
    expect(d.sent.error).toBeUndefined();
    let b = await readBank();
    expect([b.availableLiquidity, b.delegatedLiquidity]).toEqual([100_000_000n, 900_000_000n]);
    expect(await view()).toMatchObject({ delegatedLiquidity: "900000000", autoDelegate: true });

    // the borrower's quote counts delegated liquidity, and the loan lands in one transaction
    w.tx.state.invalidate();
    const borrower = (await fundedWallet(w.net)).signer;
    const taken = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        collateralAmount: "300000000000", // 300 JTO: well above 300 USDC at the pool's 60% LTV
        duration: 7 * DAY,
        amount: "300000000",
      },
      [borrower],
    );
    expect(taken.sent.error).toBeUndefined();
    b = await readBank();
    expect(b.availableLiquidity).toBeGreaterThanOrEqual(0n);
    expect(b.availableLiquidity).toBeLessThan(1_000_000n); // pulled just what was missing (rounding up)
    // 900 delegated - about 200 pulled, plus the venue's yield accrued while the chain's clock ran (a few base units
    // on a slow machine: the bound holds whatever the run's speed)
    expect(b.delegatedLiquidity).toBeLessThanOrEqual(700_010_000n);
    expect(b.delegatedLiquidity).toBeGreaterThan(699_000_000n);
  });

  it("earns the venue's yield for the bank and withdraws it all after 30 days", async () => {
    await w.net.advanceClock(30 * DAY);
    const before = await readBank();
    // the API's chain clock is re-read in the background within seconds of the jump
    await expect
      .poll(async () => BigInt((await view()).earnedYield), { timeout: 10_000 })
      .toBeGreaterThan(4_000_000n);
    const r = await buildSignSend(
      w.app,
      "/bank/marginfi-withdraw",
      { owner: lender.address, mint: USDC_MINT },
      [lender],
    );
    expect(r.sent.error).toBeUndefined();
    const after = await readBank();
    expect(after.delegatedLiquidity).toBe(0n);
    const received = after.availableLiquidity - before.availableLiquidity;
    // about 8% a year for 30 days on ~700 USDC: 4.6 USDC, all of it the bank's
    expect(after.totalLiquidity - before.totalLiquidity).toBe(received - before.delegatedLiquidity);
    expect(received - before.delegatedLiquidity).toBeGreaterThan(4_500_000n);
    expect(received - before.delegatedLiquidity).toBeLessThan(4_700_000n);
  });

  it("the delegation keeper delegates the idle liquidity of banks that opted in, and nothing else", async () => {
    const signer = await loadServiceKeypair(
      w.tx.config.delegationKeeper.keypairPath,
      true,
      "delegation keeper",
    );
    await w.net.fundWallet(signer.address, { lamports: 1_000_000_000n });
    const logs: string[] = [];
    const keeper = createDelegationKeeper(w.tx, signer, {
      info: (_o: unknown, m?: string) => void logs.push(String(m)),
      warn: (_o: unknown, m?: string) => void logs.push(String(m)),
    } as never);
    const idle = (await readBank()).availableLiquidity;
    const round = await keeper.runRound();
    expect(round.leader).toBe(true);
    expect(round.failed).toEqual([]);
    expect(round.delegated).toEqual([expect.objectContaining({ bank, amount: idle.toString() })]);
    expect((await readBank()).availableLiquidity).toBe(0n);
    expect(logs).toContain("delegation keeper delegated a bank's idle liquidity to the lending venue");
    // the owner turns the hourly choice off: the next round leaves the bank alone
    await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "0", autoDelegate: false },
      [lender],
    );
    expect((await keeper.runRound()).delegated).toEqual([]);
  });
});
