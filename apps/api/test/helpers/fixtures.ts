import { randomBytes } from "node:crypto";
import {
  type BankAccount,
  encodeBankAccount,
  encodeLoanAccount,
  encodePoolAccount,
  type LoanAccount,
  type PoolAccount,
} from "@cistern/sdk";
import { type Address, getAddressDecoder } from "@solana/kit";

export const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" as Address;
export const SOL = "So11111111111111111111111111111111111111112" as Address;

/** A random (off-curve or not, irrelevant here) base58 address. */
export function randomAddress(): Address {
  return getAddressDecoder().decode(randomBytes(32));
}

export function makeBank(overrides: Partial<BankAccount> = {}): BankAccount {
  return {
    bump: 255,
    vaultBump: 254,
    bankType: "Standard",
    decimals: 6,
    owner: randomAddress(),
    mint: USDC,
    vault: randomAddress(),
    totalLiquidity: 1_000_000_000n,
    availableLiquidity: 1_000_000_000n,
    delegatedLiquidity: 0n,
    cooldownLiquidity: 0n,
    cooldownPeriod: 0n,
    createdAt: 1_700_000_000n,
    depositedAt: 1_700_000_000n,
    withdrawnAt: 0n,
    borrowedAt: 0n,
    repaidAt: 0n,
    frozenUntil: 0n,
    ongoingLoans: 0n,
    delegationKeeper: "11111111111111111111111111111111" as Address,
    feesOwed: 0n,
    ...overrides,
  };
}

export function makePool(
  bankAddress: Address,
  bank: BankAccount,
  overrides: Partial<PoolAccount> = {},
): PoolAccount {
  return {
    bump: 253,
    poolType: "nft-pool",
    status: "Open",
    flags: { autoSell: false, mortgage: false, compounding: false },
    owner: bank.owner,
    bank: bankAddress,
    currencyMint: bank.mint,
    seed: 1n,
    loanAprBps: 5000,
    mortgageAprBps: 0,
    minDurationSeconds: 86_400n,
    maxDurationSeconds: 604_800n,
    minAmountMicroUsd: 10_000_000n,
    maxAmountMicroUsd: 100_000_000_000n,
    conditions: {
      isEnabled: false,
      whitelistEnabled: false,
      liquidationThresholdBps: 0,
      minAgeSeconds: 0n,
      minLoanCount: 0n,
      minVolumeMicroUsd: 0n,
      whitelist: null,
    },
    totalLoans: 0n,
    totalLiquidations: 0n,
    totalInterest: 0n,
    currentLoans: 0n,
    totalMortgages: 0n,
    createdAt: 1_700_000_100n,
    updatedAt: 1_700_000_100n,
    lastLoanAt: 0n,
    collectionsUpdatedAt: 1_700_000_100n,
    lastMortgageAt: 0n,
    borrowedAmount: 0n,
    migratedAt: 0n,
    collections: [
      { id: randomAddress(), ltvBps: 6000, exposureBps: 5000, borrowedAmount: 0n, ongoingLoans: 0n },
    ],
    ...overrides,
  };
}

export function makeLoan(
  poolAddress: Address,
  pool: PoolAccount,
  overrides: Partial<LoanAccount> = {},
): LoanAccount {
  const createdAt = overrides.createdAt ?? 1_700_001_000n;
  const durationSeconds = overrides.durationSeconds ?? 604_800n;
  return {
    bump: 252,
    escrowBump: 251,
    status: "Ongoing",
    kind: "ClassicLoan",
    isDefi: pool.poolType === "defi-pool",
    nftType: "Nft",
    borrower: randomAddress(),
    pool: poolAddress,
    bank: pool.bank,
    currencyMint: pool.currencyMint,
    collateralMint: randomAddress(),
    collection: pool.collections[0]!.id,
    escrow: randomAddress(),
    nonce: 1n,
    collateralAmount: 1n,
    principal: 100_000_000n,
    interest: 958_905n,
    aprBps: pool.loanAprBps,
    durationSeconds,
    createdAt,
    expiredAt: createdAt + durationSeconds,
    repaidAt: 0n,
    liquidatedAt: 0n,
    soldAt: 0n,
    repaidAmount: 0n,
    protocolFeePaid: 0n,
    collateralValue: 200_000_000n,
    attestationSlot: 10n,
    extendedTo: null,
    closedBy: "Open",
    previousLoan: null,
    ...overrides,
  };
}

export const bytesOf = {
  bank: (b: BankAccount) => new Uint8Array(encodeBankAccount(b)),
  pool: (p: PoolAccount) => new Uint8Array(encodePoolAccount(p)),
  loan: (l: LoanAccount) => new Uint8Array(encodeLoanAccount(l)),
};
