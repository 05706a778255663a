import {
  decodeConfigAccount,
  findBankPda,
  findConfigPda,
  findVaultPda,
  getCreateBankInstruction,
  getDepositInstruction,
  getInitializeConfigInstruction,
  getUpdateConfigInstruction,
  getWithdrawInstruction,
  LENDING_ERROR_CODE,
} from "@cistern/sdk";
import { AccountRole, generateKeyPairSigner, lamports } from "@solana/kit";
import { describe, expect, it } from "vitest";
import { Harness } from "./support/harness.ts";
import { demote, patchData, setMeta, swapAccount } from "./support/mutate.ts";
import { createMint, createTokenAccount, tokenBalance } from "./support/tokens.ts";
import { bankOf, buildWorld, DEPOSIT, nftLoanIx, ONE } from "./support/world.ts";

const E = LENDING_ERROR_CODE;

describe("config", () => {
  it("initializes the config PDA with admin (the upgrade authority), oracle, treasury and fee", async () => {
    const h = await Harness.create();
    const admin = h.upgradeAuthority;
    const [oracle, treasury] = [await h.wallet(), await h.wallet()];
    await h.send([
      await getInitializeConfigInstruction({
        programAddress: h.programId,
        admin,
        oracle: oracle.address,
        treasury: treasury.address,
        protocolFeeBps: 2000,
      }),
    ]);
    const [config] = await findConfigPda(h.programId);
    const c = decodeConfigAccount(h.data(config));
    expect(c.admin).toBe(admin.address);
    expect(c.oracle).toBe(oracle.address);
    expect(c.treasury).toBe(treasury.address);
    expect(c.protocolFeeBps).toBe(2000);
    expect(c.paused).toBe(false);
    expect(c.createdAt).toBe(h.now);
    // a second initialize cannot overwrite the config, not even by the upgrade authority
    const other = await h.wallet();
    await h.expectCode(
      [
        await getInitializeConfigInstruction({
          programAddress: h.programId,
          admin,
          oracle: other.address,
          treasury: other.address,
          protocolFeeBps: 0,
        }),
      ],
      E.AlreadyInitialized,
    );
    expect(decodeConfigAccount(h.data(config))).toEqual(c);
  });

  it("rejects a fee above 5000 bps and a config address that is not the PDA", async () => {
    const h = await Harness.create();
    const admin = h.upgradeAuthority;
    const ix = await getInitializeConfigInstruction({
      programAddress: h.programId,
      admin,
      oracle: admin.address,
      treasury: admin.address,
      protocolFeeBps: 2000,
    });
    await h.expectCode([patchData(ix, (_, v) => v.setUint16(2, 5001, true))], E.InvalidFee);
    await h.expectCode([patchData(ix, (d) => (d[1] = ((d[1] ?? 0) + 1) % 256))], E.InvalidPda);
  });

  it("lets only the admin rotate the oracle, change the treasury and pause", async () => {
    const w = await buildWorld();
    const [config] = await findConfigPda(w.program);
    const newOracle = await generateKeyPairSigner();
    const intruder = await w.h.wallet();
    await w.h.expectCode(
      [await getUpdateConfigInstruction({ programAddress: w.program, admin: intruder, paused: true })],
      E.Unauthorized,
    );
    await w.h.send([
      await getUpdateConfigInstruction({
        programAddress: w.program,
        admin: w.admin,
        oracle: newOracle.address,
        treasury: intruder.address,
        paused: true,
      }),
    ]);
    const c = decodeConfigAccount(w.h.data(config));
    expect(c.oracle).toBe(newOracle.address);
    expect(c.treasury).toBe(intruder.address);
    expect(c.paused).toBe(true);
    expect(c.admin).toBe(w.admin.address);
    // paused: no new loans
    await w.h.expectCode([await nftLoanIx(w)], E.WrongOracle);
    await w.h.send([
      await getUpdateConfigInstruction({
        programAddress: w.program,
        admin: w.admin,
        oracle: w.oracle.address,
      }),
    ]);
    await w.h.expectCode([await nftLoanIx(w)], E.ProtocolPaused);
    await w.h.send([
      await getUpdateConfigInstruction({ programAddress: w.program, admin: w.admin, paused: false }),
    ]);
    await w.h.send([await nftLoanIx(w)]);
  });
});

describe("bank", () => {
  it("creates a bank and its vault owned by the bank PDA", async () => {
    const w = await buildWorld(0n);
    const b = bankOf(w);
    expect(b.owner).toBe(w.lender.address);
    expect(b.mint).toBe(w.currency);
    expect(b.vault).toBe(w.vault);
    expect(b.decimals).toBe(6);
    expect(b.totalLiquidity).toBe(0n);
    expect(b.createdAt).toBe(w.h.now);
    const vault = w.h.data(w.vault);
    expect(tokenBalance(w.h, w.vault)).toBe(0n);
    // vault token account: mint then owner (= bank PDA)
    const { getAddressDecoder } = await import("@solana/kit");
    expect(getAddressDecoder().decode(vault.subarray(0, 32))).toBe(w.currency);
    expect(getAddressDecoder().decode(vault.subarray(32, 64))).toBe(w.bank);
  });

  it("deposits and withdraws only what is not lent out", async () => {
    const w = await buildWorld(0n);
    const deposit = (amount: bigint, owner = w.lender, src = w.lenderAta) =>
      getDepositInstruction({
        programAddress: w.program,
        owner,
        mint: w.currency,
        sourceTokenAccount: src,
        amountBaseUnits: amount,
      });
    const withdraw = (amount: bigint) =>
      getWithdrawInstruction({
        programAddress: w.program,
        owner: w.lender,
        mint: w.currency,
        destinationTokenAccount: w.lenderAta,
        amountBaseUnits: amount,
      });
    const before = tokenBalance(w.h, w.lenderAta);
    await w.h.send([await deposit(DEPOSIT)]);
    expect(tokenBalance(w.h, w.vault)).toBe(DEPOSIT);
    expect(tokenBalance(w.h, w.lenderAta)).toBe(before - DEPOSIT);
    let b = bankOf(w);
    expect(b.totalLiquidity).toBe(DEPOSIT);
    expect(b.availableLiquidity).toBe(DEPOSIT);
    expect(b.depositedAt).toBe(w.h.now);

    // lend 100 out, then the lent part cannot be withdrawn
    await w.h.send([await nftLoanIx(w)]);
    await w.h.expectCode([await withdraw(DEPOSIT)], E.InsufficientLiquidity);
    w.h.advance(60n);
    await w.h.send([await withdraw(DEPOSIT - 100n * ONE)]);
    b = bankOf(w);
    expect(b.availableLiquidity).toBe(0n);
    expect(b.totalLiquidity).toBe(100n * ONE);
    expect(b.withdrawnAt).toBe(w.h.now);
    expect(tokenBalance(w.h, w.vault)).toBe(0n);
    await w.h.expectCode([await withdraw(1n)], E.InsufficientLiquidity);
  });

  it("refuses deposits/withdrawals by someone else, to a foreign vault or in another mint", async () => {
    const w = await buildWorld();
    const thief = await w.h.wallet();
    const thiefAta = await createTokenAccount(w.h, w.currency, thief.address);
    // thief signs as owner of the lender's bank
    const ix = await getWithdrawInstruction({
      programAddress: w.program,
      owner: w.lender,
      mint: w.currency,
      destinationTokenAccount: thiefAta,
      amountBaseUnits: ONE,
    });
    const stolen = setMeta(ix, 0, {
      address: thief.address,
      role: AccountRole.READONLY_SIGNER,
      signer: thief,
    } as never);
    await w.h.expectCode([stolen], E.Unauthorized);
    // the signer flag is required
    const unsigned = demote(ix, 0);
    await w.h.expectCode([unsigned], E.MissingSigner);
    // a vault that is not bank.vault
    const fakeVault = await createTokenAccount(w.h, w.currency, w.lender.address);
    const wrongVault = swapAccount(ix, 2, fakeVault);
    await w.h.expectCode([wrongVault], E.AccountMismatch);
    // destination in another mint
    const otherMint = await createMint(w.h, 6);
    const otherAta = await createTokenAccount(w.h, otherMint, w.lender.address);
    const wrongMint = swapAccount(ix, 3, otherAta);
    await w.h.expectCode([wrongMint], E.InvalidMint);
    // a token program that is not Tokenkeg
    const fakeToken = (await generateKeyPairSigner()).address;
    const wrongProgram = swapAccount(ix, 4, fakeToken);
    await w.h.expectCode([wrongProgram], E.InvalidTokenProgram);
    // an account that is not a bank (the config) in the bank slot
    const [config] = await findConfigPda(w.program);
    const notBank = swapAccount(ix, 1, config);
    await w.h.expectCode([notBank], E.InvalidDiscriminator);
    // a bank-sized account owned by someone else
    const foreign = (await generateKeyPairSigner()).address;
    w.h.svm.setAccount({
      address: foreign,
      data: w.h.data(w.bank),
      executable: false,
      lamports: 10_000_000n as never,
      programAddress: thief.address,
      space: 256n,
    });
    const foreignBank = swapAccount(ix, 1, foreign);
    await w.h.expectCode([foreignBank], E.InvalidOwner);
    // zero amount
    const zero = patchData(ix, (_, v) => v.setBigUint64(1, 0n, true));
    await w.h.expectCode([zero], E.InvalidAmount);
    expect(tokenBalance(w.h, thiefAta)).toBe(0n);
  });

  it("creates a bank even when someone pre-funded its PDA addresses", async () => {
    const h = await Harness.create();
    const owner = await h.wallet();
    const mint = await createMint(h, 6);
    const [bank] = await findBankPda(h.programId, owner.address, mint);
    const [vault] = await findVaultPda(h.programId, bank);
    h.svm.airdrop(bank, lamports(1_000n));
    h.svm.airdrop(vault, lamports(50_000_000n));
    await h.send([await getCreateBankInstruction({ programAddress: h.programId, owner, mint })]);
    expect(h.data(bank)).toHaveLength(256);
    expect(h.lamports(bank)).toBe(h.svm.minimumBalanceForRentExemption(256n));
    // the vault kept its extra lamports and is a token account of the bank
    expect(h.lamports(vault)).toBe(50_000_000n);
    expect(tokenBalance(h, vault)).toBe(0n);
  });

  it("rejects a bank PDA of another owner and a non-mint currency", async () => {
    const h = await Harness.create();
    const owner = await h.wallet();
    const mint = await createMint(h, 6);
    const ix = await getCreateBankInstruction({ programAddress: h.programId, owner, mint });
    const other = await h.wallet();
    const [otherBank] = await findBankPda(h.programId, other.address, mint);
    const [otherVault] = await findVaultPda(h.programId, otherBank);
    const foreign = swapAccount(swapAccount(ix, 1, otherBank), 2, otherVault);
    await h.expectCode([foreign], E.InvalidPda);
    const notMint = swapAccount(ix, 3, owner.address);
    await h.expectCode([notMint], E.InvalidMint);
    await h.send([ix]);
    expect(h.exists((await findBankPda(h.programId, owner.address, mint))[0])).toBe(true);
  });
});
