/**
 * Delegation through the real marginfi v2 program on the localnet (the vendored mainnet build at its mainnet id,
 * the Pyth price accounts the localnet posts): a marginfi group and USDC / SOL banks made by marginfi's own
 * admin instructions, a marginfi market with a borrower, the lending program pinning marginfi's program and
 * group, and the API configured with them (MARGINFI_GROUP / MARGINFI_BANKS): the read routes, the builders, the
 * keeper and a loan pulling from marginfi, against the chain.
 */
import { marginfiConfigureBank } from "@cistern/localnet";
import { decodeBankAccount, findBankPda } from "@cistern/sdk";
import type { Address, Instruction, KeyPairSigner } from "@solana/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertBank } from "../../src/indexer/store.ts";
import { createDelegationKeeper } from "../../src/tx/keeper/delegation-keeper.ts";
import { loadServiceKeypair } from "../../src/tx/oracle/oracle-keypair.ts";
import {
  decodeMarginfiAccount,
  decodeMarginfiBank,
  I80F48_ONE,
} from "../../src/venues/lending/marginfi-accounts.ts";
import {
  createMarginfiMarket,
  generateMarginfiKeys,
  MARGINFI,
  type MarginfiKeys,
  marginfiEnv,
  sendInstructions,
} from "./support/marginfi-market.ts";
import {
  advanceClock,
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

describe("delegation through marginfi v2 on the localnet (API routes, builders, keeper)", () => {
  let w: TxWorld;
  let admin: KeyPairSigner;
  let keys: MarginfiKeys;
  let lender: KeyPairSigner;
  let bank: Address;

  const readBank = async () => {
    const [account] = await w.tx.state.getAccounts([bank]);
    return decodeBankAccount(account!.data);
  };
  const readChain = async (a: Address) => (await w.tx.state.getAccounts([a]))[0]!.data;
  const view = async () => {
    await upsertBank(w.app.cistern.db, bank, await readBank(), await w.tx.clock.slot());
    const r = await w.app.inject({ url: `/marginfi/bank?pubkey=${bank}` });
    expect(r.statusCode, r.body).toBe(200);
    return r.json();
  };
  const send = (signers: KeyPairSigner[], instructions: Instruction[]) =>
    sendInstructions(w, signers, instructions);
  /** The bank's marginfi position as marginfi's accounts say: floor(asset shares x asset share value). */
  const marginfiValue = async () => {
    const position = (await view()).externalAccount as Address | null;
    if (position === null) return 0n;
    const account = decodeMarginfiAccount(await readChain(position));
    const mb = decodeMarginfiBank(await readChain(keys.banks.USDC.address));
    const shares = account.balances.find((b) => b.bank === keys.banks.USDC.address)?.assetShares ?? 0n;
    return (shares * mb.assetShareValue) / I80F48_ONE / I80F48_ONE;
  };

  beforeAll(async () => {
    keys = await generateMarginfiKeys();
    w = await startTxWorld({ env: marginfiEnv(keys) });
    // marginfi's admin makes the group and the banks on the price accounts the localnet posts; a trader lends
    // 2,000 USDC and borrows 1,000 USDC against 100 SOL (50% utilization); marginfi is pinned as the venue
    admin = await createMarginfiMarket(w, keys);
    lender = (await fundedWallet(w.net)).signer;
    await createUsdcJtoPool(w, lender, 1, "1000000000"); // 1,000 USDC
    [bank] = await findBankPda(w.programId, lender.address, USDC_MINT);
  }, 240_000);
  afterAll(async () => {
    await w?.close();
  });

  it("reads marginfi's live bank: its curve's rate at 50% utilization", async () => {
    const usdc = (await w.app.inject({ url: `/marginfi/reserve?mint=${USDC_MINT}` })).json();
    // base rate 0.5 / 0.9 x 12% = 6.67%; depositors get base x utilization = 3.33%
    expect(usdc).toMatchObject({
      isDelegationSupported: true,
      venue: "marginfi",
      reserve: keys.banks.USDC.address,
      rateBps: 333,
    });
    expect(await view()).toMatchObject({
      isDelegationSupported: true,
      venue: "marginfi",
      venueProgram: MARGINFI,
      reserve: keys.banks.USDC.address,
      rateBps: 333,
      delegatedLiquidity: "0",
      positionValue: "0",
      externalAccount: null,
    });
  });

  it("delegates 600 USDC into the bank's marginfi account, and the books show marginfi's value", async () => {
    const d = await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "600000000" },
      [lender],
    );
    expect(d.sent.error).toBeUndefined();
    const b = await readBank();
    expect(b.availableLiquidity).toBe(400_000_000n);
    expect(b.delegatedLiquidity).toBe(await marginfiValue());
    expect(b.delegatedLiquidity).toBeGreaterThanOrEqual(599_999_999n);
    const v = await view();
    expect(v.externalAccount).not.toBeNull();
    expect(v.positionValue).toBe(b.delegatedLiquidity.toString());
  });

  it("30 days later the next delegation marks marginfi's interest to the base unit; withdrawing pays exactly it", async () => {
    await w.net.advanceClock(30 * DAY);
    await w.net.marginfiOracles.refresh();
    const before = await readBank();
    const d = await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "100000000" },
      [lender],
    );
    expect(d.sent.error).toBeUndefined();
    const b = await readBank();
    const value = await marginfiValue();
    expect(b.delegatedLiquidity).toBe(value);
    const earned = value - before.delegatedLiquidity - 100_000_000n;
    // our 600 USDC took marginfi's utilization to 1,000 / 2,600 = 38.5%: base 38.5 / 90 x 12% = 5.1%, paid to
    // depositors x 38.5% = 1.97% a year; 30 days on 600 USDC: about 0.97 USDC
    expect(earned).toBeGreaterThan(950_000n);
    expect(earned).toBeLessThan(1_000_000n);
    expect(b.totalLiquidity - before.totalLiquidity).toBe(earned);
    const r = await buildSignSend(
      w.app,
      "/bank/marginfi-withdraw",
      { owner: lender.address, mint: USDC_MINT },
      [lender],
    );
    expect(r.sent.error).toBeUndefined();
    const after = await readBank();
    expect(after.delegatedLiquidity).toBe(0n);
    expect(after.availableLiquidity - b.availableLiquidity).toBeGreaterThanOrEqual(value);
    expect(after.totalLiquidity).toBe(after.availableLiquidity);
  });

  it("a paused marginfi bank: the lender is told before signing (delegate and withdraw), and the reserve says delegation is unavailable", async () => {
    await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "50000000" },
      [lender],
    );
    await send(
      [admin],
      [
        marginfiConfigureBank({
          group: keys.group.address,
          admin: admin.address,
          bank: keys.banks.USDC.address,
          operationalState: 0,
        }),
      ],
    );
    const r = await post(w.app, "/bank/marginfi-deposit", {
      owner: lender.address,
      mint: USDC_MINT,
      amount: "1",
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toMatch(/paused/);
    expect(r.body).toMatchObject({ code: 6061, name: "VenuePaused" });
    const reserve = (await w.app.inject({ url: `/marginfi/reserve?mint=${USDC_MINT}` })).json();
    expect(reserve).toMatchObject({ isDelegationSupported: false });
    const back = await post(w.app, "/bank/marginfi-withdraw", { owner: lender.address, mint: USDC_MINT });
    expect(back.status).toBe(422);
    expect(back.body.message).toMatch(/paused/);
    await send(
      [admin],
      [
        marginfiConfigureBank({
          group: keys.group.address,
          admin: admin.address,
          bank: keys.banks.USDC.address,
          operationalState: 1,
        }),
      ],
    );
  });

  it("a reduce-only marginfi bank (issue #43): a new deposit is refused before signing with VenueReduceOnly (6062), the delegated funds still come back", async () => {
    // the withdrawal below is byte for byte the earlier test's withdraw-all: it needs a newer blockhash than that one
    const earlierBlockhash = (await w.tx.clock.lifetime()).blockhash;
    await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "30000000" },
      [lender],
    );
    const configure = (operationalState: number) =>
      send(
        [admin],
        [
          marginfiConfigureBank({
            group: keys.group.address,
            admin: admin.address,
            bank: keys.banks.USDC.address,
            operationalState,
          }),
        ],
      );
    await configure(2);
    try {
      const r = await post(w.app, "/bank/marginfi-deposit", {
        owner: lender.address,
        mint: USDC_MINT,
        amount: "1",
      });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 6062, name: "VenueReduceOnly" });
      expect(r.body.message).toMatch(/reduce-only/);
      const before = await readBank();
      expect(before.delegatedLiquidity).toBeGreaterThan(0n);
      await expect
        .poll(async () => (await w.tx.clock.lifetime()).blockhash, { timeout: 30_000 })
        .not.toBe(earlierBlockhash);
      const back = await buildSignSend(
        w.app,
        "/bank/marginfi-withdraw",
        { owner: lender.address, mint: USDC_MINT },
        [lender],
      );
      expect(back.sent.error).toBeUndefined();
      const after = await readBank();
      expect(after.delegatedLiquidity).toBe(0n);
      expect(after.availableLiquidity - before.availableLiquidity).toBeGreaterThanOrEqual(
        before.delegatedLiquidity,
      );
    } finally {
      await configure(1);
    }
  });

  it("the keeper delegates the idle liquidity of a bank that opted in, through marginfi", async () => {
    await buildSignSend(
      w.app,
      "/bank/marginfi-deposit",
      { owner: lender.address, mint: USDC_MINT, amount: "0", autoDelegate: true },
      [lender],
    );
    const signer = await loadServiceKeypair(
      w.tx.config.delegationKeeper.keypairPath,
      true,
      "delegation keeper",
    );
    await w.net.fundWallet(signer.address, { lamports: 1_000_000_000n });
    const keeper = createDelegationKeeper(w.tx, signer, { info: () => {}, warn: () => {} } as never);
    const idle = (await readBank()).availableLiquidity;
    const round = await keeper.runRound();
    expect(round.failed).toEqual([]);
    expect(round.delegated).toEqual([expect.objectContaining({ bank, amount: idle.toString() })]);
    const b = await readBank();
    expect(b.availableLiquidity).toBe(0n);
    expect(b.delegatedLiquidity).toBe(await marginfiValue());
    // a week on, with nothing idle, the keeper's next round marks marginfi's interest into the books
    await w.net.advanceClock(7 * DAY);
    await w.net.marginfiOracles.refresh();
    const marked = await keeper.runRound();
    expect(marked.failed).toEqual([]);
    expect(marked.delegated).toEqual([expect.objectContaining({ bank, amount: "0" })]);
    const after = await readBank();
    expect(after.delegatedLiquidity).toBe(await marginfiValue());
    expect(after.delegatedLiquidity).toBeGreaterThan(b.delegatedLiquidity);
    expect(after.totalLiquidity - b.totalLiquidity).toBe(after.delegatedLiquidity - b.delegatedLiquidity);
  });

  it("a loan larger than the idle liquidity pulls from marginfi in the same transaction", async () => {
    w.tx.state.invalidate();
    const borrower = (await fundedWallet(w.net)).signer;
    const taken = await buildSignSend(
      w.app,
      "/defi/take-loan",
      {
        borrower: borrower.address,
        collateralMint: JTO_MINT,
        collateralAmount: "300000000000",
        duration: 7 * DAY,
        amount: "300000000",
      },
      [borrower],
    );
    expect(taken.sent.error).toBeUndefined();
    const b = await readBank();
    expect(b.delegatedLiquidity).toBe(await marginfiValue());
    expect(b.totalLiquidity).toBe(b.availableLiquidity + b.delegatedLiquidity + 300_000_000n);
  });

  it("with marginfi's oracles stale, a loan that pulls from marginfi still lands: a lender-only position needs no price", async () => {
    w.net.marginfiOracles.pause();
    try {
      await advanceClock(w, 120);
      w.tx.state.invalidate();
      const before = await readBank();
      const borrower = (await fundedWallet(w.net)).signer;
      const amount = before.availableLiquidity + 50_000_000n;
      const taken = await buildSignSend(
        w.app,
        "/defi/take-loan",
        {
          borrower: borrower.address,
          collateralMint: JTO_MINT,
          collateralAmount: "300000000000",
          duration: 7 * DAY,
          amount: amount.toString(),
        },
        [borrower],
      );
      expect(taken.sent.error).toBeUndefined();
      const b = await readBank();
      expect(b.delegatedLiquidity).toBe(await marginfiValue());
      expect(b.delegatedLiquidity < before.delegatedLiquidity).toBe(true);
    } finally {
      w.net.marginfiOracles.resume();
    }
  });
});
