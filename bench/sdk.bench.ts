// @cistern/sdk figures: account decode throughput, instruction building (with PDA derivation) and a full
// upgradeable-loader deploy of programs/lending/build/lending.so into LiteSVM.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generateKeyPairSigner } from "@solana/kit";
import {
  decodeAccount,
  deployProgram,
  encodeLoanAccount,
  encodePoolAccount,
  getRepayInstruction,
  getTakeLoanInstruction,
  type LoanAccount,
  type PoolAccount,
} from "../packages/sdk/src/index.ts";
import {
  createFundedSigner,
  createLiteSvmDeployTransport,
  createTestSvm,
} from "../packages/sdk/src/testing/index.ts";

const a = (await generateKeyPairSigner()).address;
const loan: LoanAccount = {
  bump: 255,
  escrowBump: 254,
  status: "Ongoing",
  kind: "ClassicLoan",
  isDefi: false,
  nftType: "Nft",
  borrower: a,
  pool: a,
  bank: a,
  currencyMint: a,
  collateralMint: a,
  collection: a,
  escrow: a,
  nonce: 1n,
  collateralAmount: 1n,
  principal: 1_000_000n,
  interest: 1_000n,
  aprBps: 20_000,
  durationSeconds: 604_800n,
  createdAt: 1n,
  expiredAt: 604_801n,
  repaidAt: 0n,
  liquidatedAt: 0n,
  soldAt: 0n,
  repaidAmount: 0n,
  protocolFeePaid: 0n,
  collateralValue: 2_000_000n,
  attestationSlot: 1n,
  extendedTo: null,
  closedBy: "Open",
  previousLoan: null,
};
const pool: PoolAccount = {
  bump: 255,
  poolType: "nft-pool",
  status: "Open",
  flags: { autoSell: false, mortgage: false, compounding: false },
  owner: a,
  bank: a,
  currencyMint: a,
  seed: 1n,
  loanAprBps: 20_000,
  mortgageAprBps: 0,
  minDurationSeconds: 86_400n,
  maxDurationSeconds: 2_592_000n,
  minAmountMicroUsd: 0n,
  maxAmountMicroUsd: 1n << 40n,
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
  createdAt: 0n,
  updatedAt: 0n,
  lastLoanAt: 0n,
  collectionsUpdatedAt: 0n,
  lastMortgageAt: 0n,
  borrowedAmount: 0n,
  migratedAt: 0n,
  collections: Array.from({ length: 8 }, () => ({
    id: a,
    ltvBps: 5000,
    exposureBps: 5000,
    borrowedAmount: 0n,
    ongoingLoans: 0n,
  })),
};

function rate(label: string, iterations: number, fn: () => void): void {
  fn();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  const ms = performance.now() - start;
  console.log(`${label}: ${Math.round((iterations / ms) * 1000).toLocaleString("en-US")} ops/s`);
}

const loanBytes = encodeLoanAccount(loan);
const poolBytes = encodePoolAccount(pool);
rate(`decodeAccount(Loan, ${loanBytes.length} B)`, 20_000, () => void decodeAccount(loanBytes));
rate(
  `decodeAccount(Pool, ${poolBytes.length} B, 8 collections)`,
  10_000,
  () => void decodeAccount(poolBytes),
);

const attestation = {
  collateralValueBaseUnits: 2_000_000n,
  collection: a,
  currencyPriceMicroUsd: 1_000_000n,
  walletAgeSeconds: 0n,
  pastLoans: 0n,
  volumeMicroUsd: 0n,
  slot: 1n,
};
{
  const n = 300;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    await getTakeLoanInstruction({
      poolType: "nft-pool",
      programAddress: a,
      borrower: a,
      oracle: a,
      pool: a,
      bank: a,
      collateralMint: a,
      borrowerCollateralTokenAccount: a,
      borrowerCurrencyTokenAccount: a,
      nonce: BigInt(i),
      principalBaseUnits: 1n,
      durationSeconds: 86_400n,
      collateralAmountBaseUnits: 1n,
      expectedAprBps: 1,
      attestation,
    });
    await getRepayInstruction({
      programAddress: a,
      borrower: a,
      pool: a,
      bank: a,
      loan: a,
      borrowerCollateralTokenAccount: a,
      borrowerCurrencyTokenAccount: a,
    });
  }
  const ms = performance.now() - start;
  console.log(`build TakeLoan + Repay (6 PDA derivations): ${(ms / n).toFixed(2)} ms per pair`);
}

const so = fileURLToPath(new URL("../programs/lending/build/lending.so", import.meta.url));
const programBytes = new Uint8Array(readFileSync(so));
const svm = createTestSvm();
const payer = await createFundedSigner(svm, 1000n);
const start = performance.now();
const result = await deployProgram({
  transport: createLiteSvmDeployTransport(svm),
  programBytes,
  program: await generateKeyPairSigner(),
  payer,
});
console.log(
  `deploy lending.so (${programBytes.length} B) via the upgradeable loader in LiteSVM: ` +
    `${(performance.now() - start).toFixed(0)} ms, ${result.signatures.length} transactions (${result.writeTransactionCount} writes)`,
);
