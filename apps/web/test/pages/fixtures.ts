import { SOL_MINT, USDC_MINT } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";

export const address = () => Keypair.generate().publicKey.toBase58();

/** A pool as GET /pool/pool answers it. */
export function apiPool(overrides: Record<string, unknown> = {}) {
  const bank = address();
  return {
    pubkey: address(),
    owner: address(),
    seed: "1",
    bump: 255,
    type: "nft-pool",
    status: "Open",
    bank,
    currency: USDC_MINT,
    metadata: { name: "Blue chips", thumbnail: "", banks: [bank] },
    totalLiquidity: "10000000000",
    availableLiquidity: "8000000000",
    delegatedLiquidity: "0",
    borrowedLiquidity: "2000000000",
    loanCurve: { apr: 3650 },
    mortgageCurve: { apr: 0 },
    limits: { minDuration: 86400, maxDuration: 14 * 86400, minAmountUsd: 10, maxAmountUsd: 5000 },
    liquidation: { isAutoSellEnabled: false },
    isMortgageEnabled: false,
    isCompoundingEnabled: false,
    conditions: {
      isEnabled: false,
      minAge: 0,
      minLoan: 0,
      minVolume: 0,
      liquidationThreshold: 0,
      whitelist: "11111111111111111111111111111111",
    },
    collections: [],
    totalLoans: 0,
    totalLiquidations: 0,
    totalMortgages: 0,
    totalInterest: "0",
    currentLoan: 0,
    nftLocked: 0,
    collectionsUpdatedAt: 0,
    currenciesUpdatedAt: 0,
    lastMortgageAt: 0,
    createdAt: 1_700_000_000,
    updatedAt: 1_700_000_000,
    lastLoanAt: 0,
    ...overrides,
  };
}

/** A bank as GET /bank/user answers it. */
export function apiBank(pubkey: string, owner: string, mint = USDC_MINT) {
  return {
    pubkey,
    owner,
    mint,
    vault: address(),
    authority: pubkey,
    bankType: "Standard",
    totalLiquidity: "0",
    availableLiquidity: "0",
    delegatedLiquidity: "0",
    cooldownLiquidity: "0",
    borrowedLiquidity: "0",
    cooldownPeriod: 0,
    delegators: [],
    createdAt: 1,
    depositedAt: 0,
    withdrawnAt: 0,
    borrowedAt: 0,
    repaidAt: 0,
    frozenUntil: 0,
  };
}

/** A loan as GET /loan/user answers it. */
export function apiLoan(overrides: Record<string, unknown> = {}) {
  const createdAt = Number(overrides.createdAt ?? 1_800_000_000);
  const duration = Number(overrides.duration ?? 7 * 86400);
  return {
    pubkey: address(),
    borrower: address(),
    lender: address(),
    pool: address(),
    bank: address(),
    currency: USDC_MINT,
    amount: "100000000",
    collateral: address(),
    collection: address(),
    interest: "700000",
    apr: 3650,
    duration,
    createdAt,
    expiredAt: createdAt + duration,
    repaidAt: 0,
    liquidatedAt: 0,
    soldAt: 0,
    repaidAmount: "0",
    soldAmount: "0",
    status: "ongoing",
    loanType: "Nft",
    kind: { classicLoan: {} },
    ...overrides,
  };
}

export { SOL_MINT, USDC_MINT };
