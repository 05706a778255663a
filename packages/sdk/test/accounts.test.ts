import { describe, expect, it } from "vitest";
import {
  type BankAccount,
  type ConfigAccount,
  decodeAccount,
  decodeBankAccount,
  decodeConfigAccount,
  decodeLoanAccount,
  decodePoolAccount,
  encodeBankAccount,
  encodeConfigAccount,
  encodeLoanAccount,
  encodePoolAccount,
  getBankBorrowedLiquidity,
  isSdkError,
  type LoanAccount,
  type PoolAccount,
  SDK_ERROR,
} from "../src/index.ts";
import { reader, testAddress } from "./helpers.ts";

const config: ConfigAccount = {
  bump: 254,
  paused: true,
  protocolFeeBps: 2000,
  admin: testAddress(1),
  oracle: testAddress(2),
  treasury: testAddress(3),
  createdAt: 1_700_000_000n,
  updatedAt: -5n,
};

const bank: BankAccount = {
  bump: 250,
  vaultBump: 249,
  bankType: "Standard",
  decimals: 6,
  owner: testAddress(4),
  mint: testAddress(5),
  vault: testAddress(6),
  totalLiquidity: 10_000_000_000n,
  availableLiquidity: 7_000_000_000n,
  delegatedLiquidity: 1n,
  cooldownLiquidity: 2n,
  cooldownPeriod: 3n,
  createdAt: 11n,
  depositedAt: 12n,
  withdrawnAt: 13n,
  borrowedAt: 14n,
  repaidAt: 15n,
  frozenUntil: 16n,
  ongoingLoans: 0xffff_ffff_ffff_ffffn,
  delegationKeeper: testAddress(7),
  feesOwed: 17n,
};

const pool: PoolAccount = {
  bump: 253,
  poolType: "defi-pool",
  status: "Frozen",
  flags: { autoSell: true, mortgage: false, compounding: true },
  owner: testAddress(7),
  bank: testAddress(8),
  currencyMint: testAddress(9),
  seed: 42n,
  loanAprBps: 12_000,
  mortgageAprBps: 0,
  minDurationSeconds: 86_400n,
  maxDurationSeconds: 2_592_000n,
  minAmountMicroUsd: 10_000_000n,
  maxAmountMicroUsd: 5_000_000_000n,
  conditions: {
    isEnabled: true,
    whitelistEnabled: true,
    liquidationThresholdBps: 9000,
    minAgeSeconds: 31n,
    minLoanCount: 32n,
    minVolumeMicroUsd: 33n,
    whitelist: testAddress(10),
  },
  totalLoans: 101n,
  totalLiquidations: 102n,
  totalInterest: 103n,
  currentLoans: 104n,
  totalMortgages: 105n,
  createdAt: 201n,
  updatedAt: 202n,
  lastLoanAt: 203n,
  collectionsUpdatedAt: 204n,
  lastMortgageAt: 205n,
  borrowedAmount: 300n,
  migratedAt: 0n,
  collections: [
    { id: testAddress(11), ltvBps: 5000, exposureBps: 2500, borrowedAmount: 77n, ongoingLoans: 2n },
    { id: testAddress(12), ltvBps: 10_000, exposureBps: 1, borrowedAmount: 0n, ongoingLoans: 0n },
  ],
};

const loan: LoanAccount = {
  bump: 252,
  escrowBump: 251,
  status: "Liquidated",
  kind: "ClassicLoan",
  isDefi: true,
  nftType: "Nft",
  borrower: testAddress(13),
  pool: testAddress(14),
  bank: testAddress(15),
  currencyMint: testAddress(16),
  collateralMint: testAddress(17),
  collection: testAddress(18),
  escrow: testAddress(19),
  nonce: 9n,
  collateralAmount: 1n,
  principal: 1_000_000n,
  interest: 1_370n,
  aprBps: 5000,
  durationSeconds: 864_000n,
  createdAt: 1_000n,
  expiredAt: 865_000n,
  repaidAt: 0n,
  liquidatedAt: 900_000n,
  soldAt: 0n,
  repaidAmount: 0n,
  protocolFeePaid: 0n,
  collateralValue: 2_000_000n,
  attestationSlot: 1234n,
  extendedTo: testAddress(20),
  closedBy: "Open",
  previousLoan: null,
};

describe("Config account", () => {
  it("encodes to the 128-byte layout and round-trips", () => {
    const bytes = Uint8Array.from(encodeConfigAccount(config));
    expect(bytes.length).toBe(128);
    const r = reader(bytes);
    expect([r.u8(0), r.u8(1), r.u8(2), r.u8(3)]).toEqual([1, 1, 254, 1]);
    expect(r.u16(4)).toBe(2000);
    expect(r.zero(6, 2)).toBe(true);
    expect(r.pubkey(8)).toBe(config.admin);
    expect(r.pubkey(40)).toBe(config.oracle);
    expect(r.pubkey(72)).toBe(config.treasury);
    expect(r.i64(104)).toBe(1_700_000_000n);
    expect(r.i64(112)).toBe(-5n);
    expect(r.zero(120, 8)).toBe(true);
    expect(decodeConfigAccount(bytes)).toEqual(config);
  });
});

describe("Bank account", () => {
  it("encodes to the 256-byte layout and round-trips", () => {
    const bytes = Uint8Array.from(encodeBankAccount(bank));
    expect(bytes.length).toBe(256);
    const r = reader(bytes);
    expect([r.u8(0), r.u8(1), r.u8(2), r.u8(3), r.u8(4), r.u8(5)]).toEqual([2, 1, 250, 249, 0, 6]);
    expect(r.pubkey(8)).toBe(bank.owner);
    expect(r.pubkey(40)).toBe(bank.mint);
    expect(r.pubkey(72)).toBe(bank.vault);
    expect(r.u64(104)).toBe(10_000_000_000n);
    expect(r.u64(112)).toBe(7_000_000_000n);
    expect(r.u64(120)).toBe(1n);
    expect(r.u64(128)).toBe(2n);
    expect(r.u64(136)).toBe(3n);
    expect([144, 152, 160, 168, 176, 184].map((o) => r.i64(o))).toEqual([11n, 12n, 13n, 14n, 15n, 16n]);
    expect(r.u64(192)).toBe(0xffff_ffff_ffff_ffffn);
    expect(r.pubkey(200)).toBe(bank.delegationKeeper);
    expect(r.u64(232)).toBe(17n);
    expect(r.zero(240, 16)).toBe(true);
    expect(decodeBankAccount(bytes)).toEqual(bank);
    expect(getBankBorrowedLiquidity(bank)).toBe(2_999_999_999n);
  });
});

describe("Pool account", () => {
  it("encodes to the 800-byte layout and round-trips with a trimmed collection list", () => {
    const bytes = Uint8Array.from(encodePoolAccount(pool));
    expect(bytes.length).toBe(800);
    const r = reader(bytes);
    expect([r.u8(0), r.u8(1), r.u8(2), r.u8(3), r.u8(4), r.u8(5), r.u8(6), r.u8(7)]).toEqual([
      3, 2, 253, 1, 2, 0b101, 2, 0,
    ]);
    expect(r.pubkey(8)).toBe(pool.owner);
    expect(r.pubkey(40)).toBe(pool.bank);
    expect(r.pubkey(72)).toBe(pool.currencyMint);
    expect(r.u64(104)).toBe(42n);
    expect(r.u32(112)).toBe(12_000);
    expect(r.u32(116)).toBe(0);
    expect(r.u64(120)).toBe(86_400n);
    expect(r.u64(128)).toBe(2_592_000n);
    expect(r.u64(136)).toBe(10_000_000n);
    expect(r.u64(144)).toBe(5_000_000_000n);
    expect([r.u8(152), r.u8(153), r.u16(154)]).toEqual([1, 1, 9000]);
    expect(r.zero(156, 4)).toBe(true);
    expect([r.u64(160), r.u64(168), r.u64(176)]).toEqual([31n, 32n, 33n]);
    expect(r.pubkey(184)).toBe(testAddress(10));
    expect([216, 224, 232, 240, 248].map((o) => r.u64(o))).toEqual([101n, 102n, 103n, 104n, 105n]);
    expect([256, 264, 272, 280, 288].map((o) => r.i64(o))).toEqual([201n, 202n, 203n, 204n, 205n]);
    expect(r.u64(296)).toBe(300n);
    expect(r.zero(304, 16)).toBe(true);
    expect(r.pubkey(320)).toBe(testAddress(11));
    expect([r.u16(352), r.u16(354), r.u64(360), r.u64(368)]).toEqual([5000, 2500, 77n, 2n]);
    expect(r.pubkey(320 + 56)).toBe(testAddress(12));
    expect(r.u16(320 + 56 + 32)).toBe(10_000);
    expect(r.zero(320 + 56 * 2, 56 * 6)).toBe(true);
    expect(decodePoolAccount(bytes)).toEqual({ ...pool, layoutVersion: 2 });
  });

  it("decodes a zero whitelist as null", () => {
    const noWhitelist = {
      ...pool,
      conditions: { ...pool.conditions, whitelistEnabled: false, whitelist: null },
    };
    const bytes = Uint8Array.from(encodePoolAccount(noWhitelist));
    expect(reader(bytes).zero(184, 32)).toBe(true);
    expect(decodePoolAccount(bytes).conditions.whitelist).toBeNull();
  });
});

describe("Loan account", () => {
  it("encodes to the 424-byte layout and round-trips", () => {
    const bytes = Uint8Array.from(encodeLoanAccount(loan));
    expect(bytes.length).toBe(424);
    const r = reader(bytes);
    expect([r.u8(0), r.u8(1), r.u8(2), r.u8(3), r.u8(4), r.u8(5), r.u8(6), r.u8(7)]).toEqual([
      4, 2, 252, 251, 2, 0, 1, 0,
    ]);
    const keys = [8, 40, 72, 104, 136, 168, 200].map((o) => r.pubkey(o));
    expect(keys).toEqual([13, 14, 15, 16, 17, 18, 19].map(testAddress));
    expect([232, 240, 248, 256].map((o) => r.u64(o))).toEqual([9n, 1n, 1_000_000n, 1_370n]);
    expect(r.u32(264)).toBe(5000);
    expect(r.zero(268, 4)).toBe(true);
    expect(r.u64(272)).toBe(864_000n);
    expect([280, 288, 296, 304, 312].map((o) => r.i64(o))).toEqual([1_000n, 865_000n, 0n, 900_000n, 0n]);
    expect([320, 328, 336, 344].map((o) => r.u64(o))).toEqual([0n, 0n, 2_000_000n, 1234n]);
    expect(r.pubkey(352)).toBe(testAddress(20));
    expect(decodeLoanAccount(bytes)).toEqual({ ...loan, layoutVersion: 2 });
  });

  it("maps every status and kind byte", () => {
    const statuses = ["Ongoing", "Repaid", "Liquidated", "Sold"] as const;
    const kinds = ["ClassicLoan", "MarginSwapLoan", "RequestLoan", "Mortgage"] as const;
    statuses.forEach((status, i) => {
      const bytes = Uint8Array.from(
        encodeLoanAccount({ ...loan, status, kind: kinds[i]!, extendedTo: null }),
      );
      expect([bytes[4], bytes[5]]).toEqual([i, i]);
      const decoded = decodeLoanAccount(bytes);
      expect([decoded.status, decoded.kind, decoded.extendedTo]).toEqual([status, kinds[i], null]);
    });
  });
});

describe("decodeAccount", () => {
  it("recognises each account by its tag", () => {
    expect(decodeAccount(encodeConfigAccount(config))).toEqual({ type: "Config", account: config });
    expect(decodeAccount(encodeBankAccount(bank))).toEqual({ type: "Bank", account: bank });
    expect(decodeAccount(encodePoolAccount(pool))).toEqual({
      type: "Pool",
      account: { ...pool, layoutVersion: 2 },
    });
    expect(decodeAccount(encodeLoanAccount(loan))).toEqual({
      type: "Loan",
      account: { ...loan, layoutVersion: 2 },
    });
  });

  it("reads a layout v1 account (before the 1.8 upgrade) as the current layout with its new fields empty", () => {
    const v2 = encodeLoanAccount({ ...loan, closedBy: "Repaid", previousLoan: testAddress(30) });
    const v1 = Uint8Array.from(v2.subarray(0, 384));
    v1[1] = 1;
    expect(decodeLoanAccount(v1)).toEqual({ ...loan, closedBy: null, previousLoan: null, layoutVersion: 1 });
    const pool1 = Uint8Array.from(encodePoolAccount({ ...pool, migratedAt: 9n }).subarray(0, 768));
    pool1[1] = 1;
    expect(decodePoolAccount(pool1)).toEqual({ ...pool, migratedAt: 0n, layoutVersion: 1 });
    // a v1 version byte on a v2-sized account, or a v2 byte on a v1-sized one, is neither
    const mixed = Uint8Array.from(v2);
    mixed[1] = 1;
    expect(() => decodeLoanAccount(mixed)).toThrowError(/not a Loan account/);
    const short = Uint8Array.from(v1);
    short[1] = 2;
    expect(() => decodeLoanAccount(short)).toThrowError(/424 bytes/);
  });

  it("rejects unknown tags, wrong versions and wrong sizes with coded errors", () => {
    const bytes = Uint8Array.from(encodeLoanAccount(loan));
    const wrongTag = Uint8Array.from(bytes);
    wrongTag[0] = 9;
    expect(() => decodeAccount(wrongTag)).toThrowError(/unknown account tag 9/);
    const wrongVersion = Uint8Array.from(bytes);
    wrongVersion[1] = 3;
    try {
      decodeAccount(wrongVersion);
      expect.unreachable();
    } catch (error) {
      expect(isSdkError(error, SDK_ERROR.UNKNOWN_ACCOUNT_DISCRIMINATOR)).toBe(true);
    }
    try {
      decodeLoanAccount(bytes.subarray(0, 423));
      expect.unreachable();
    } catch (error) {
      expect(isSdkError(error, SDK_ERROR.ACCOUNT_DATA_TOO_SHORT)).toBe(true);
    }
    expect(() => decodeAccount(new Uint8Array(1))).toThrowError(/1 bytes/);
  });

  it("rejects a loan with an unknown status byte", () => {
    const bytes = Uint8Array.from(encodeLoanAccount(loan));
    bytes[4] = 7;
    expect(() => decodeLoanAccount(bytes)).toThrowError(/unknown enum byte 7/);
  });
});
