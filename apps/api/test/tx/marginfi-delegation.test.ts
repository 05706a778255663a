/**
 * Delegation through the real marginfi v2 program on the localnet (the vendored mainnet build at its mainnet id,
 * the Pyth price accounts the localnet posts): a marginfi group and USDC / SOL banks made by marginfi's own
 * admin instructions, a marginfi market with a borrower, the lending program pinning marginfi's program and
 * group, and the API configured with them (MARGINFI_GROUP / MARGINFI_BANKS): the read routes, the builders, the
 * keeper and a loan pulling from marginfi, against the chain.
 */
import {
  getAssociatedTokenAddress,
  MARGINFI_DEMO_BANKS,
  marginfiAccountInitialize,
  marginfiAddBank,
  marginfiBorrow,
  marginfiConfigureBank,
  marginfiConfigureBankOracle,
  marginfiDeposit,
  marginfiGroupInitialize,
  ORACLE_SETUP_PYTH_PUSH,
  PYTH_FEEDS,
  pythFeedId,
  pythPriceFeedAddress,
} from "@cistern/localnet";
import { getPriorityFeeOptions } from "@cistern/protocol";
import {
  decodeBankAccount,
  findBankPda,
  getSetVenuesInstruction,
  NO_VENUE,
  readKeypairFile,
} from "@cistern/sdk";
import {
  type Address,
  generateKeyPairSigner,
  getAddressEncoder,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
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
  advanceClock,
  buildSignSend,
  createUsdcJtoPool,
  fundedWallet,
  JTO_MINT,
  post,
  SOL_MINT,
  signAll,
  startTxWorld,
  type TxWorld,
  USDC_MINT,
} from "./support/tx-world.ts";

const DAY = 86_400;
const MARGINFI = "MFv2hWf31Z9kbCa1snEPYctwafyhdvnV7FZnsebVacA" as Address;

describe("delegation through marginfi v2 on the localnet (API routes, builders, keeper)", () => {
  let w: TxWorld;
  let admin: KeyPairSigner;
  let group: KeyPairSigner;
  const banks: Record<string, KeyPairSigner> = {};
  let lender: KeyPairSigner;
  let bank: Address;
  const usdcFeed = PYTH_FEEDS.find((f) => f.symbol === "USDC")!;
  const solFeed = PYTH_FEEDS.find((f) => f.symbol === "SOL")!;

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
  /** Instructions signed by `signers` (the first pays), through the factory and the sender. */
  const send = async (signers: KeyPairSigner[], instructions: Instruction[]) => {
    const built = await w.tx.factory.build({
      feePayer: signers[0]!.address,
      groups: [instructions],
      options: getPriorityFeeOptions(),
      needsOracle: false,
    });
    const [signed] = await signAll(built, signers);
    const sent = await post(w.app, "/send-transaction", {
      transaction: signed,
      blockHeight: built.lastValidBlockHeight,
    });
    if (sent.status !== 200 || sent.body.result === null) throw new Error(JSON.stringify(sent.body));
  };
  /** The bank's marginfi position as marginfi's accounts say: floor(asset shares x asset share value). */
  const marginfiValue = async () => {
    const position = (await view()).externalAccount as Address | null;
    if (position === null) return 0n;
    const account = decodeMarginfiAccount(await readChain(position));
    const mb = decodeMarginfiBank(await readChain(banks.USDC!.address));
    const shares = account.balances.find((b) => b.bank === banks.USDC!.address)?.assetShares ?? 0n;
    return (shares * mb.assetShareValue) / I80F48_ONE / I80F48_ONE;
  };

  beforeAll(async () => {
    group = await generateKeyPairSigner();
    banks.USDC = await generateKeyPairSigner();
    banks.SOL = await generateKeyPairSigner();
    w = await startTxWorld({
      env: {
        MARGINFI_GROUP: group.address,
        MARGINFI_BANKS: `${USDC_MINT}:${banks.USDC.address},${SOL_MINT}:${banks.SOL.address}`,
      },
    });
    admin = (await fundedWallet(w.net)).signer;
    await w.net.fundWallet(admin.address, { lamports: 100_000_000_000_000n });
    // marginfi's admin makes the group and the banks, on the price accounts the localnet posts
    await send([admin, group], [marginfiGroupInitialize({ group: group.address, admin: admin.address })]);
    for (const feed of [usdcFeed, solFeed]) {
      const b = banks[feed.symbol]!;
      const common = { group: group.address, admin: admin.address, bank: b.address };
      await send(
        [admin, b],
        [
          marginfiAddBank({ ...common, mint: feed.mint, config: MARGINFI_DEMO_BANKS[feed.symbol]!.config }),
          marginfiConfigureBankOracle({
            ...common,
            setup: ORACLE_SETUP_PYTH_PUSH,
            oracleKey: pythFeedId(feed),
            oracleAccount: pythPriceFeedAddress(feed),
          }),
        ],
      );
    }
    // marginfi's own market: 2,000 USDC lent, 1,000 USDC borrowed against 100 SOL (50% utilization)
    const trader = (await fundedWallet(w.net)).signer;
    await w.net.fundWallet(trader.address, {
      tokens: [
        { mint: USDC_MINT, amount: 2_000_000_000n },
        { mint: SOL_MINT, amount: 100_000_000_000n },
      ],
    });
    const lenderAccount = await generateKeyPairSigner();
    const borrowerAccount = await generateKeyPairSigner();
    const usdcAta = getAssociatedTokenAddress(trader.address, USDC_MINT) as Address;
    const solAta = getAssociatedTokenAddress(trader.address, SOL_MINT) as Address;
    const base = { group: group.address, authority: trader.address };
    await send(
      [trader, lenderAccount, borrowerAccount],
      [
        marginfiAccountInitialize({ ...base, account: lenderAccount.address, feePayer: trader.address }),
        marginfiAccountInitialize({ ...base, account: borrowerAccount.address, feePayer: trader.address }),
        marginfiDeposit({
          ...base,
          account: lenderAccount.address,
          bank: banks.USDC.address,
          source: usdcAta,
          amount: 2_000_000_000n,
        }),
        marginfiDeposit({
          ...base,
          account: borrowerAccount.address,
          bank: banks.SOL.address,
          source: solAta,
          amount: 100_000_000_000n,
        }),
      ],
    );
    await send(
      [trader],
      [
        marginfiBorrow({
          ...base,
          account: borrowerAccount.address,
          bank: banks.USDC.address,
          destination: usdcAta,
          amount: 1_000_000_000n,
          health: [
            { bank: banks.SOL.address, oracle: pythPriceFeedAddress(solFeed) },
            { bank: banks.USDC.address, oracle: pythPriceFeedAddress(usdcFeed) },
          ],
        }),
      ],
    );
    // the lending program's admin pins marginfi's program and this group as the lending venue
    const faucetAdmin = await readKeypairFile(w.net.faucetKeypairPath);
    const pin = await getSetVenuesInstruction({
      programAddress: w.programId,
      admin: faucetAdmin.address,
      swapProgram: NO_VENUE,
      lendingProgram: MARGINFI,
    });
    await send(
      [faucetAdmin],
      [{ ...pin, data: Uint8Array.from([...pin.data!, ...getAddressEncoder().encode(group.address)]) }],
    );
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
      reserve: banks.USDC!.address,
      rateBps: 333,
    });
    expect(await view()).toMatchObject({
      isDelegationSupported: true,
      venue: "marginfi",
      venueProgram: MARGINFI,
      reserve: banks.USDC!.address,
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
          group: group.address,
          admin: admin.address,
          bank: banks.USDC!.address,
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
          group: group.address,
          admin: admin.address,
          bank: banks.USDC!.address,
          operationalState: 1,
        }),
      ],
    );
  });

  it("a reduce-only marginfi bank (issue #43): a new deposit is refused before signing with VenueReduceOnly (6062), the delegated funds still come back", async () => {
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
            group: group.address,
            admin: admin.address,
            bank: banks.USDC!.address,
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
