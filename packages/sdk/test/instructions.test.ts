import { AccountRole, generateKeyPairSigner } from "@solana/kit";
import { describe, expect, it } from "vitest";
import {
  ATTESTATION_SIZE,
  type Attestation,
  decodeAttestation,
  encodeAttestation,
  findBankPda,
  findConfigPda,
  findEscrowPda,
  findLoanPda,
  findMetadataPda,
  findPoolPda,
  findProgramDataAddress,
  findVaultPda,
  getClosePoolInstruction,
  getCreateBankInstruction,
  getCreatePoolInstruction,
  getDepositInstruction,
  getExtendInstruction,
  getInitializeConfigInstruction,
  getLiquidateInstruction,
  getRepayInstruction,
  getTakeLoanInstruction,
  getUpdateConfigInstruction,
  getUpdatePoolInstruction,
  getWithdrawInstruction,
  isSdkError,
  type PoolParams,
  SDK_ERROR,
  SYSTEM_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from "../src/index.ts";
import { reader, testAddress } from "./helpers.ts";

const programAddress = testAddress(100);
const { READONLY, WRITABLE, READONLY_SIGNER, WRITABLE_SIGNER } = AccountRole;
const roles = (ix: { accounts?: readonly { address: string; role: AccountRole }[] }) =>
  ix.accounts!.map((a) => [a.address, a.role]);

const attestation: Attestation = {
  collateralValueBaseUnits: 5_000_000n,
  collection: testAddress(30),
  currencyPriceMicroUsd: 1_000_000n,
  walletAgeSeconds: 1_000n,
  pastLoans: 3n,
  volumeMicroUsd: 999n,
  slot: 77n,
};

const params: PoolParams = {
  flags: { autoSell: false, mortgage: true, compounding: false },
  loanAprBps: 15_000,
  mortgageAprBps: 9_000,
  maxDurationSeconds: 604_800n,
  minAmountMicroUsd: 1_000_000n,
  maxAmountMicroUsd: 50_000_000n,
  conditions: {
    isEnabled: true,
    whitelistEnabled: false,
    liquidationThresholdBps: 8000,
    minAgeSeconds: 60n,
    minLoanCount: 2n,
    minVolumeMicroUsd: 7n,
    whitelist: null,
  },
  collections: [
    { id: testAddress(31), ltvBps: 4000, exposureBps: 3000 },
    { id: testAddress(32), ltvBps: 6000, exposureBps: 10_000 },
  ],
};

describe("attestation", () => {
  it("is 80 bytes at the LAYOUT.md offsets and round-trips", () => {
    const bytes = Uint8Array.from(encodeAttestation(attestation));
    expect(bytes.length).toBe(ATTESTATION_SIZE);
    const r = reader(bytes);
    expect(r.u64(0)).toBe(5_000_000n);
    expect(r.pubkey(8)).toBe(testAddress(30));
    expect([40, 48, 56, 64, 72].map((o) => r.u64(o))).toEqual([1_000_000n, 1_000n, 3n, 999n, 77n]);
    expect(decodeAttestation(bytes)).toEqual(attestation);
  });
});

describe("config instructions", () => {
  it("InitializeConfig: 68 bytes, admin/config/system/program/programData accounts", async () => {
    const admin = testAddress(1);
    const ix = await getInitializeConfigInstruction({
      programAddress,
      admin,
      oracle: testAddress(2),
      treasury: testAddress(3),
      protocolFeeBps: 2000,
    });
    const [config, bump] = await findConfigPda(programAddress);
    const r = reader(ix.data!);
    expect(ix.data!.length).toBe(68);
    expect([r.u8(0), r.u8(1), r.u16(2)]).toEqual([0, bump, 2000]);
    expect([r.pubkey(4), r.pubkey(36)]).toEqual([testAddress(2), testAddress(3)]);
    expect(roles(ix)).toEqual([
      [admin, WRITABLE_SIGNER],
      [config, WRITABLE],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
      [programAddress, READONLY],
      [await findProgramDataAddress(programAddress), READONLY],
    ]);
    await expect(
      getInitializeConfigInstruction({
        programAddress,
        admin,
        oracle: admin,
        treasury: admin,
        protocolFeeBps: 5001,
      }),
    ).rejects.toThrowError(/protocolFeeBps/);
  });

  it("UpdateConfig: 100 bytes with the mask of the fields given", async () => {
    const admin = await generateKeyPairSigner();
    const ix = await getUpdateConfigInstruction({
      programAddress,
      admin,
      paused: true,
      newAdmin: testAddress(9),
    });
    const r = reader(ix.data!);
    expect(ix.data!.length).toBe(100);
    expect([r.u8(0), r.u8(1), r.u8(2)]).toEqual([1, 0b1100, 1]);
    expect(r.zero(3, 64)).toBe(true);
    expect(r.pubkey(67)).toBe(testAddress(9));
    expect(r.u8(99)).toBe(0);
    expect(roles(ix)).toEqual([
      [admin.address, READONLY_SIGNER],
      [(await findConfigPda(programAddress))[0], WRITABLE],
    ]);
    // the kit signer travels in the meta so signTransactionMessageWithSigners can sign
    expect((ix.accounts![0] as { signer?: unknown }).signer).toBe(admin);
    await expect(getUpdateConfigInstruction({ programAddress, admin })).rejects.toSatisfy((e) =>
      isSdkError(e, SDK_ERROR.INVALID_ARGUMENT),
    );
  });
});

describe("bank instructions", () => {
  const owner = testAddress(4);
  const mint = testAddress(5);

  it("CreateBank: tag, both bumps, six accounts", async () => {
    const ix = await getCreateBankInstruction({ programAddress, owner, mint });
    const [bank, bankBump] = await findBankPda(programAddress, owner, mint);
    const [vault, vaultBump] = await findVaultPda(programAddress, bank);
    expect(Array.from(ix.data!)).toEqual([2, bankBump, vaultBump]);
    expect(roles(ix)).toEqual([
      [owner, WRITABLE_SIGNER],
      [bank, WRITABLE],
      [vault, WRITABLE],
      [mint, READONLY],
      [TOKEN_PROGRAM_ADDRESS, READONLY],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
    ]);
  });

  it("Deposit / Withdraw: 9 bytes, owner/bank/vault/token account/token program", async () => {
    const [bank] = await findBankPda(programAddress, owner, mint);
    const [vault] = await findVaultPda(programAddress, bank);
    const deposit = await getDepositInstruction({
      programAddress,
      owner,
      mint,
      sourceTokenAccount: testAddress(6),
      amountBaseUnits: 123_456_789_000n,
    });
    const withdraw = await getWithdrawInstruction({
      programAddress,
      owner,
      mint,
      destinationTokenAccount: testAddress(6),
      amountBaseUnits: 1n,
    });
    expect([deposit.data![0], reader(deposit.data!).u64(1), deposit.data!.length]).toEqual([
      3,
      123_456_789_000n,
      9,
    ]);
    expect([withdraw.data![0], reader(withdraw.data!).u64(1)]).toEqual([4, 1n]);
    const expected = [
      [owner, READONLY_SIGNER],
      [bank, WRITABLE],
      [vault, WRITABLE],
      [testAddress(6), WRITABLE],
      [TOKEN_PROGRAM_ADDRESS, READONLY],
    ];
    expect(roles(deposit)).toEqual(expected);
    expect(roles(withdraw)).toEqual(expected);
    await expect(
      getDepositInstruction({ programAddress, owner, mint, sourceTokenAccount: owner, amountBaseUnits: 0n }),
    ).rejects.toThrowError(/amount/);
    await expect(
      getDepositInstruction({
        programAddress,
        owner,
        mint,
        sourceTokenAccount: owner,
        amountBaseUnits: 1n << 64n,
      }),
    ).rejects.toThrowError(/amount/);
  });
});

describe("pool instructions", () => {
  const owner = testAddress(7);
  const mint = testAddress(8);

  it("CreatePool: 105 + 36n bytes at the PoolParams offsets", async () => {
    const ix = await getCreatePoolInstruction({
      programAddress,
      owner,
      currencyMint: mint,
      poolType: "nft-pool",
      seed: 5n,
      params,
    });
    const [pool, poolBump] = await findPoolPda(programAddress, owner, 5n);
    const [bank] = await findBankPda(programAddress, owner, mint);
    const d = ix.data!;
    expect(d.length).toBe(105 + 36 * 2);
    const r = reader(d);
    expect([r.u8(0), r.u8(1), r.u8(2), r.u64(3)]).toEqual([5, poolBump, 0, 5n]);
    const p = 11;
    expect([r.u8(p), r.u32(p + 1), r.u32(p + 5)]).toEqual([0b010, 15_000, 9_000]);
    expect([r.u64(p + 9), r.u64(p + 17), r.u64(p + 25)]).toEqual([604_800n, 1_000_000n, 50_000_000n]);
    expect([r.u8(p + 33), r.u8(p + 34), r.u16(p + 35)]).toEqual([1, 0, 8000]);
    expect([r.u64(p + 37), r.u64(p + 45), r.u64(p + 53)]).toEqual([60n, 2n, 7n]);
    expect(r.zero(p + 61, 32)).toBe(true);
    expect(r.u8(p + 93)).toBe(2);
    expect([r.pubkey(p + 94), r.u16(p + 126), r.u16(p + 128)]).toEqual([testAddress(31), 4000, 3000]);
    expect([r.pubkey(p + 130), r.u16(p + 162), r.u16(p + 164)]).toEqual([testAddress(32), 6000, 10_000]);
    expect(roles(ix)).toEqual([
      [owner, WRITABLE_SIGNER],
      [pool, WRITABLE],
      [bank, READONLY],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
    ]);
  });

  it("UpdatePool and ClosePool", async () => {
    const pool = testAddress(40);
    const ix = getUpdatePoolInstruction({
      programAddress,
      owner,
      pool,
      poolType: "nft-pool",
      status: "Frozen",
      params,
    });
    expect(ix.data!.length).toBe(96 + 36 * 2);
    expect([ix.data![0], ix.data![1], ix.data![2]]).toEqual([6, 2, 0b010]);
    expect(roles(ix)).toEqual([
      [owner, READONLY_SIGNER],
      [pool, WRITABLE],
    ]);
    const close = getClosePoolInstruction({ programAddress, owner, pool });
    expect(Array.from(close.data!)).toEqual([7]);
    expect(roles(close)).toEqual([
      [owner, WRITABLE_SIGNER],
      [pool, WRITABLE],
    ]);
  });

  it("rejects invalid pool parameters before building", async () => {
    const base = { programAddress, owner, currencyMint: mint, seed: 1n } as const;
    const bad: [PoolParams, "nft-pool" | "defi-pool", RegExp][] = [
      [{ ...params, loanAprBps: 0 }, "nft-pool", /loanAprBps/],
      [params, "defi-pool", /mortgage/],
      [{ ...params, maxDurationSeconds: 86_399n }, "nft-pool", /maxDurationSeconds/],
      [{ ...params, minAmountMicroUsd: 60_000_000n }, "nft-pool", /minAmountMicroUsd/],
      [{ ...params, collections: [] }, "nft-pool", /collections/],
      [{ ...params, collections: [params.collections[0]!, params.collections[0]!] }, "nft-pool", /unique/],
      [{ ...params, collections: [{ id: mint, ltvBps: 10_001, exposureBps: 1 }] }, "nft-pool", /ltvBps/],
      [{ ...params, conditions: { ...params.conditions, whitelistEnabled: true } }, "nft-pool", /whitelist/],
    ];
    for (const [p, poolType, message] of bad) {
      await expect(getCreatePoolInstruction({ ...base, poolType, params: p })).rejects.toThrowError(message);
    }
  });
});

describe("loan instructions", () => {
  const borrower = testAddress(50);
  const oracle = testAddress(51);
  const pool = testAddress(52);
  const bank = testAddress(53);
  const collateralMint = testAddress(54);
  const terms = {
    nonce: 17n,
    principalBaseUnits: 2_500_000n,
    durationSeconds: 172_800n,
    collateralAmountBaseUnits: 1n,
    expectedAprBps: 15_000,
    attestation,
  };

  it("TakeLoan: 124 bytes and the 13 (+ whitelist) accounts", async () => {
    const ix = await getTakeLoanInstruction({
      poolType: "defi-pool",
      programAddress,
      borrower,
      oracle,
      pool,
      bank,
      collateralMint,
      borrowerCollateralTokenAccount: testAddress(55),
      borrowerCurrencyTokenAccount: testAddress(56),
      whitelist: testAddress(57),
      ...terms,
    });
    const [loan, loanBump] = await findLoanPda(programAddress, pool, borrower, 17n);
    const [escrow, escrowBump] = await findEscrowPda(programAddress, loan);
    expect([ix.loan, ix.escrow]).toEqual([loan, escrow]);
    const d = ix.data!;
    const r = reader(d);
    expect(d.length).toBe(124);
    expect([r.u8(0), r.u8(1), r.u8(2), r.u8(3)]).toEqual([8, loanBump, escrowBump, 0]);
    expect([r.u64(4), r.u64(12), r.u64(20), r.u64(28), r.u32(36)]).toEqual([
      17n,
      2_500_000n,
      172_800n,
      1n,
      15_000,
    ]);
    expect(Array.from(d.subarray(40, 120))).toEqual(Array.from(encodeAttestation(attestation)));
    expect(r.u32(120)).toBe(0);
    expect(roles(ix)).toEqual([
      [borrower, WRITABLE_SIGNER],
      [oracle, READONLY_SIGNER],
      [(await findConfigPda(programAddress))[0], READONLY],
      [pool, WRITABLE],
      [bank, WRITABLE],
      [(await findVaultPda(programAddress, bank))[0], WRITABLE],
      [loan, WRITABLE],
      [escrow, WRITABLE],
      [collateralMint, READONLY],
      [testAddress(55), WRITABLE],
      [testAddress(56), WRITABLE],
      [TOKEN_PROGRAM_ADDRESS, READONLY],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
      [testAddress(57), READONLY],
    ]);
  });

  it("Extend: same data layout with tag 10 and the 14 accounts", async () => {
    const oldLoan = testAddress(60);
    const ix = await getExtendInstruction({
      programAddress,
      borrower,
      oracle,
      pool,
      bank,
      collateralMint,
      oldLoan,
      borrowerCurrencyTokenAccount: testAddress(56),
      ...terms,
      nonce: 18n,
    });
    const [loan] = await findLoanPda(programAddress, pool, borrower, 18n);
    expect(ix.data![0]).toBe(10);
    expect(ix.data!.length).toBe(124);
    expect(roles(ix)).toEqual([
      [borrower, WRITABLE_SIGNER],
      [oracle, READONLY_SIGNER],
      [(await findConfigPda(programAddress))[0], READONLY],
      [pool, WRITABLE],
      [bank, WRITABLE],
      [(await findVaultPda(programAddress, bank))[0], WRITABLE],
      [oldLoan, WRITABLE],
      [(await findEscrowPda(programAddress, oldLoan))[0], WRITABLE],
      [loan, WRITABLE],
      [(await findEscrowPda(programAddress, loan))[0], WRITABLE],
      [collateralMint, READONLY],
      [testAddress(56), WRITABLE],
      [TOKEN_PROGRAM_ADDRESS, READONLY],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
    ]);
  });

  it("Repay and Liquidate: 1-byte data and their account lists", async () => {
    const loan = testAddress(61);
    const repay = await getRepayInstruction({
      programAddress,
      borrower,
      pool,
      bank,
      loan,
      borrowerCollateralTokenAccount: testAddress(55),
      borrowerCurrencyTokenAccount: testAddress(56),
    });
    const [escrow] = await findEscrowPda(programAddress, loan);
    expect(Array.from(repay.data!)).toEqual([9]);
    expect(roles(repay)).toEqual([
      [borrower, WRITABLE_SIGNER],
      [(await findConfigPda(programAddress))[0], READONLY],
      [pool, WRITABLE],
      [bank, WRITABLE],
      [(await findVaultPda(programAddress, bank))[0], WRITABLE],
      [loan, WRITABLE],
      [escrow, WRITABLE],
      [testAddress(55), WRITABLE],
      [testAddress(56), WRITABLE],
      [TOKEN_PROGRAM_ADDRESS, READONLY],
    ]);
    const liquidate = await getLiquidateInstruction({
      programAddress,
      liquidator: testAddress(62),
      pool,
      bank,
      loan,
      poolOwnerCollateralTokenAccount: testAddress(63),
    });
    expect(Array.from(liquidate.data!)).toEqual([11]);
    expect(roles(liquidate)).toEqual([
      [testAddress(62), WRITABLE_SIGNER],
      [pool, WRITABLE],
      [bank, WRITABLE],
      [loan, WRITABLE],
      [escrow, WRITABLE],
      [testAddress(63), WRITABLE],
      [TOKEN_PROGRAM_ADDRESS, READONLY],
    ]);
  });

  it("TakeLoan of an NFT: the metadata PDA is account 13 (whitelist 14) and its bump is data byte 3", async () => {
    const ix = await getTakeLoanInstruction({
      poolType: "nft-pool",
      programAddress,
      borrower,
      oracle,
      pool,
      bank,
      collateralMint,
      borrowerCollateralTokenAccount: testAddress(55),
      borrowerCurrencyTokenAccount: testAddress(56),
      whitelist: testAddress(57),
      ...terms,
    });
    const [metadata, metadataBump] = await findMetadataPda(collateralMint);
    expect(ix.accounts?.length).toBe(15);
    expect(ix.accounts?.[13]?.address).toBe(metadata);
    expect(ix.accounts?.[14]?.address).toBe(testAddress(57));
    expect(ix.data?.[3]).toBe(metadataBump);
  });

  it("rejects a zero principal", async () => {
    await expect(
      getTakeLoanInstruction({
        poolType: "defi-pool",
        programAddress,
        borrower,
        oracle,
        pool,
        bank,
        collateralMint,
        borrowerCollateralTokenAccount: borrower,
        borrowerCurrencyTokenAccount: borrower,
        ...terms,
        principalBaseUnits: 0n,
      }),
    ).rejects.toThrowError(/principal/);
  });
});
