import { type Address, getAddressDecoder } from "@solana/kit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeAccount,
  decodeAttestation,
  encodeAttestation,
  encodeBankAccount,
  encodeConfigAccount,
  encodeLoanAccount,
  encodePoolAccount,
  getCreatePoolDataCodec,
  getLoanTermsDataCodec,
} from "../src/index.ts";

const address: fc.Arbitrary<Address> = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .filter((b) => b.some((x) => x !== 0))
  .map((b) => getAddressDecoder().decode(b));
const optionalAddress = fc.option(address, { nil: null });
const u8 = fc.integer({ min: 0, max: 255 });
const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const flags = fc.record({ autoSell: fc.boolean(), mortgage: fc.boolean(), compounding: fc.boolean() });

const config = fc.record({
  bump: u8,
  paused: fc.boolean(),
  protocolFeeBps: u16,
  admin: address,
  oracle: address,
  treasury: address,
  createdAt: i64,
  updatedAt: i64,
});
const bank = fc.record({
  bump: u8,
  vaultBump: u8,
  bankType: fc.constant("Standard" as const),
  decimals: u8,
  owner: address,
  mint: address,
  vault: address,
  totalLiquidity: u64,
  availableLiquidity: u64,
  delegatedLiquidity: u64,
  cooldownLiquidity: u64,
  cooldownPeriod: u64,
  createdAt: i64,
  depositedAt: i64,
  withdrawnAt: i64,
  borrowedAt: i64,
  repaidAt: i64,
  frozenUntil: i64,
  ongoingLoans: u64,
  delegationKeeper: address,
  feesOwed: u64,
});
const pool = fc.record({
  bump: u8,
  poolType: fc.constantFrom("nft-pool" as const, "defi-pool" as const),
  status: fc.constantFrom("Open" as const, "Frozen" as const),
  flags,
  owner: address,
  bank: address,
  currencyMint: address,
  seed: u64,
  loanAprBps: u32,
  mortgageAprBps: u32,
  minDurationSeconds: u64,
  maxDurationSeconds: u64,
  minAmountMicroUsd: u64,
  maxAmountMicroUsd: u64,
  conditions: fc.record({
    isEnabled: fc.boolean(),
    whitelistEnabled: fc.boolean(),
    liquidationThresholdBps: u16,
    minAgeSeconds: u64,
    minLoanCount: u64,
    minVolumeMicroUsd: u64,
    whitelist: optionalAddress,
  }),
  totalLoans: u64,
  totalLiquidations: u64,
  totalInterest: u64,
  currentLoans: u64,
  totalMortgages: u64,
  createdAt: i64,
  updatedAt: i64,
  lastLoanAt: i64,
  collectionsUpdatedAt: i64,
  lastMortgageAt: i64,
  borrowedAmount: u64,
  migratedAt: i64,
  collections: fc.array(
    fc.record({ id: address, ltvBps: u16, exposureBps: u16, borrowedAmount: u64, ongoingLoans: u64 }),
    { minLength: 0, maxLength: 8 },
  ),
});
const loan = fc.record({
  bump: u8,
  escrowBump: u8,
  status: fc.constantFrom("Ongoing" as const, "Repaid" as const, "Liquidated" as const, "Sold" as const),
  kind: fc.constantFrom(
    "ClassicLoan" as const,
    "MarginSwapLoan" as const,
    "RequestLoan" as const,
    "Mortgage" as const,
  ),
  isDefi: fc.boolean(),
  nftType: fc.constantFrom("Nft" as const, "ProgrammableNft" as const, "CoreNft" as const),
  borrower: address,
  pool: address,
  bank: address,
  currencyMint: address,
  collateralMint: address,
  collection: address,
  escrow: address,
  nonce: u64,
  collateralAmount: u64,
  principal: u64,
  interest: u64,
  aprBps: u32,
  durationSeconds: u64,
  createdAt: i64,
  expiredAt: i64,
  repaidAt: i64,
  liquidatedAt: i64,
  soldAt: i64,
  repaidAmount: u64,
  protocolFeePaid: u64,
  collateralValue: u64,
  attestationSlot: u64,
  extendedTo: optionalAddress,
  closedBy: fc.constantFrom(
    "Open" as const,
    "Repaid" as const,
    "Extended" as const,
    "Refinanced" as const,
    "Liquidated" as const,
    "Sold" as const,
    "AutoSold" as const,
  ),
  previousLoan: optionalAddress,
});
const attestation = fc.record({
  collateralValueBaseUnits: u64,
  collection: address,
  currencyPriceMicroUsd: u64,
  walletAgeSeconds: u64,
  pastLoans: u64,
  volumeMicroUsd: u64,
  slot: u64,
});

const runs = { seed: 5_2026, numRuns: 150 };

describe("codec round trips on random values", () => {
  it("every account decodes back to what was encoded, at its fixed size", () => {
    fc.assert(
      fc.property(config, bank, pool, loan, (c, b, p, l) => {
        for (const [type, account, bytes, size] of [
          ["Config", c, encodeConfigAccount(c), 128],
          ["Bank", b, encodeBankAccount(b), 256],
          ["Pool", p, encodePoolAccount(p), 800],
          ["Loan", l, encodeLoanAccount(l), 424],
        ] as const) {
          expect(bytes.length).toBe(size);
          const versioned = type === "Pool" || type === "Loan" ? { ...account, layoutVersion: 2 } : account;
          expect(decodeAccount(bytes)).toEqual({ type, account: versioned });
        }
      }),
      runs,
    );
  });

  it("attestation, take-loan and create-pool data decode back to what was encoded", () => {
    fc.assert(
      fc.property(
        attestation,
        u8,
        u8,
        u64,
        u64,
        u64,
        u64,
        u32,
        (a, loanBump, escrowBump, nonce, p, d, c, apr) => {
          expect(decodeAttestation(encodeAttestation(a))).toEqual(a);
          const terms = {
            tag: 8,
            loanBump,
            escrowBump,
            metadataBump: escrowBump,
            nonce,
            principalBaseUnits: p,
            durationSeconds: d,
            collateralAmountBaseUnits: c,
            expectedAprBps: apr,
            attestation: a,
            pullIndex: loanBump,
          };
          const bytes = getLoanTermsDataCodec().encode(terms);
          expect(bytes.length).toBe(124);
          expect(getLoanTermsDataCodec().decode(bytes)).toEqual(terms);
        },
      ),
      runs,
    );
    fc.assert(
      fc.property(pool, u8, (p, poolBump) => {
        const data = {
          tag: 5,
          poolBump,
          poolType: p.poolType,
          seed: p.seed,
          params: {
            flags: p.flags,
            loanAprBps: p.loanAprBps,
            mortgageAprBps: p.mortgageAprBps,
            maxDurationSeconds: p.maxDurationSeconds,
            minAmountMicroUsd: p.minAmountMicroUsd,
            maxAmountMicroUsd: p.maxAmountMicroUsd,
            conditions: p.conditions,
            collections: p.collections.map(({ id, ltvBps, exposureBps }) => ({ id, ltvBps, exposureBps })),
          },
        };
        const bytes = getCreatePoolDataCodec().encode(data);
        expect(bytes.length).toBe(105 + 36 * p.collections.length);
        expect(getCreatePoolDataCodec().decode(bytes)).toEqual(data);
      }),
      runs,
    );
  });
});
